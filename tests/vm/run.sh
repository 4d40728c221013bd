#!/bin/bash
# `make check-vm`: the end-to-end VM checks of the guest builds named by their
# identity files (tools/kbuild/identity.sh), VM_BUILDS="FILE..." (or BUILD=FILE
# for one build), and the debug builds VM_DEBUG_BUILDS="FILE..." (DEBUG=1:
# lockdep, KASAN, ...). The tests, in order, each selected by ONLY (vm/NAME):
#   resolve_test   the resolution step fails, naming file and key, for an
#                  identity without IMAGE_DEB or MMBATCHD_DEB (no VM boot)
#   splat_test     the kernel-splat scan every guest check ends with
#                  (tests/vm/host.sh guest_splats) on recorded lockdep, KASAN,
#                  WARN, oops and clean logs (no VM boot)
#   selftest_verdict_test  the verdicts of the kernel's mm selftests
#                  (tests/vm/kselftest_verdict.awk, host and busybox awk)
#                  and patched >= vanilla (tools/peer/selftests-compare.sh)
#                  on recorded outputs (no VM boot)
#   stress_ng_parse_test  the stress-ng verdicts of tools/peer/stress-ng.sh
#                  (tests/vm/stress_ng_guest.sh) on recorded output (no boot)
#   integrity_verdict_test  the verdicts of tools/peer/integrity-run.sh (the
#                  long integrity run and its negative control) on a
#                  recorded guest output and its broken variants (no boot)
#   vmtest_test    the harness itself (exit status, output, timeout, bad
#                  option), booting the first build's IMAGE
#   quick-<base>   per build: tests/vm/guest.sh quick (busybox initramfs,
#                  4 vCPUs; with the quick set of the build's own mm
#                  selftests, tools/peer/selftests-<base>.list)
#   full-<base>    per build: tests/vm/guest.sh full (dpkg-installed kernel
#                  and mmbatchd, dracut, systemd) on a Debian 12 root
#   full-<base>-trixie  the same on a Debian 13 root (systemd 257, dracut
#                  106; VM_FULL_SUITES, default "bookworm trixie").
#                  VM_FULL_PLAN="BASE:SUITE ..." boots only those pairs
#                  (make check: 6.1:bookworm 6.12:trixie, each base and
#                  each suite once); the rest of the matrix is listed as
#                  skipped. Empty (make check-vm-all): all of it
#   debug-<base>   per debug build: tests/vm/guest.sh debug (the quick path
#                  on the debug kernel, a longer integrity run)
# Every guest check fails on any kernel splat (lockdep, KASAN, BUG, WARN...)
# in its kernel log or console (tests/vm/host.sh).
# e.g. ONLY='vm/quick-6.12 vm/full-6.1', ONLY='vm/debug-*'. First, every selected path of every
# build is resolved (guest.sh --resolve): a key a path needs and an identity
# file lacks fails the stage there, before anything boots. Debian's stock
# kernels boot only with VM_KERNEL=stock (see guest.sh).
# Each test prints its checks and its summary ("NAME: N passed, N failed, N
# skipped"; a guest check that its kernel cannot run is a skip, listed again
# at the end, never a pass); the stage ends with "vm: N passed, N failed, N
# not selected" over tests and the sum of their checks. Logs: $OUT/vm/check/.
#   run.sh             run the selected tests
#   run.sh --resolve   only the resolution step: print what each path would boot
#   run.sh --rootfs    only the roots of the selected full paths (guest.sh
#                      --rootfs, into mkrootfs's cache), each printed as
#                      "TEST: DIR"; boots nothing (make check's prebuild)
# Reads: VM_BUILDS, BUILD, VM_DEBUG_BUILDS, VM_FULL_SUITES, VM_FULL_PLAN, ONLY, TEST_STAGE, OUT, and what
# guest.sh reads.
set -eu -o pipefail

usage() { echo "usage: VM_BUILDS='FILE...' run.sh [--resolve|--rootfs]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
export OUT=$out TEST_STAGE=${TEST_STAGE:-vm}
resolve_only=0 rootfs_only=0
case $#:${1:-} in
0:) ;;
1:--resolve) resolve_only=1 ;;
1:--rootfs) rootfs_only=1 ;;
*) usage ;;
esac
TEST_NAME=vm
# shellcheck source=tests/lib/assert.sh
. "$top/tests/lib/assert.sh"
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
die() { echo "ERROR: $*" >&2; exit 1; }

builds=${VM_BUILDS:-${BUILD:-}}
[ -n "$builds${VM_DEBUG_BUILDS:-}" ] || die "check-vm: no builds: VM_BUILDS='out/build/<name>/mmbatch-build.env ...' (or BUILD=FILE) names the guest builds to boot"

# The resolution step: test names from each build's BASE, then every
# selected path resolved by guest.sh; the first missing key ends the stage.
# The Debian releases the full path installs on: 12 (bookworm) is
# full-<base>, any other is full-<base>-<suite> (the same packages, built on
# Debian 12, installed on that suite's root as a fleet would).
full_suites=${VM_FULL_SUITES-bookworm trixie}
for suite in $full_suites; do
	case $suite in ''|*[!a-z]*) die "check-vm: VM_FULL_SUITES: '$suite' is not a Debian suite name" ;; esac
done
# VM_FULL_PLAN="BASE:SUITE ...": only these full paths boot (make check's
# subset); the others of the matrix are listed as skipped, never passed.
# Empty: the whole matrix, every build on every suite.
plan=${VM_FULL_PLAN:-}
for p in $plan; do
	[[ $p =~ ^[0-9]+\.[0-9]+:[a-z]+$ ]] || die "check-vm: VM_FULL_PLAN: '$p' is not BASE:SUITE (e.g. 6.12:trixie)"
	case " $full_suites " in *" ${p#*:} "*) ;; *) die "check-vm: VM_FULL_PLAN: '$p': suite ${p#*:} is not in VM_FULL_SUITES ($full_suites)" ;; esac
done
tests=() first_build='' outside_plan=()
declare -A build_of suite_of
for b in $builds; do
	base=$(bid_get "$b" BASE)
	[ -z "${build_of[quick-$base]:-}" ] || die "check-vm: VM_BUILDS names two builds of base $base (${build_of[quick-$base]}, $b)"
	build_of[quick-$base]=$b
	tests+=("quick-$base")
	for suite in $full_suites; do
		t=full-$base
		[ "$suite" = bookworm ] || t+=-$suite
		if [ -n "$plan" ] && [[ " $plan " != *" $base:$suite "* ]]; then
			selected "$t" && outside_plan+=("$t")
			continue
		fi
		build_of[$t]=$b suite_of[$t]=$suite
		tests+=("$t")
	done
	[ -n "$first_build" ] || first_build=$b
done
for p in $plan; do
	[ -n "${build_of[quick-${p%%:*}]:-}" ] || die "check-vm: VM_FULL_PLAN: '$p': no build of base ${p%%:*} in VM_BUILDS"
done
for b in ${VM_DEBUG_BUILDS:-}; do
	base=$(bid_get "$b" BASE)
	[ -z "${build_of[debug-$base]:-}" ] || die "check-vm: VM_DEBUG_BUILDS names two builds of base $base (${build_of[debug-$base]}, $b)"
	build_of[debug-$base]=$b
	tests+=("debug-$base")
	[ -n "$first_build" ] || first_build=$b
done
for t in "${tests[@]}"; do
	selected "$t" || continue
	if [ $resolve_only = 1 ]; then
		"$here/guest.sh" --resolve "${t%%-*}" "${build_of[$t]}" | sed "s/^/$t: /"
	else
		"$here/guest.sh" --resolve "${t%%-*}" "${build_of[$t]}" > /dev/null
	fi
done
[ $resolve_only = 0 ] || exit 0
if [ $rootfs_only = 1 ]; then
	for t in "${tests[@]}"; do
		[ "${t%%-*}" = full ] && selected "$t" || continue
		dir=$(MKCHROOT_SUITE=${suite_of[$t]} "$here/guest.sh" --rootfs full "${build_of[$t]}") || exit 1
		echo "$t: $dir"
	done
	exit 0
fi

logs=$out/vm/check
mkdir -p "$logs"
rm -f "$logs"/*.log
# run_test (tests/lib/assert.sh) keeps each test's output in $logs/NAME.log;
# a test that prints no summary line fails (--summary).
TEST_LOGS=$logs

t_all=$SECONDS
run_test --summary resolve_test env VM_BUILDS="$builds" VM_FULL_PLAN= bash "$here/resolve_test.sh"
run_test --summary splat_test bash "$here/splat_test.sh"
run_test --summary selftest_verdict_test bash "$here/selftest_verdict_test.sh"
run_test --summary stress_ng_parse_test bash "$here/stress_ng_parse_test.sh"
run_test --summary integrity_verdict_test bash "$here/integrity_verdict_test.sh"
run_test --summary vmtest_test bash "$here/vmtest_test.sh" "$(bid_get "$first_build" IMAGE)"
for t in "${tests[@]}"; do
	run_test --summary "$t" env MKCHROOT_SUITE="${suite_of[$t]:-bookworm}" "$here/guest.sh" "${t%%-*}" "${build_of[$t]}"
done

echo "vm: checks skipped (not live on these guests, or not in this run's plan; never counted as passed):"
{
	for log in "$logs"/*.log; do
		sed -n "s|^  SKIP: |  [$(basename "$log" .log)] |p" "$log"
	done
	for t in ${outside_plan[@]+"${outside_plan[@]}"}; do
		echo "  [$t] not booted: outside VM_FULL_PLAN ($plan); make check-vm-all boots the whole matrix"
	done
} | grep . || echo "  (none)"
run_checks_s=$((run_checks_s + ${#outside_plan[@]}))
echo "vm: total $((SECONDS - t_all)) s"
run_summary vm
