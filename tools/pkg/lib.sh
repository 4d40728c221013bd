# shellcheck shell=bash
# Shared helpers for the packaging stage (tools/pkg/*.sh). Sourced, not run.
#
# pkg_load_build loads the kernel build named by BUILD, its identity file
# (tools/kbuild/identity.sh; e.g. BUILD=out/build/6.12-guest/mmbatch-build.env):
# sets PKG_BUILD (that file, absolute) and, read from it with bid_get, BASE
# KVERSION KERNELRELEASE FLAVOR SERIES_VERSION TREE BUILD_DIR IMAGE IMAGE_HASH
# SOURCE_DATE_EPOCH KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST;
# fails naming the file and the key when one is missing, when the build did
# not finish, or when its image is not the one the file records.
# pkg_build_of_knobs prints the identity file of the build the kbuild knobs
# name (BASE, FLAVOR, NR_CPUS, ... as tools/kbuild/lib.sh derives them): only
# for the interactive entry points (packages.sh --from-knobs, `make packages`).
# pkg_packages_of FILE prints every package path FILE records, one a line.
#
# Reads: TOP, OUT, BUILD, PKG_OUT (default $OUT/packages), PKG_STAGE (default $OUT/pkgstage).

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${OUT:=$TOP/out}"
: "${PKG_OUT:=$OUT/packages}"
: "${PKG_STAGE:=$OUT/pkgstage}"
PKG_MAINTAINER=${PKG_MAINTAINER:-mmbatch packagers <packagers@mmbatch.example.org>}
PKG_REVISION=${PKG_REVISION:-1}
export TOP OUT

# Same bits on every machine: no group/other write from a stray umask, C
# collation for every sorted list.
umask 022
export LC_ALL=C TZ=UTC

pkg_die() { echo "ERROR: $*" >&2; exit 1; }
pkg_note() { echo "$*" >&2; }

# shellcheck source=../kbuild/identity.sh
. "$TOP/tools/kbuild/identity.sh"

# The keys of BID_PACKAGE_KEYS that name package files.
PKG_FILE_KEYS="IMAGE_DEB HEADERS_DEB DBG_DEB META_DEB KERNEL_RPM DEVEL_RPM DEBUGINFO_RPM MMBATCHD_DEB MMBATCHD_RPM"

pkg_build_of_knobs() {
	(
		# shellcheck source=../kbuild/lib.sh
		. "$TOP/tools/kbuild/lib.sh"
		kb_init
		echo "$KB_BUILD/mmbatch-build.env"
	)
}

pkg_load_build() {
	local v val
	[ -n "${BUILD:-}" ] ||
		pkg_die "package: BUILD is not set: name the build by its identity file, e.g. BUILD=out/build/6.12-guest/mmbatch-build.env"
	bid_check "$BUILD"
	PKG_BUILD=$(realpath "$BUILD")
	for v in BASE KVERSION KERNELRELEASE FLAVOR SERIES_VERSION TREE BUILD_DIR IMAGE IMAGE_HASH \
		SOURCE_DATE_EPOCH KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST; do
		val=$(bid_get "$PKG_BUILD" "$v") || exit 1
		printf -v "$v" '%s' "$val"
	done
	[ -f "$BUILD_DIR/include/config/kernel.release" ] ||
		pkg_die "package: $PKG_BUILD: BUILD_DIR $BUILD_DIR is not a finished kernel build (no include/config/kernel.release)"
	val=$(cat "$BUILD_DIR/include/config/kernel.release")
	[ "$val" = "$KERNELRELEASE" ] ||
		pkg_die "package: $PKG_BUILD: KERNELRELEASE is $KERNELRELEASE but $BUILD_DIR built '$val': run the build stage again"
	[ -f "$IMAGE" ] || pkg_die "package: $PKG_BUILD: IMAGE $IMAGE does not exist: run the build stage again"
	val=$(sha256sum <"$IMAGE" | cut -c1-64)
	[ "$val" = "$IMAGE_HASH" ] ||
		pkg_die "package: $PKG_BUILD: IMAGE $IMAGE changed since the build recorded IMAGE_HASH ($IMAGE_HASH, now $val): run the build stage again"
	export SOURCE_DATE_EPOCH KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST
}

pkg_packages_of() {
	local k v
	bid_check "$1"
	for k in $PKG_FILE_KEYS; do
		v=$(bid_get "$1" "$k" 2>/dev/null) || continue
		echo "$v"
	done
}

# pkg_flavor_name: the flavor as the package names and descriptions carry
# it, from a staged build.env (FLAVOR, DEBUG): <flavor>, or <flavor>+debug for
# the debug variant (DEBUG=1; identity files from before DEBUG: 0), whose
# release ends in +debug too: its packages install beside the normal ones.
pkg_flavor_name() {
	if [ "${DEBUG:-0}" = 1 ]; then echo "$FLAVOR+debug"; else echo "$FLAVOR"; fi
}

# pkg_is_enabled SYMBOL: CONFIG_SYMBOL=y in the build's .config.
pkg_is_enabled() {
	grep -qx "CONFIG_$1=y" "$BUILD_DIR/.config"
}

# pkg_normalize DIR: owner-independent, umask-independent, dated bits: no
# group/other write, and every mtime clamped to SOURCE_DATE_EPOCH.
pkg_normalize() {
	local dir=$1
	chmod -R go-w "$dir"
	find "$dir" -newermt "@$SOURCE_DATE_EPOCH" -print0 | xargs -0r touch -h -d "@$SOURCE_DATE_EPOCH"
}

# pkg_gzip FILE: gzip -9n (no name, no date in the header) in place.
pkg_gzip() {
	gzip -9nf "$1"
}

# pkg_subst TEMPLATE VAR...: TEMPLATE with every @VAR@ replaced by $VAR;
# fails naming the template when a placeholder is left over.
pkg_subst() {
	local tpl=$1 expr=() v out
	shift
	for v in "$@"; do
		expr+=(-e "s|@$v@|$(printf '%s' "${!v}" | sed 's/[|&\\]/\\&/g')|g")
	done
	out=$(sed "${expr[@]}" "$tpl")
	if printf '%s\n' "$out" | grep -n '@[A-Z_]*@' >&2; then
		pkg_die "package: $tpl: placeholder left unfilled (line above)"
	fi
	printf '%s\n' "$out"
}

# pkg_installed_size DIR: dpkg's Installed-Size (KiB, one per file rounded
# up, one per other entry), DEBIAN/ excluded.
pkg_installed_size() {
	find "$1" -path "$1/DEBIAN" -prune -o ! -path "$1" -printf '%y %s\n' |
		awk '$1 == "f" { s += int(($2 + 1023) / 1024); next } { s += 1 } END { print s + 0 }'
}

# pkg_shlibdeps FILE...: the Depends string dpkg-shlibdeps computes for the
# given ELF files (empty when none is dynamic).
pkg_shlibdeps() {
	[ $# -gt 0 ] || return 0
	local dir
	dir=$(mktemp -d)
	mkdir "$dir/debian"
	printf 'Source: x\n\nPackage: x\nArchitecture: any\n' >"$dir/debian/control"
	local f args=()
	for f in "$@"; do args+=(-e "$(realpath "$f")"); done
	local out
	if ! out=$(cd "$dir" && dpkg-shlibdeps -O "${args[@]}" 2>"$dir/err"); then
		cat "$dir/err" >&2
		rm -rf "$dir"
		pkg_die "package: dpkg-shlibdeps failed on $*"
	fi
	rm -rf "$dir"
	printf '%s\n' "$out" | sed -n 's/^shlibs:Depends=//p'
}

# The package compressors, PKG_DEB_CODEC (dpkg-deb's -Z and -z, CODEC:LEVEL)
# and PKG_RPM_PAYLOAD (rpm's %_binary_payload; T0: rpm's threads, one per
# CPU), and dpkg-deb's threads, PKG_THREADS (default: the CPUs).
# tools/pkg/codec-bench.sh measures the candidates (figures in
# docs/building/packages.md). The defaults are the measured choice on a
# cloud debug payload: xz -1 for DEBs (smaller than zstd -9, multi-threaded,
# and the only fast codec Debian 12's lintian and older dpkg accept) and
# zstd -9 on every core for RPMs (Fedora's own payload codec).
# Threads changed neither a DEB's nor an RPM payload's bytes from 2 threads
# up, but dpkg-deb's zstd with 1 thread did, and rpm records its macro in
# the header (PAYLOADFLAGS): PKG_THREADS is at least 2 and the rpm macro
# keeps T0 (auto) as written.
PKG_DEB_CODEC=${PKG_DEB_CODEC:-xz:1}
PKG_RPM_PAYLOAD=${PKG_RPM_PAYLOAD:-w9T0.zstdio}
PKG_THREADS=${PKG_THREADS:-$(nproc)}

# pkg_check_codecs: fails with one line naming the knob when a codec knob is
# not one the packaging knows; raises PKG_THREADS to 2 (see above).
pkg_check_codecs() {
	case $PKG_DEB_CODEC in
	gzip:[1-9] | xz:[0-9] | zstd:[1-9] | zstd:1[0-9]) ;;
	*) pkg_die "package: PKG_DEB_CODEC='$PKG_DEB_CODEC': expected gzip:1-9, xz:0-9 or zstd:1-19" ;;
	esac
	[[ "$PKG_RPM_PAYLOAD" =~ ^w[0-9]{1,2}(T0)?\.(gzdio|xzdio|zstdio)$ ]] ||
		pkg_die "package: PKG_RPM_PAYLOAD='$PKG_RPM_PAYLOAD': expected wLEVEL[T0].{gzdio,xzdio,zstdio} (e.g. w9.gzdio, w9T0.zstdio)"
	[[ "$PKG_THREADS" =~ ^[1-9][0-9]*$ ]] ||
		pkg_die "package: PKG_THREADS='$PKG_THREADS': expected a positive integer"
	[ "$PKG_THREADS" -ge 2 ] || PKG_THREADS=2
}

# pkg_codecs_of DEB RPM: the compressors these packages were made with, as
# the knobs name them where the archives record it: "CODEC PAYLOAD", e.g.
# "zstd w9T0.zstdio" (a DEB records its codec, data.tar.<ext>, not its
# level; an RPM its payload's compressor, level and threads).
pkg_codecs_of() {
	local member comp flags
	member=$(ar t "$1" | grep -m1 '^data\.tar') || member=none
	case $member in
	data.tar.gz) member=gzip ;; data.tar.xz) member=xz ;; data.tar.zst) member=zstd ;;
	esac
	read -r comp flags < <(rpm -qp --qf '%{PAYLOADCOMPRESSOR} %{PAYLOADFLAGS}\n' "$2" 2>/dev/null) || comp=none
	case $comp in gzip) comp=gzdio ;; zstd) comp=zstdio ;; *) comp=${comp}dio ;; esac
	echo "$member w$flags.$comp"
}

# pkg_codecs_wanted: the same for the knobs, PKG_DEB_CODEC and PKG_RPM_PAYLOAD.
pkg_codecs_wanted() { echo "${PKG_DEB_CODEC%%:*} $PKG_RPM_PAYLOAD"; }

# pkg_deb DIR FILE: build FILE from DIR with dpkg-deb (sorted members, root
# owner, mtimes clamped to SOURCE_DATE_EPOCH by dpkg-deb as well), compressed
# with PKG_DEB_CODEC.
pkg_deb() {
	local dir=$1 file=$2 tmp
	pkg_check_codecs
	pkg_normalize "$dir"
	tmp=$(mktemp "$file.XXXXXX")
	dpkg-deb --root-owner-group -Z"${PKG_DEB_CODEC%%:*}" -z"${PKG_DEB_CODEC#*:}" --threads-max="$PKG_THREADS" \
		--build "$dir" "$tmp" >/dev/null
	mv -f "$tmp" "$file"
	chmod 0644 "$file"
}

# pkg_size PATH: the size of a file, or of a tree's files, in MB, one decimal.
pkg_size() { du -sb "$1" | awk '{ printf "%.1f MB", $1 / 1e6 }'; }

# pkg_arch: the Debian architecture of the build (x86_64 kernels only).
pkg_deb_arch() { echo amd64; }
pkg_rpm_arch() { echo x86_64; }

# pkg_rpmbuild SPEC TOPDIR CHANGELOG_TEXT [--define 'k v']...: binary-only
# rpmbuild, its payload compressed with PKG_RPM_PAYLOAD (T0: as many threads
# as CPUs, rpm's own count), with everything machine-specific pinned (build host, build time
# and file mtimes from SOURCE_DATE_EPOCH, packager, changelog date). The
# RPMs land in TOPDIR/RPMS/<arch>/. rpmbuild's dependency check would read
# the (empty) rpm database of a Debian host: --nodeps.
pkg_rpmbuild() {
	local spec=$1 top=$2 text=$3
	shift 3
	pkg_check_codecs
	mkdir -p "$top"
	rpmbuild -bb --nodeps --quiet --target "$(pkg_rpm_arch)" \
		--define "_topdir $top" \
		--define "_buildhost mmbatch" \
		--define "use_source_date_epoch_as_buildtime 1" \
		--define "clamp_mtime_to_source_date_epoch 1" \
		--define "_binary_payload $PKG_RPM_PAYLOAD" \
		--define "packager $PKG_MAINTAINER" \
		--define "changelog_date $(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%a %b %d %Y')" \
		--define "changelog_text $text" \
		"$@" "$spec" >"$top/rpmbuild.log" 2>&1 || {
		tail -n 30 "$top/rpmbuild.log" >&2
		pkg_die "package: rpmbuild of ${spec#"$TOP"/} failed (log above)"
	}
}
