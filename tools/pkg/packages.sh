#!/bin/bash
# Stage 5: every package from ONE kernel build, both formats, into $PKG_OUT
# (default out/packages/): the kernel DEBs and RPMs (stage-kernel.sh, then
# kernel-deb.sh and kernel-rpm.sh from the same staged tree) and, unless
# PKG_MMBATCHD=0, the mmbatchd DEB and RPM (mmbatchd-pkg.sh).
#
# Also writes two manifests that other scripts (tests, the VM harness) read
# instead of guessing names; each line KEY=PATH:
#   $PKG_OUT/kernel-<kernelrelease>.paths   IMAGE_DEB HEADERS_DEB [DBG_DEB] [META_DEB]
#                                           KERNEL_RPM DEVEL_RPM [DEBUGINFO_RPM]
#   $PKG_OUT/mmbatchd.paths                 MMBATCHD_DEB MMBATCHD_RPM
# Prints every package path, one a line, last.
# Reads: the knobs of tools/kbuild/lib.sh (BASE, FLAVOR, ...), PKG_OUT,
# PKG_STAGE, PKG_MMBATCHD (default 1).
set -eu

usage() { echo "usage: packages.sh  (knobs from the environment: BASE FLAVOR ...)" >&2; exit 2; }
[ $# -eq 0 ] || usage

here=$(dirname "$0")
. "$here/lib.sh"
pkg_load_build

# run_into VAR CMD...: CMD's output lines into array VAR; CMD's failure is ours.
list_tmp=$(mktemp)
trap 'rm -f "$list_tmp"' EXIT
run_into() {
	local var=$1
	shift
	"$@" >"$list_tmp" || pkg_die "package: $(basename "$1") failed (see above)"
	mapfile -t "$var" <"$list_tmp"
}

# Two runs for the same release would share $PKG_STAGE/<release>/ (staging,
# then both formats read it): the second waits for the first.
mkdir -p "$PKG_STAGE"
exec 9>"$PKG_STAGE/$KERNELRELEASE.lock"
flock 9

t0=$SECONDS
echo "package: $KERNELRELEASE (base $BASE, series $SERIES_VERSION, flavor $FLAVOR) from $BUILD_DIR" >&2
stage=$("$here/stage-kernel.sh")
echo "package: staged in $((SECONDS - t0)) s" >&2

t1=$SECONDS
run_into debs "$here/kernel-deb.sh" "$stage"
echo "package: DEBs in $((SECONDS - t1)) s" >&2
t1=$SECONDS
run_into rpms "$here/kernel-rpm.sh" "$stage"
echo "package: RPMs in $((SECONDS - t1)) s" >&2
[ ${#debs[@]} -ge 2 ] && [ ${#rpms[@]} -ge 2 ] || pkg_die "package: kernel packaging failed (see above)"

# key_for PATH: the manifest key of a package file.
key_for() {
	case $(basename "$1") in
		linux-image-*-dbg_*.deb) echo DBG_DEB ;;
		linux-image-mmbatch-*.deb) echo META_DEB ;;
		linux-image-*.deb) echo IMAGE_DEB ;;
		linux-headers-*.deb) echo HEADERS_DEB ;;
		mmbatch-kernel-*-devel-*.rpm) echo DEVEL_RPM ;;
		mmbatch-kernel-*-debuginfo-*.rpm) echo DEBUGINFO_RPM ;;
		mmbatch-kernel-*.rpm) echo KERNEL_RPM ;;
		mmbatchd_*.deb) echo MMBATCHD_DEB ;;
		mmbatchd-*.rpm) echo MMBATCHD_RPM ;;
		*) pkg_die "package: unexpected package name $1" ;;
	esac
}

# write_manifest FILE PATH...
write_manifest() {
	local file=$1 tmp p
	shift
	tmp=$(mktemp "$file.XXXXXX")
	for p in "$@"; do echo "$(key_for "$p")=$p"; done >"$tmp"
	mv -f "$tmp" "$file"
	chmod 0644 "$file"
}

write_manifest "$PKG_OUT/kernel-$KERNELRELEASE.paths" "${debs[@]}" "${rpms[@]}"
all=("${debs[@]}" "${rpms[@]}")

if [ "${PKG_MMBATCHD:-1}" = 1 ]; then
	t1=$SECONDS
	# The daemon packages date from the repo, not from this kernel build.
	run_into tools env -u SOURCE_DATE_EPOCH "$here/mmbatchd-pkg.sh"
	[ ${#tools[@]} -eq 2 ] || pkg_die "package: mmbatchd packaging failed (see above)"
	echo "package: mmbatchd DEB+RPM in $((SECONDS - t1)) s" >&2
	write_manifest "$PKG_OUT/mmbatchd.paths" "${tools[@]}"
	all+=("${tools[@]}")
fi

echo "package: ${#all[@]} packages in $((SECONDS - t0)) s:" >&2
printf '%s\n' "${all[@]}"
