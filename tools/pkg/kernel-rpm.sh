#!/bin/bash
# Stage 5c: the kernel RPMs from a staged build (tools/pkg/stage-kernel.sh)
# with rpmbuild and the static specs/mmbatch-kernel.spec; computed values go
# in with --define. Produces mmbatch-kernel-<base>-<flavor>[-devel|-debuginfo]-
# <kversion>-<krel>.x86_64.rpm, reproducibly (SOURCE_DATE_EPOCH build time
# and clamped mtimes, fixed build host). Prints each .rpm path.
# Reads: PKG_OUT.
set -eu

usage() { echo "usage: kernel-rpm.sh STAGE_DIR" >&2; exit 2; }
[ $# -eq 1 ] && [ -r "$1/build.env" ] || usage
stage=$(realpath "$1")

. "$(dirname "$0")/lib.sh"
# shellcheck disable=SC1091 # build.env is in the stage (written by stage-kernel.sh), not in the tree
. "$stage/build.env"
export SOURCE_DATE_EPOCH

arch=$(pkg_rpm_arch)
flavor=$(pkg_flavor_name)
krel=${KERNELRELEASE#"$KVERSION"-}
krel=${krel//-/.}
with_dbg=0
[ -d "$stage/dbg" ] && with_dbg=1
mkdir -p "$PKG_OUT"
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT

pkg_rpmbuild "$TOP/specs/mmbatch-kernel.spec" "$top" \
	"Linux $KVERSION, mmbatch series $SERIES_VERSION, $flavor flavor (release $KERNELRELEASE)." \
	--define "stage $stage" \
	--define "kver $KERNELRELEASE" \
	--define "kversion $KVERSION" \
	--define "krel $krel" \
	--define "flavor $flavor" \
	--define "base $BASE" \
	--define "series $SERIES_VERSION" \
	--define "with_dbg $with_dbg"

# The base is in the name: installonly packages of one name upgrade to the
# highest version, and 6.12 must never replace a 6.1 fleet's kernel.
name=mmbatch-kernel-$BASE-$flavor
for sub in "" -devel -debuginfo; do
	rpm=$name$sub-$KVERSION-$krel.$arch.rpm
	if [ -f "$top/RPMS/$arch/$rpm" ]; then
		mv -f "$top/RPMS/$arch/$rpm" "$PKG_OUT/$rpm"
		echo "$PKG_OUT/$rpm"
	elif [ "$sub" = -debuginfo ] && [ $with_dbg = 0 ]; then
		rm -f "$PKG_OUT/$rpm"
	else
		pkg_die "package: rpmbuild did not produce $rpm"
	fi
done
