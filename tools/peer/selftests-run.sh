#!/bin/bash
# The kernel's own mm selftests on booted guests, one boot per build, and
# the report: per test and kernel, its verdict and seconds.
#   selftests-run.sh [--set quick|full] [--only NAME,NAME] [--repeat N] [--report FILE] BUILD_IDENTITY...
#   selftests-run.sh --boot-verdict RC GUEST_OUT   judge one recorded boot
#       (boot_verdict below), nothing booted: the no-boot tests.
# --only: just these tests of the set (names from the list's first column).
# --repeat N: each test N times in a row in the one boot (1 to 99, default
#   1), every run a row of its own: how often a test fails, on each kernel.
# Each build boots (qemu TCG, 4 vCPUs, 2 NUMA nodes, 512 MiB of swap on a
# disk; tools/vmtest/vmtest) the busybox initramfs with its selftests
# (tools/peer/selftests-initramfs.sh) and runs tests/vm/selftests_full.sh on
# tools/peer/selftests-<base>.list.
# A kernel splat in the guest's log or console fails that build's run
# (tests/vm/host.sh guest_splats --blank-offline: memory offlining's page
# dumps are no splats), and so does a boot that did not run its list to the
# end (a timeout, a failed harness check: boot_verdict). A test
# that fails is not by itself a failure of the run: per base, every test (and
# TAP case) that passed on the build's vanilla twin (VARIANT vanilla, the same
# base) must pass on each patched build; a regression fails the run, a test
# that fails on both is listed as such, with the kernel's own words. The
# failed tests of a patched build without a twin among the builds given fail
# the run (nothing to judge them by); a vanilla build's are the base's own,
# listed.
# Report (default $OUT/peer/selftests-report.txt): lines
#   KERNELRELEASE TEST VERDICT SECONDS WHY
#   KERNELRELEASE TEST/CASE VERDICT - WHY
# Logs: $OUT/peer/selftests/run/<release>[-recheckN].{out,console}.
# A test that regresses runs again on the twin (SELFTESTS_RECHECK, below),
# after the tests that ran before it (recheck_tests).
# Reads: OUT, VM_CPUS (4), VM_MEM (MiB, 2048; debug builds 3072),
# SELFTESTS_DEBUG_SCALE (5: debug builds' per-test bounds, times the list's),
# SELFTESTS_RECHECK (2: reruns on the twin of a regressed test, 0 to 9),
# MMBENCH_STATIC (default $OUT/bin/static/mmbench), VMTEST_*.
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
export OUT=$out
usage() { echo "usage: selftests-run.sh [--set quick|full] [--only NAME,NAME] [--repeat N] [--report FILE] BUILD_IDENTITY... | --boot-verdict RC GUEST_OUT | --recheck-tests LIST SET TESTS [ONLY]" >&2; exit 2; }
# boot_verdict RC OUT: one build's boot (vmtest's exit status RC, the guest's
# output OUT), as one line: "ok" (selftests_full.sh ran its list, every test
# passed or skipped), "tests-failed N" (it ran its list to its summary, and
# its only failed checks are the verdicts of N tests or cases: for the
# comparison to judge), or why the boot itself failed. selftests_lib.sh
# prints a test's or case's failed verdict as "FAIL     selftest ...";
# every other FAIL line is the harness's own (wrong kernel, CPUs offline,
# a bad list).
boot_verdict() {
	local rc=$1 out=$2 n other
	[ -f "$out" ] || { echo "no guest output $out"; return; }
	n=$(grep -c '^FAIL     selftest ' "$out" || true)
	other=$(grep '^FAIL ' "$out" | grep -v -m1 '^FAIL     selftest ' || true)
	if ! grep -q '^summary: ' "$out"; then
		echo "the guest never reached its summary (vmtest exit $rc)"
	elif [ -n "$other" ]; then
		echo "a harness check failed: ${other#FAIL     }"
	elif [ "$rc" = 0 ] && [ "$n" = 0 ]; then
		echo ok
	elif [ "$rc" = 1 ] && [ "$n" -gt 0 ]; then
		echo "tests-failed $n"
	else
		echo "vmtest exit $rc with $n failed test verdicts"
	fi
}
# set_tests LIST SET [ONLY]: the tests the list gives SET ("full": all of
# them), narrowed to ONLY (a comma list) when given, one "NAME TIMEOUT_S" a
# line in the list's order. The guest reads the same columns again, in sh
# (tests/vm/selftests_full.sh).
set_tests() {
	awk -v set="$2" -v only=",${3:-}," '!/^[ \t]*(#|$)/ && (set == "full" || index("+" $2 "+", "+" set "+")) &&
		(only == ",," || index(only, "," $1 ",")) { print $1, $3 }' "$1"
}
# recheck_tests LIST SET TESTS [ONLY]: what a recheck boot of the twin runs
# for the regressed TESTS (a comma list): set_tests' tests, from the first
# up to the last of TESTS, as a comma list. A test can fail only after
# others ran: 6.12's uffd-unit-tests fails its "events on anon" case in the
# first run after uffd-stress, on the vanilla build as on ours, and passes
# when it runs first in a boot. So the twin reruns it in the order the
# patched build ran it.
recheck_tests() {
	set_tests "$1" "$2" "${4:-}" | awk -v want=",$3," '
		{ n++; name[n] = $1; if (index(want, "," $1 ",")) last = n }
		END { for (i = 1; i <= last; i++) printf "%s%s", name[i], (i < last ? "," : "\n") }'
}
if [ "${1:-}" = --boot-verdict ]; then
	[ $# -eq 3 ] || usage
	boot_verdict "$2" "$3"
	exit 0
fi
# --recheck-tests LIST SET TESTS [ONLY]: recheck_tests alone (no boot; the
# tests).
if [ "${1:-}" = --recheck-tests ]; then
	[ $# -eq 4 ] || [ $# -eq 5 ] || usage
	recheck_tests "$2" "$3" "$4" "${5:-}"
	exit 0
fi
set_name=full report=$out/peer/selftests-report.txt only='' repeat=1
while [ $# -gt 0 ]; do
	case $1 in
	--set) [ $# -ge 2 ] || usage; set_name=$2; shift 2 ;;
	--report) [ $# -ge 2 ] || usage; report=$2; shift 2 ;;
	--only) [ $# -ge 2 ] || usage; only=$2; shift 2 ;;
	--repeat) [ $# -ge 2 ] || usage; repeat=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) echo "ERROR: selftests-run: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
case $set_name in quick|full) ;; *) echo "ERROR: selftests-run: --set '$set_name': expected quick or full" >&2; exit 2 ;; esac
[[ "$repeat" =~ ^[1-9][0-9]?$ ]] || { echo "ERROR: selftests-run: --repeat '$repeat': expected an integer from 1 to 99" >&2; exit 2; }
rep_note=
[ "$repeat" = 1 ] || rep_note=", $repeat runs of each test"
debug_scale=${SELFTESTS_DEBUG_SCALE:-5}
recheck=${SELFTESTS_RECHECK:-2}
[[ "$recheck" =~ ^[0-9]$ ]] ||
	{ echo "ERROR: selftests-run: SELFTESTS_RECHECK='$recheck': expected an integer from 0 to 9" >&2; exit 2; }
[[ "$debug_scale" =~ ^[1-9][0-9]?$ ]] ||
	{ echo "ERROR: selftests-run: SELFTESTS_DEBUG_SCALE='$debug_scale': expected an integer from 1 to 99" >&2; exit 2; }
[ $# -ge 1 ] || usage
TEST_NAME=selftests
# shellcheck source=tests/lib/assert.sh
. "$top/tests/lib/assert.sh"
# shellcheck source=tests/vm/host.sh
. "$top/tests/vm/host.sh"
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
mmbench=${MMBENCH_STATIC:-$out/bin/static/mmbench}
[ -x "$mmbench" ] || { echo "ERROR: selftests-run: no static mmbench at $mmbench (make mmbench)" >&2; exit 1; }
logs=$out/peer/selftests/run
mkdir -p "$logs" "$(dirname "$report")"
rows=$logs/rows.txt
: > "$rows"
# Patched builds whose boot reported failed tests, for the comparison.
failed_builds=()

# boot_list BUILD ONLY TAG: one boot of BUILD running the list's tests of the
# set (ONLY: a comma list narrowing them, or empty), its verdicts appended to
# the rows; TAG names the boot's logs (<release><TAG>.out, .console).
# Sets boot_failed_tests (1 when the boot's only failures were test verdicts).
boot_list() {
	local build=$1 only=$2 tag=$3 base krel image variant debug list cpus mem scale limit initramfs rc t0 bv n stem
	bid_check "$build"
	base=$(bid_get "$build" BASE) krel=$(bid_get "$build" KERNELRELEASE) image=$(bid_get "$build" IMAGE)
	variant=$(bid_get "$build" VARIANT) debug=$(bid_get "$build" DEBUG)
	list=$here/selftests-$base.list
	cpus=${VM_CPUS:-4} mem=${VM_MEM:-2048}
	[ "$debug" = 0 ] || mem=${VM_MEM:-3072}
	# A debug kernel (KASAN, lockdep) runs everything about 5x slower: each
	# test's bound is the list's times SELFTESTS_DEBUG_SCALE there (the list
	# is sized for the normal guests). The bound of the boot: the tests'
	# bounds, plus boot and margin.
	scale=1
	[ "$debug" = 0 ] || scale=$debug_scale
	limit=$(set_tests "$list" "$set_name" "$only" | awk -v k="$scale" -v r="$repeat" '{ s += $2 } END { print s * k * r + 300 }')
	initramfs=$logs/$krel.initramfs.cpio.gz stem=$logs/$krel$tag boot_failed_tests=0
	echo "== $krel$tag ($variant, debug $debug): selftests-$base.list set $set_name${only:+ (only $only)}$rep_note, $cpus vCPUs, $mem MiB, each test's bound x$scale, boot bound $limit s"
	"$here/selftests-initramfs.sh" -o "$initramfs" "$build" "$mmbench:/usr/bin/mmbench"
	# The guest's swap (selftests_full.sh ST_SWAP): a fresh 512 MiB image
	# each boot, its disk /dev/vda.
	rm -f "$logs/swap.img"
	truncate -s 512M "$logs/swap.img"
	mkswap -q "$logs/swap.img" > /dev/null
	rc=0 t0=$SECONDS
	"$top/tools/vmtest/vmtest" boot "$image" --initramfs "$initramfs" --cpus "$cpus" --nodes 2 --mem "$mem" \
		--scratch-disk "$logs/swap.img" \
		--timeout "$limit" --append log_buf_len=8M --log "$stem.console" \
		--add "$top/tests/vm/lib.sh" --add "$top/tests/vm/selftests_lib.sh" \
		--add "$top/tests/vm/kselftest_verdict.awk" --add "$list" --add "$top/tests/vm/selftests_full.sh" \
		-- "GUEST_CPUS=$cpus ST_SWAP=/dev/vda ST_SCALE=$scale ST_LIST=${list##*/} ST_SET=$set_name ST_REPEAT=$repeat${only:+ ST_ONLY=$only}" sh selftests_full.sh "$krel" > "$stem.out" || rc=$?
	echo "$krel$tag: the boot took $((SECONDS - t0)) s (vmtest exit $rc)"
	grep -E '^(selftest|selftest-case|FAIL|NOT-LIVE) ' "$stem.out" | sed 's/^/    /' || true
	bv=$(boot_verdict "$rc" "$stem.out")
	case $bv in
	ok) pass "$krel$tag: the boot ran the list; no test failed" ;;
	tests-failed\ *)
		pass "$krel$tag: the boot ran the list; ${bv#tests-failed } test or case verdicts failed (judged below)"
		boot_failed_tests=1 ;;
	*) fail "$krel$tag: vmtest boot (selftests_full.sh; console $stem.console): $bv" ;;
	esac
	# mem-on-off-test.sh offlines memory: its failed attempts' page dumps
	# are blanked for the scan, and counted (tests/vm/host.sh
	# guest_splats --blank-offline prints how many).
	guest_splats "$stem.out" "$stem.console" --blank-offline
	# this boot's rows only: a recheck's kernel has rows of its first boot
	n=$(wc -l < "$rows")
	awk -v k="$krel" -v b="$base" -v var="$variant" -v dbg="$debug" '
		$1 == "selftest" { why = ""; for (i = 5; i <= NF; i++) why = why (i > 5 ? " " : "") $i; print b, var, dbg, k, $2, $3, $4, why }
		$1 == "selftest-case" { why = ""; for (i = 5; i <= NF; i++) why = why (i > 5 ? " " : "") $i; print b, var, dbg, k, $2 "/" $3, $4, "-", why }' \
		"$stem.out" >> "$rows"
	n=$(($(wc -l < "$rows") - n))
	if [ "$n" -ge 1 ]; then pass "$krel$tag: $n selftest verdicts read"; else fail "$krel$tag: no selftest verdict in $stem.out"; fi
}

declare -A build_of_release
for build in "$@"; do
	boot_list "$build" "$only" ""
	krel=$(bid_get "$build" KERNELRELEASE)
	build_of_release[$krel]=$build
	[ "$boot_failed_tests" = 0 ] || [ "$(bid_get "$build" VARIANT)" = vanilla ] || failed_builds+=("$krel")
done

# Rechecks. Some tests fail now and then on any kernel (6.1's
# migration.shared_anon, 6.12's khugepaged collapse_compound_extreme and
# uffd-unit-tests have failed on both the patched and the vanilla build, in
# different runs). So a test that a
# patched build fails and its vanilla twin passes runs SELFTESTS_RECHECK more
# times on the twin (a boot each, running the list up to those tests in its
# order, recheck_tests; within --only when given): the comparison counts
# every run, and a twin that fails the test in any of them makes it "flaky
# on both", not a regression; a twin that passes every run confirms it.
if [ "$recheck" -gt 0 ] && ! "$here/selftests-compare.sh" "$rows" > "$logs/compare-first.txt"; then
	declare -A retest=()
	while read -r twin test; do
		retest[$twin]=${retest[$twin]:+${retest[$twin]},}$test
	done < <(sed -n 's/^regression: [^ ]* \([^/: ]*\)[^ ]*: .*, passes on \([^ ]*\)\( (.*)\)\{0,1\}$/\2 \1/p' "$logs/compare-first.txt" | sort -u)
	for twin in "${!retest[@]}"; do
		[ -n "${build_of_release[$twin]:-}" ] || continue
		tb=${build_of_release[$twin]}
		# In the order the patched build ran them (recheck_tests), within
		# what this run ran (--only).
		seq=$(recheck_tests "$here/selftests-$(bid_get "$tb" BASE).list" "$set_name" "${retest[$twin]}" "$only")
		for ((i = 1; i <= recheck; i++)); do
			boot_list "$tb" "$seq" "-recheck$i"
		done
	done
fi

# The report, and patched >= vanilla per base (debug builds against the
# vanilla build of the same debug setting).
{
	echo "# mm selftests, $(date -u +%Y-%m-%dT%H:%MZ), set $set_name (tools/peer/selftests-run.sh)"
	echo "# KERNELRELEASE TEST[/CASE] VERDICT SECONDS WHY"
	awk '{ why = ""; for (i = 8; i <= NF; i++) why = why " " $i; print $4, $5, $6, $7 why }' "$rows"
} > "$report"
crc=0
"$here/selftests-compare.sh" "$rows" > "$logs/compare.txt" || crc=$?
tee -a "$report" < "$logs/compare.txt" | sed 's/^/  /'
case $crc in
0) pass "every patched build passes every test and case its vanilla twin passes" ;;
3) skip "patched >= vanilla" "a build has no vanilla twin among the builds given (listed above)" ;;
*) fail "a patched build fails a test or case its vanilla twin passes (listed above; exit $crc)" ;;
esac
for k in ${failed_builds[@]+"${failed_builds[@]}"}; do
	if grep -q "^no vanilla twin: $k " "$logs/compare.txt"; then
		fail "$k: tests or cases failed, and no vanilla twin among the builds given judges them (listed in the report)"
	fi
done
echo "selftests: report $report"
test_summary
