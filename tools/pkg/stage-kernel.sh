#!/bin/bash
# Stage 5a: lays out one finished kernel build as format-neutral file trees
# that both the DEB and the RPM are made from (so both carry the same bytes):
#
#   $PKG_STAGE/<kernelrelease>/
#     boot/{vmlinuz,System.map,config}   the image, its map and .config
#     modules/lib/modules/<kver>/        `make modules_install` (stripped)
#     headers/                           what external module builds need
#     dbg/                               vmlinux + module debug info (only
#                                        when CONFIG_DEBUG_INFO=y)
#     doc/config-report.txt              the config stage's report
#     build.env                          a copy of the build identity
#
# Prints the stage directory. Reads: BUILD (the build's identity file,
# tools/kbuild/identity.sh); PKG_STAGE; JOBS (default 2).
set -eu

usage() { echo "usage: BUILD=out/build/<name>/mmbatch-build.env stage-kernel.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage

. "$(dirname "$0")/lib.sh"
pkg_load_build

SRCARCH=x86
kmake() {
	make -s -C "$TREE" O="$BUILD_DIR" LOCALVERSION= -j"${JOBS:-2}" "$@"
}

[ -f "$BUILD_DIR/config-report.txt" ] || pkg_die "package: no $BUILD_DIR/config-report.txt (config stage report)"
# The image package depends on an initramfs tool (dracut or the host's own),
# which needs initramfs support.
pkg_is_enabled BLK_DEV_INITRD || pkg_die "package: $BUILD_DIR/.config: CONFIG_BLK_DEV_INITRD is not set (the initramfs tools need it)"

stage=$PKG_STAGE/$KERNELRELEASE
mkdir -p "$PKG_STAGE"
tmp=$(mktemp -d "$PKG_STAGE/.stage.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The image, its map and config under neutral names.
mkdir -p "$tmp/boot" "$tmp/doc"
cp "$IMAGE" "$tmp/boot/vmlinuz"
cp "$BUILD_DIR/System.map" "$tmp/boot/System.map"
cp "$BUILD_DIR/.config" "$tmp/boot/config"
cp "$BUILD_DIR/config-report.txt" "$tmp/doc/config-report.txt"
cp "$PKG_BUILD" "$tmp/build.env"

# Modules, stripped; kbuild's build/source links point into this machine's
# build dir: the headers package provides `build` instead.
moddir=$tmp/modules/lib/modules/$KERNELRELEASE
if pkg_is_enabled MODULES; then
	kmake INSTALL_MOD_PATH="$tmp/modules" INSTALL_MOD_STRIP=1 modules_install >/dev/null
	rm -f "$moddir/build" "$moddir/source"
else
	mkdir -p "$moddir"
fi
[ -d "$moddir" ] || pkg_die "package: modules_install did not create $moddir"

# Signed at packaging time, after the strip (a strip after it would drop the
# signature), as distributions do (Fedora's %__modsign_install_post): a build
# with MODULE_SIG but not MODULE_SIG_ALL whose MODULE_SIG_KEY is a key file in
# its build dir (the guest flavor's public test key, config.sh). kbuild's
# MODULE_SIG_ALL builds (SIGN_KEY) were signed by modules_install itself.
sig_key=$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"$/\1/p' "$BUILD_DIR/.config")
if pkg_is_enabled MODULE_SIG && ! pkg_is_enabled MODULE_SIG_ALL && [ -n "$sig_key" ] &&
	[ "${sig_key#/}" = "$sig_key" ] && [ -f "$BUILD_DIR/$sig_key" ]; then
	sig_hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$BUILD_DIR/.config")
	[ -n "$sig_hash" ] || pkg_die "package: $BUILD_DIR/.config: MODULE_SIG without CONFIG_MODULE_SIG_HASH"
	[ -x "$BUILD_DIR/scripts/sign-file" ] && [ -f "$BUILD_DIR/certs/signing_key.x509" ] ||
		pkg_die "package: $BUILD_DIR: no scripts/sign-file or certs/signing_key.x509 to sign the modules with"
	signed=0
	while IFS= read -r -d '' ko; do
		"$BUILD_DIR/scripts/sign-file" "$sig_hash" "$BUILD_DIR/$sig_key" "$BUILD_DIR/certs/signing_key.x509" "$ko" ||
			pkg_die "package: scripts/sign-file failed on ${ko#"$moddir/"}"
		signed=$((signed + 1))
	done < <(find "$moddir" -name '*.ko' -print0)
	echo "package: $signed modules signed with $sig_key ($sig_hash)" >&2
fi

# Headers for external modules: the kernel's install-extmod-build list (same
# on both bases): sources from the tree, generated files from the build dir.
find_in_scripts() {
	find scripts \( -name atomic -o -name dtc -o -name kconfig -o -name package \) -prune -o \
		! -name unifdef -a ! -name mk_elfconfig -a \( -type f -o -type l \) -print
}
hdr=$tmp/headers
mkdir -p "$hdr"
(
	cd "$TREE"
	echo Makefile
	find "arch/$SRCARCH" -maxdepth 1 -name 'Makefile*'
	find "arch/$SRCARCH" -name generated -prune -o -name include -type d -print
	find "arch/$SRCARCH" -name Kbuild.platforms -o -name Platform
	find include \( -name config -o -name generated \) -prune -o \( -type f -o -type l \) -print
	find_in_scripts
) | tar -c -f - -C "$TREE" -T - | tar -xf - -C "$hdr" ||
	pkg_die "package: copying header sources from $TREE failed"
(
	cd "$BUILD_DIR"
	pkg_is_enabled OBJTOOL && echo tools/objtool/objtool
	pkg_is_enabled DEBUG_INFO_BTF_MODULES && echo tools/bpf/resolve_btfids/resolve_btfids
	[ -f Module.symvers ] && echo Module.symvers
	echo "arch/$SRCARCH/include/generated"
	echo include/config/auto.conf
	echo include/config/kernel.release
	echo include/generated
	find_in_scripts
	pkg_is_enabled GCC_PLUGINS && find scripts/gcc-plugins -name '*.so'
	true
) | tar -c -f - -C "$BUILD_DIR" -T - | tar -xf - -C "$hdr" ||
	pkg_die "package: copying generated headers from $BUILD_DIR failed"
cp "$BUILD_DIR/.config" "$hdr/.config"
find "$hdr" \( -name '.*.cmd' -o -name '*.o' -o -name '.tmp*' -o -name .gitignore \) -delete
# Host tools ship stripped, as Debian's own linux-headers (dh_strip flags).
find "$hdr" -type f -perm -u+x -exec sh -c 'readelf -h "$1" >/dev/null 2>&1' _ {} \; -print0 |
	xargs -0r strip --remove-section=.comment --remove-section=.note
# objtool is built with -g and absolute paths, so its build ID depends on the
# build dir (seen in repro-check); the ID is of no use in a headers package.
[ ! -f "$hdr/tools/objtool/objtool" ] || strip --remove-section=.note.gnu.build-id "$hdr/tools/objtool/objtool"
find "$hdr" -type f -name '*.so' -print0 | xargs -0r strip --strip-unneeded --remove-section=.comment --remove-section=.note

# Debug info: vmlinux and each module's debug sections.
if pkg_is_enabled DEBUG_INFO; then
	dbg=$tmp/dbg
	mkdir -p "$dbg/lib/modules/$KERNELRELEASE"
	cp "$BUILD_DIR/vmlinux" "$dbg/lib/modules/$KERNELRELEASE/vmlinux"
	if [ -f "$BUILD_DIR/modules.order" ]; then
		while read -r mod; do
			mod=${mod%.o}.ko
			mkdir -p "$(dirname "$dbg/lib/modules/$KERNELRELEASE/kernel/$mod")"
			objcopy --only-keep-debug "$BUILD_DIR/$mod" "$dbg/lib/modules/$KERNELRELEASE/kernel/$mod"
		done <"$BUILD_DIR/modules.order"
	fi
fi

pkg_normalize "$tmp"
rm -rf "$stage"
mv "$tmp" "$stage"
trap - EXIT
echo "$stage"
