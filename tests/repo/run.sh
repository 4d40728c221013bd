#!/bin/bash
# `make check-repo`: the signed repositories end to end, with throwaway keys
# (nothing here needs or touches a real key):
#   1. make packages BASE=6.12 FLAVOR=guest (reuses the kernel build)
#   2. key_test.sh   REPO_KEY refusals, REPO_KEY=generate made once
#   3. rpm_test.sh   rpm -K (and its failures), repomd.xml.asc, idempotent
#                    createrepo_c --update
#   4. apt_test.sh   chroot: tampered repos rejected by apt-get update,
#                    install of the meta-package + mmbatchd, the next series
#                    version built and reached by apt-get full-upgrade
#   5. expiry_test.sh  REPO_VALID_DAYS refusals, Date/Valid-Until in the
#                    signed Release, re-signed on every run; chroot: apt-get
#                    update refuses an expired, correctly signed Release
#                    (a tiny .deb of its own: runs even if step 1 failed)
# Prints each step with its time; exit 1 when any failed.
# Reads: TOP, OUT, MAKE, PKG_OUT (and what the tests read).
set -eu

usage() { echo "usage: run.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
here=$(dirname "$0")
. "$here/lib.sh"
failed=()

# step NAME CMD...: run CMD, print its time, remember a failure.
step() {
	local name=$1 t0=$SECONDS rc=0
	shift
	echo "--> $name"
	"$@" || rc=$?
	if [ $rc -eq 0 ]; then
		echo "--> $name: ok in $((SECONDS - t0)) s"
	else
		echo "--> $name: FAILED (exit $rc) in $((SECONDS - t0)) s"
		failed+=("$name")
	fi
}

step "make packages BASE=6.12 FLAVOR=guest" \
	"${MAKE:-make}" --no-print-directory -C "$TOP" packages BASE=6.12 FLAVOR=guest
if [ ${#failed[@]} -eq 0 ]; then
	mapfile -t pkgs < <(rt_v1_packages)
	mapfile -t rpms < <(printf '%s\n' "${pkgs[@]}" | grep '\.rpm$')
	mapfile -t daemon < <(rt_manifest_paths "$PKG_OUT/mmbatchd.paths" MMBATCHD_DEB MMBATCHD_RPM)
	step "REPO_KEY handling" "$here/key_test.sh" "${daemon[@]}"
	step "yum repo: rpm -K, repomd.xml.asc, createrepo_c --update twice (${#rpms[@]} RPMs)" "$here/rpm_test.sh" "${rpms[@]}"
	step "apt repo in the Debian 12 chroot: signatures, install, upgrade to the next series" "$here/apt_test.sh"
fi
step "apt Release expiry (Valid-Until, REPO_VALID_DAYS) in the Debian 12 chroot" "$here/expiry_test.sh"
if [ ${#failed[@]} -gt 0 ]; then
	echo "check-repo: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-repo: all steps passed"
