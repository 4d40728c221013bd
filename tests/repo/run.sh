#!/bin/bash
# `make check-repo`: the signed repositories end to end, with throwaway keys
# (nothing here needs or touches a real key), from the packages of the 6.12
# guest build named by BUILD (its identity file, packaged before: make
# guest-packages-6.12). Each test is a timed step:
#   key      key_test.sh: REPO_KEY refusals, REPO_KEY=generate made once
#   rpm      rpm_test.sh: rpm -K (and its failures), repomd.xml.asc,
#            idempotent createrepo_c --update
#   apt      apt_test.sh: chroot: tampered repos rejected by apt-get update,
#            install of the meta-package + mmbatchd, the next series version
#            built and reached by apt-get full-upgrade
#   initramfs  initramfs_test.sh: the host's initramfs tool is kept: in the
#            chroot with Debian's archive, apt installs the kernel beside
#            initramfs-tools (nothing removed, its initrd made by
#            initramfs-tools) and fails those checks on an image depending
#            on dracut alone; a host with neither tool gets dracut
#   dnf      dnf_test.sh: an approximate RPM host (the Debian chroot, its
#            rpm database empty but for a stand-in): tampered repomd.xml and
#            RPMs refused by dnf, dnf install of the kernel and mmbatchd
#            (kernel-install + dracut: BLS entry, initramfs), dnf upgrade to
#            the next series (both stay), dnf remove leaves nothing, a
#            failing kernel-install plugin reported
#   expiry   expiry_test.sh: REPO_VALID_DAYS refusals, Date/Valid-Until in
#            the signed Release, re-signed on every run; chroot: apt-get
#            update refuses an expired, correctly signed Release (a tiny
#            .deb of its own: runs even without BUILD's packages)
#   key_url  key_url_test.sh: where dnf fetches the key (gpgkey=): an
#            http:// REPO_KEY_URL, or an http:// REPO_URL without one,
#            refused before anything is written; https:// and file:// keys
#            with an http:// repository accepted (a tiny .deb of its own,
#            no chroot: runs even without BUILD's packages)
# The subset selector ONLY (tests/lib/assert.sh) picks tests by these names
# (NAME or NAME_test), e.g. ONLY=repo/apt. Every selected test runs, also
# after a failure; run_summary (tests/lib/assert.sh) counts one result per
# test and adds up their checks.
# Reads: BUILD (default out/build/6.12-guest/mmbatch-build.env), TOP, OUT,
# ONLY, TEST_STAGE (and what the tests read).
set -eu

usage() { echo "usage: BUILD=out/build/6.12-guest/mmbatch-build.env run.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2034 # read by tests/lib/assert.sh (sourced through lib.sh)
TEST_NAME=${TEST_STAGE:-repo}
. "$here/lib.sh"
if [ -z "${BUILD:-}" ]; then
	BUILD=$OUT/build/6.12-guest/mmbatch-build.env
	echo "repo: BUILD not set: the 6.12 guest build $BUILD" >&2
fi
export BUILD

if pkgs=$(rt_packages "$BUILD" IMAGE_DEB HEADERS_DEB META_DEB KERNEL_RPM DEVEL_RPM MMBATCHD_DEB MMBATCHD_RPM); then
	mapfile -t pkgs <<<"$pkgs"
	mapfile -t rpms < <(printf '%s\n' "${pkgs[@]}" | grep '\.rpm$')
	mapfile -t daemon < <(rt_packages "$BUILD" MMBATCHD_DEB MMBATCHD_RPM)
	run_test key "$here/key_test.sh" "${daemon[@]}"
	run_test rpm "$here/rpm_test.sh" "${rpms[@]}"
	run_test apt "$here/apt_test.sh"
	run_test initramfs "$here/initramfs_test.sh"
	run_test dnf "$here/dnf_test.sh"
elif selected key || selected rpm || selected apt || selected initramfs || selected dnf ||
	selected key_test || selected rpm_test || selected apt_test || selected initramfs_test || selected dnf_test; then
	fail "the packages of $BUILD (make guest-packages-6.12): key, rpm, apt, initramfs and dnf not run"
fi
run_test expiry "$here/expiry_test.sh"
run_test key_url "$here/key_url_test.sh"
run_summary repo
