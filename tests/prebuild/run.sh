#!/bin/bash
# `make check-prebuild`: what make check's host lane builds ahead for the
# guest lane (Makefile CHECK_STAGES), checked to be there and usable, so the
# canary and vm stages find it built instead of building it on the critical
# path. The make target builds; this script checks its results:
#  bad        the canary's BAD kernel (canary-bad-kernel): its identity file
#             (CANARY_BAD) is one, with the fault patch (EXTRA_PATCHES_HASH
#             set, KERNELRELEASE naming it) and its image package on disk;
#  selftests  each quick guest's mm selftests (guest-selftests-<base>, one
#             per build of VM_BUILDS): the staging directory of
#             tools/peer/selftests-build.sh is complete (.done) and holds
#             built tests.
# Reads: TOP, OUT, CANARY_BAD, VM_BUILDS, ONLY (tests/lib/assert.sh).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
TEST_NAME=${TEST_STAGE:-prebuild}
r=0 r_out=
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
# shellcheck source=tools/kbuild/identity.sh
. "$TOP/tools/kbuild/identity.sh"

if selected bad; then
	bad=${CANARY_BAD:-}
	capture r bid_check "$bad"
	expect_ok "BAD kernel: an identity file (CANARY_BAD='$bad')" "$r" "$r_out"
	if [ "$r" = 0 ]; then
		xhash=$(bid_get "$bad" EXTRA_PATCHES_HASH 2>&1 || true)
		expect_match "BAD kernel: built with an extra patch (EXTRA_PATCHES_HASH)" '^x[0-9a-f]+$' "$xhash"
		expect_match "BAD kernel: its release names it" "-$(re_quote "$xhash")-guest$" "$(bid_get "$bad" KERNELRELEASE 2>&1 || true)"
		expect_file "BAD kernel: its image package" "$(bid_get "$bad" IMAGE_DEB 2>&1 || true)"
	fi
fi
if selected selftests; then
	for build in ${VM_BUILDS:-}; do
		capture r "$TOP/tools/peer/selftests-build.sh" "$build"
		expect_ok "selftests of $build: selftests-build.sh (cached: nothing built again)" "$r" "$r_out"
		stage=$(tail -n 1 <<< "$r_out")
		expect_exists "selftests of $build: the staging directory complete" "$stage/.done"
		expect_eq "selftests of $build: built tests listed" yes "$([ -s "$stage/built.txt" ] && echo yes || echo no)"
	done
	[ -n "${VM_BUILDS:-}" ] || fail "VM_BUILDS is empty: no quick guest's selftests to check"
fi
test_summary
