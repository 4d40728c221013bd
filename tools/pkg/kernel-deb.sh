#!/bin/bash
# shellcheck disable=SC2034 # upper-case variables fill the templates (pkg_subst, by name)
# Stage 5b: the kernel DEBs from a staged build (tools/pkg/stage-kernel.sh):
#   linux-image-<kver>     /boot/vmlinuz-<kver>, System.map-<kver>,
#                          config-<kver>, /lib/modules/<kver>/, docs incl. the
#                          config report; Depends: kmod,
#                          dracut | linux-initramfs-tool (a host keeps its
#                          own tool: initramfs-tools provides it; a host
#                          with neither gets dracut)
#   linux-headers-<kver>   /usr/src/linux-headers-<kver>, the build link
#   linux-image-<kver>-dbg /usr/lib/debug/... (only when the stage has dbg/,
#                          i.e. CONFIG_DEBUG_INFO=y; the guest flavor has none)
#   linux-image-mmbatch-<base>-<flavor>  meta-package, e.g. linux-image-mmbatch-
#                          6.12-guest (the debug variant's: -guest+debug), version <kversion>+mmbatch<series>-<rev>;
#                          Depends on this release's image (= its version), so a
#                          fleet installs it once and `apt-get full-upgrade` brings
#                          each newer release of that base (only for mmbatch<series>
#                          releases; the name keeps the release's suffix: -guest,
#                          -guest-nr64, -guest+debug, ...). The base is in the name so that a 6.1
#                          fleet is not moved to 6.12 by an upgrade.
# control and changelog are generated from specs/deb/*.in; the maintainer
# scripts (specs/deb/linux-image.maint) and copyright are static.
# Prints each .deb path. Reads: PKG_OUT, PKG_MAINTAINER, PKG_REVISION.
set -eu

usage() { echo "usage: kernel-deb.sh STAGE_DIR" >&2; exit 2; }
[ $# -eq 1 ] && [ -r "$1/build.env" ] || usage
stage=$(realpath "$1")

. "$(dirname "$0")/lib.sh"
# shellcheck disable=SC1091 # build.env is in the stage (written by stage-kernel.sh), not in the tree
. "$stage/build.env"
export SOURCE_DATE_EPOCH
specs=$TOP/specs/deb
# The debug variant is the <flavor>+debug flavor in the descriptions (its
# names carry +debug through KERNELRELEASE already).
FLAVOR=$(pkg_flavor_name)

ARCH=$(pkg_deb_arch)
MAINTAINER=$PKG_MAINTAINER
DEB_VERSION=$KERNELRELEASE-$PKG_REVISION
DATE=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
SOURCE=linux-mmbatch
CHANGE="Linux $KVERSION, mmbatch series $SERIES_VERSION, $FLAVOR flavor."
mkdir -p "$PKG_OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# add_docs PKGDIR PKG [VERSION]: copyright and changelog, as Debian policy
# wants them (VERSION: the package's own, default DEB_VERSION).
add_docs() {
	local doc=$1/usr/share/doc/$2 DEB_VERSION=${3:-$DEB_VERSION}
	mkdir -p "$doc"
	cp "$specs/copyright" "$doc/copyright"
	pkg_subst "$specs/changelog.in" SOURCE DEB_VERSION CHANGE MAINTAINER DATE >"$doc/changelog.Debian"
	pkg_gzip "$doc/changelog.Debian"
}

# write_control PKGDIR TEMPLATE: DEBIAN/control from TEMPLATE.
write_control() {
	local dir=$1 INSTALLED_SIZE
	INSTALLED_SIZE=$(pkg_installed_size "$dir")
	mkdir -p "$dir/DEBIAN"
	pkg_subst "$2" KERNELRELEASE KVERSION BASE FLAVOR SERIES_VERSION DEB_VERSION ARCH MAINTAINER \
		INSTALLED_SIZE SHLIBS_DEPENDS >"$dir/DEBIAN/control"
}

build_image() {
	local pkg=linux-image-$KERNELRELEASE dir=$work/image
	mkdir -p "$dir/boot" "$dir/lib"
	cp "$stage/boot/vmlinuz" "$dir/boot/vmlinuz-$KERNELRELEASE"
	cp "$stage/boot/System.map" "$dir/boot/System.map-$KERNELRELEASE"
	cp "$stage/boot/config" "$dir/boot/config-$KERNELRELEASE"
	cp -a "$stage/modules/lib/modules" "$dir/lib/"
	add_docs "$dir" "$pkg"
	cp "$stage/doc/config-report.txt" "$dir/usr/share/doc/$pkg/config-report.txt"
	SHLIBS_DEPENDS='' write_control "$dir" "$specs/control.image.in"
	local s
	for s in preinst postinst prerm postrm; do
		install -m 0755 "$specs/linux-image.maint" "$dir/DEBIAN/$s"
	done
	pkg_deb "$dir" "$PKG_OUT/${pkg}_${DEB_VERSION}_$ARCH.deb"
	echo "$PKG_OUT/${pkg}_${DEB_VERSION}_$ARCH.deb"
}

build_headers() {
	local pkg=linux-headers-$KERNELRELEASE dir=$work/headers
	local dest=$dir/usr/src/linux-headers-$KERNELRELEASE
	mkdir -p "$dest" "$dir/lib/modules/$KERNELRELEASE"
	cp -a "$stage/headers/." "$dest/"
	ln -s "/usr/src/linux-headers-$KERNELRELEASE" "$dir/lib/modules/$KERNELRELEASE/build"
	add_docs "$dir" "$pkg"
	local elves=() f
	while IFS= read -r f; do
		elves+=("$f")
	done < <(find "$dest" -type f -perm -u+x -exec sh -c 'readelf -h "$1" >/dev/null 2>&1' _ {} \; -print | sort)
	local SHLIBS_DEPENDS
	SHLIBS_DEPENDS=$(pkg_shlibdeps ${elves[@]+"${elves[@]}"})
	[ -n "$SHLIBS_DEPENDS" ] || SHLIBS_DEPENDS=libc6
	write_control "$dir" "$specs/control.headers.in"
	pkg_deb "$dir" "$PKG_OUT/${pkg}_${DEB_VERSION}_$ARCH.deb"
	echo "$PKG_OUT/${pkg}_${DEB_VERSION}_$ARCH.deb"
}

build_dbg() {
	local pkg=linux-image-$KERNELRELEASE-dbg dir=$work/dbg
	mkdir -p "$dir/usr/lib/debug/boot"
	cp -a "$stage/dbg/lib" "$dir/usr/lib/debug/"
	# Where perf, systemtap and kdump-tools look for vmlinux.
	ln -s "../lib/modules/$KERNELRELEASE/vmlinux" "$dir/usr/lib/debug/boot/vmlinux-$KERNELRELEASE"
	ln -s "lib/modules/$KERNELRELEASE/vmlinux" "$dir/usr/lib/debug/vmlinux-$KERNELRELEASE"
	add_docs "$dir" "$pkg"
	SHLIBS_DEPENDS='' write_control "$dir" "$specs/control.dbg.in"
	pkg_deb "$dir" "$PKG_OUT/${pkg}_${DEB_VERSION}_$ARCH.deb"
	echo "$PKG_OUT/${pkg}_${DEB_VERSION}_$ARCH.deb"
}

# build_meta: the meta-package of this release's flavor (see the header).
# The RPM side needs none: mmbatch-kernel-<base>-<flavor> carries no release in its
# name and is installonly, so `dnf upgrade` already adds newer releases.
build_meta() {
	local suffix
	if ! [[ "$KERNELRELEASE" =~ ^"$KVERSION-mmbatch$SERIES_VERSION-"(.+)$ ]]; then
		pkg_note "package: $KERNELRELEASE is not an mmbatch series release: no meta-package"
		return 0
	fi
	suffix=${BASH_REMATCH[1]}
	local META_PACKAGE=linux-image-mmbatch-$BASE-$suffix META_VERSION=$KVERSION+mmbatch$SERIES_VERSION-$PKG_REVISION
	local dir=$work/meta INSTALLED_SIZE
	mkdir -p "$dir"
	add_docs "$dir" "$META_PACKAGE" "$META_VERSION"
	INSTALLED_SIZE=$(pkg_installed_size "$dir")
	mkdir -p "$dir/DEBIAN"
	pkg_subst "$specs/control.meta.in" META_PACKAGE META_VERSION KERNELRELEASE KVERSION BASE FLAVOR SERIES_VERSION \
		DEB_VERSION ARCH MAINTAINER INSTALLED_SIZE >"$dir/DEBIAN/control"
	pkg_deb "$dir" "$PKG_OUT/${META_PACKAGE}_${META_VERSION}_$ARCH.deb"
	echo "$PKG_OUT/${META_PACKAGE}_${META_VERSION}_$ARCH.deb"
}

build_image
build_headers
build_meta
if [ -d "$stage/dbg" ]; then
	build_dbg
else
	pkg_note "package: no debug info in $KERNELRELEASE (CONFIG_DEBUG_INFO is not set): no -dbg package"
	rm -f "$PKG_OUT/linux-image-$KERNELRELEASE-dbg_${DEB_VERSION}_$ARCH.deb"
fi
