#!/bin/bash
# `make check-chroots`: the cached chroot tarballs of tools/pkg/mkchroot.sh
# that later stages unpack, made first in make check's side lane beside the
# kernel builds (Makefile CHECK_STAGES), so that on a new machine the repo
# stage, first on the guest lane's critical path, finds them made instead of
# running mmdebstrap there. Each is made when missing or stale (mkchroot.sh
# tarball) and checked:
#  bookworm  Debian 12: apt_test, initramfs_test, the packages' chroot test,
#            the rollout's hosts;
#  trixie    Debian 13: check-units' systemd 257, the packages'
#            chroot-trixie test;
#  rpmhost   Debian 12 with Debian's rpm and dnf (tests/lib/rpmhost.sh's
#            RPMHOST_MKCHROOT_EXTRA): dnf_test and the rollout's RPM host.
# For each: its os-release names the suite, the packages every chroot test
# relies on are installed (dpkg's status file), and the RPM host's has rpm
# and dnf. ONLY=chroots/NAME selects.
# Reads: TOP, OUT, MKCHROOT_CACHE, MKCHROOT_MAX_AGE_DAYS (mkchroot.sh), ONLY.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
TEST_NAME=${TEST_STAGE:-chroots}
r=0 r_out=
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
# shellcheck source=tests/lib/rpmhost.sh
. "$TOP/tests/lib/rpmhost.sh"
mkchroot=$TOP/tools/pkg/mkchroot.sh

# check_tarball NAME SUITE VERSION_ID EXTRA PACKAGE...: the tarball of SUITE (with
# the MKCHROOT_EXTRA packages EXTRA), made or found, and checked: VERSION_ID
# in its os-release, each PACKAGE installed.
check_tarball() {
	local name=$1 suite=$2 version=$3 extra=$4 tarball t0=$SECONDS pkg status
	shift 4
	selected "$name" || return 0
	capture r env MKCHROOT_SUITE="$suite" MKCHROOT_EXTRA="$extra" "$mkchroot" tarball
	expect_ok "$name: mkchroot.sh tarball (MKCHROOT_SUITE=$suite MKCHROOT_EXTRA='$extra', $((SECONDS - t0)) s)" "$r" "$r_out"
	[ "$r" = 0 ] || return 0
	tarball=$(tail -n 1 <<<"$r_out")
	expect_file "$name: the tarball" "$tarball"
	expect_line "$name: os-release VERSION_ID" "VERSION_ID=\"$version\"" \
		"$(tar --zstd -xOf "$tarball" ./etc/os-release ./usr/lib/os-release 2>/dev/null || true)"
	status=$(tar --zstd -xOf "$tarball" ./var/lib/dpkg/status 2>/dev/null || true)
	for pkg in "$@"; do
		expect_eq "$name: $pkg installed" "install ok installed" \
			"$(awk -v p="$pkg" '/^Package: / { cur = $2 } /^Status: / && cur == p { sub(/^Status: /, ""); print; exit }' <<<"$status")"
	done
}

base_pkgs="systemd-sysv dracut kmod linux-base libyaml-0-2 libjansson4"
# shellcheck disable=SC2086 # the lists are words
check_tarball bookworm bookworm 12 "" $base_pkgs
# shellcheck disable=SC2086 # the lists are words
check_tarball trixie trixie 13 "" $base_pkgs
# shellcheck disable=SC2086 # the lists are words
check_tarball rpmhost bookworm 12 "$RPMHOST_MKCHROOT_EXTRA" $base_pkgs rpm dnf
test_summary
