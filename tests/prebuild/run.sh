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
#             built tests;
#  rootfs     the roots the guests' lane boots, asked for again the way
#             check-vm (tests/vm/run.sh --rootfs: VM_FULL_PLAN's full paths)
#             and check-canary (tests/canary/run.sh --rootfs: CANARY_SUITES)
#             ask: each found in tools/vmtest/mkrootfs.sh's cache, nothing
#             built again, its image there.
# Reads: TOP, OUT, CANARY_BAD, CANARY_GOOD, CANARY_NEW, VM_BUILDS,
# VM_FULL_PLAN, VM_KERNEL, CANARY_SUITES, ONLY (tests/lib/assert.sh).
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
if selected rootfs; then
	# roots WHAT IMAGE CMD...: CMD prints "TEST: DIR" per root; each DIR
	# must hold IMAGE, made before (mkrootfs says "built" only when it
	# builds one).
	roots() {
		local what=$1 image=$2 line n=0
		shift 2
		capture r env ONLY= "$@"
		expect_ok "$what: the roots, asked for again" "$r" "$r_out"
		expect_no_match "$what: each made before, nothing built again" '^mkrootfs: built ' "$r_out"
		while read -r line; do
			case $line in *": /"*) ;; *) continue ;; esac
			n=$((n + 1))
			expect_file "$what: ${line%%:*}: its image in mkrootfs's cache" "$(readlink -f "${line#*: }")/$image"
		done <<< "$r_out"
		expect_eq "$what: roots listed" yes "$([ "$n" -gt 0 ] && echo yes || echo "no: none in '$r_out'")"
	}
	roots "check-vm's full paths (VM_FULL_PLAN='${VM_FULL_PLAN:-}')" rootfs.img \
		env TEST_STAGE=vm "$TOP/tests/vm/run.sh" --rootfs
	roots "check-canary's disks (CANARY_SUITES='${CANARY_SUITES-trixie}')" disk.img \
		env TEST_STAGE=canary "$TOP/tests/canary/run.sh" --rootfs
fi
test_summary
