#!/bin/bash
# The verdicts of the kernel selftests in the guests, no VM boot (tests/vm/
# run.sh runs it as `selftest_verdict_test`):
#   - tests/vm/kselftest_verdict.awk, under the host's awk and under busybox
#     awk (the guest's), on outputs in kselftest's formats
#     (tests/vm/fixtures/selftests/: the harness's TAP with a failed case,
#     with every case skipped, kselftest.h's TAP with a skip and an XFAIL,
#     plain output with exit 0, 4 (KSFT_SKIP) and 1, khugepaged's coloured
#     checks with an exit status that counts failures: the failcount flag)
#     and on timeouts of a bounded and an unbounded test: a run whose cases
#     all skipped is a skip, never a pass;
#   - tools/peer/selftests-compare.sh: patched >= vanilla, a regression, a
#     test failing on both, a build without a vanilla twin, the twin's
#     reruns (a failed rerun: flaky on both; every rerun passed: a
#     regression);
#   - selftests-run.sh --recheck-tests: a recheck reruns the list up to
#     the regressed test, in order, within --only;
#   - selftests-run.sh --boot-verdict: a boot whose only failures are test
#     verdicts goes to the comparison; one that failed a harness check (or
#     its list), or never reached its summary, fails.
# Reads: OUT (scratch space).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
fx=$TOP/tests/vm/fixtures/selftests
awkf=$TOP/tests/vm/kselftest_verdict.awk

# verdict AWK NAME RC TIMEDOUT BOUNDED FIXTURE [FAILCOUNT]: the "test ..." line.
verdict() {
	local f=$6
	[ "${f#/}" != "$f" ] || f=$fx/$f
	$1 -v name="$2" -v rc="$3" -v timedout="$4" -v bounded="$5" -v limit=20 -v failcount="${7:-0}" -f "$awkf" "$f" > "$T/v.out" 2>&1
	tail -n 1 "$T/v.out"
}
# khugepaged's own output (6.12, a guest without swap): its four swap
# checks failed, and its exit status is that count, 4.
# The same run with every check passed.
kh=khugepaged-swapfail.out
sed 's/\x1b\[31mFail/\x1b[32mOK/' "$fx/$kh" > "$T/kh-pass.out"
for a in awk "busybox awk"; do
	expect_eq "$a: harness TAP, one case failed, exit 1" "test fail exit status 1, first failed case migration.shared_anon" \
		"$(verdict "$a" migration 1 0 0 harness-mixed.out)"
	expect_line "$a: the failed case is its own line" "case migration migration.shared_anon fail -" "@$T/v.out"
	expect_line "$a: a passed case" "case migration migration.private_anon pass -" "@$T/v.out"
	expect_eq "$a: every case skipped, exit 0 (the harness says PASSED)" \
		"test skip all 3 cases skipped: Not enough threads or NUMA nodes available" "$(verdict "$a" migration 0 0 0 harness-allskip.out)"
	expect_line "$a: a skipped case says why" "case migration migration.shared_anon skip Not enough threads or NUMA nodes available" "@$T/v.out"
	expect_eq "$a: ksft TAP with a skip and an XFAIL, exit 0" "test pass 3 of 4 cases passed, 1 skipped" \
		"$(verdict "$a" madv_populate 0 0 0 ksft-partskip.out)"
	expect_line "$a: an XFAIL case passes, saying so" "case madv_populate range_populated_with_THP pass expected failure (XFAIL): THP disabled" "@$T/v.out"
	expect_line "$a: a case without a description is numbered" "case madv_populate case1 skip soft-dirty not supported" "@$T/v.out"
	expect_eq "$a: plain output, exit 0" "test pass exit status 0" "$(verdict "$a" compaction_test 0 0 0 plain-pass.out)"
	expect_eq "$a: plain output, exit 4 (KSFT_SKIP): the last line is why" \
		"test skip KSM not available: /sys/kernel/mm/ksm/run missing" "$(verdict "$a" ksm_tests 4 0 0 plain-skip.out)"
	expect_eq "$a: plain output, exit 1: the last line is why" \
		"test fail exit status 1: userfaultfd: copy error: Resource temporarily unavailable" "$(verdict "$a" userfaultfd 1 0 0 plain-fail.out)"
	expect_eq "$a: no output, exit 139" "test fail exit status 139: -" "$(verdict "$a" x 139 0 0 empty.out)"
	expect_eq "$a: a bounded test killed at its bound passes" \
		"test pass ran its 20 s bound without a failure (killed at the bound: the test loops until stopped)" "$(verdict "$a" transhuge-stress 143 1 1 empty.out)"
	expect_eq "$a: a bounded test with a failed case at its bound fails" "test fail timed out after 20 s" \
		"$(verdict "$a" transhuge-stress 143 1 1 harness-mixed.out)"
	expect_eq "$a: an unbounded test killed at its timeout fails" "test fail timed out after 20 s" "$(verdict "$a" khugepaged 143 1 0 plain-pass.out)"
	# failcount: the exit status counts failed checks (khugepaged).
	expect_eq "$a: failcount, exit 4 is four failed checks, not KSFT_SKIP" \
		"test fail exit status 4 (its count of failed checks, 4 seen), first failed case collapse_swapin_single_pte(khugepaged:anon): Swapout one page... Fail" \
		"$(verdict "$a" khugepaged 4 0 0 "$kh" 1)"
	expect_line "$a: failcount, a Run test block with a red check is a failed case" \
		"case khugepaged collapse_max_ptes_swap(madvise:anon) fail Swapout 65 of 512 pages... Fail" "@$T/v.out"
	expect_line "$a: failcount, a block whose checks are green passes" "case khugepaged collapse_full(khugepaged:anon) pass -" "@$T/v.out"
	expect_eq "$a: failcount, 25 blocks read as cases" 25 "$(grep -c '^case khugepaged ' "$T/v.out")"
	expect_eq "$a: failcount, every check green and exit 0" "test pass 25 of 25 cases passed" \
		"$(verdict "$a" khugepaged 0 0 0 "$T/kh-pass.out" 1)"
	expect_eq "$a: failcount, exit 4 with no failed check is still kselftest's skip (khugepaged without THP)" \
		"test skip KSM not available: /sys/kernel/mm/ksm/run missing" "$(verdict "$a" khugepaged 4 0 0 plain-skip.out 1)"
	expect_eq "$a: failcount, exit 1 with no failed check fails" \
		"test fail exit status 1 (its count of failed checks): userfaultfd: copy error: Resource temporarily unavailable" "$(verdict "$a" khugepaged 1 0 0 plain-fail.out 1)"
	expect_eq "$a: failcount, a test that exits inside a block failed there (6.1's khugepaged, recorded)" \
		"test fail exit status 1 (its count of failed checks), first failed case collapse_compound_extreme(madvise:anon): the test exited in this case: Failed to allocate huge ..." \
		"$(verdict "$a" khugepaged 1 0 0 khugepaged-6.1-thpfail.out 1)"
	expect_line "$a: failcount, ... that case fails, not a skip" \
		"case khugepaged collapse_compound_extreme(madvise:anon) fail the test exited in this case: Failed to allocate huge page" "@$T/v.out"
	expect_line "$a: failcount, ... the blocks before it keep their verdicts" \
		"case khugepaged collapse_compound_extreme(khugepaged:anon) pass -" "@$T/v.out"
	expect_eq "$a: without the flag, exit 4 is kselftest's skip (why khugepaged needs it); colour codes are cleaned" \
		"test skip Restore THP and khugepaged settings... OK" "$(verdict "$a" khugepaged 4 0 0 "$kh")"
	$a -v name=mrelease_test -v rc=0 -v timedout=0 -v bounded=0 -v limit=20 -v casemask='[0-9]+MB' -f "$awkf" "$fx/mrelease-2mb.out" > "$T/v.out" 2>&1
	expect_line "$a: casemask, the run's figure in a case's name is N" \
		"case mrelease_test Success_reaping_a_child_with_N_of_memory_allocations pass -" "@$T/v.out"
done

# st_run (tests/vm/selftests_lib.sh) on the host, with a stand-in test: the
# list's flags mmknob (set while the test runs, restored after; a missing
# knob fails the test unrun) and failcount (given to the verdict).
mm=$T/mm dir=$T/bin
mkdir -p "$mm/ksm" "$dir"
echo 1 > "$mm/ksm/smart_scan"
printf '#!/bin/sh\necho "knob during the test: $(cat "$1")"\nexit 0\n' > "$dir/knobtest"
printf '#!/bin/sh\ncat "$1"\nexit 4\n' > "$dir/khtest"
chmod +x "$dir/knobtest" "$dir/khtest"
# st ARGS...: st_run's lines in $T/st.out, its seconds as S.
st() {
	(cd "$TOP/tests/vm" && ST_MM_SYSFS=$mm sh -c '. ./lib.sh; . ./selftests_lib.sh; st_run "$@"' st "$@") 2>&1 |
		sed -E 's/^(selftest [^ ]+ [a-z]+) [0-9]+ /\1 S /' > "$T/st.out"
}
st knobtest 20 mmknob=ksm/smart_scan:0 "$dir" ./knobtest "$mm/ksm/smart_scan"
expect_line "st_run: mmknob sets the knob for the test" "    | knob during the test: 0" "@$T/st.out"
expect_eq "st_run: ... and puts the old value back after" 1 "$(cat "$mm/ksm/smart_scan")"
expect_line "st_run: ... saying so" "selftest-knob knobtest: $mm/ksm/smart_scan = 0 (was 1)" "@$T/st.out"
expect_line "st_run: the test passes" "selftest knobtest pass S exit status 0" "@$T/st.out"
st knobtest 20 mmknob=ksm/no_such_knob:0 "$dir" ./knobtest "$mm/ksm/smart_scan"
expect_line "st_run: a knob that is not there fails the test" "FAIL     selftest knobtest: cannot set $mm/ksm/no_such_knob to 0" "@$T/st.out"
expect_no_line "st_run: ... which does not run" "    | knob during the test: 1" "@$T/st.out"
st khtest 20 failcount "$dir" ./khtest "$fx/$kh"
expect_line "st_run: failcount reaches the verdict (exit 4 is four failures)" \
	"selftest khtest fail S exit status 4 (its count of failed checks, 4 seen), first failed case collapse_swapin_single_pte(khugepaged:anon): Swapout one page... Fail" "@$T/st.out"
st khtest 20 - "$dir" ./khtest "$fx/$kh"
expect_line "st_run: without it, exit 4 is a skip" "selftest khtest skip S Restore THP and khugepaged settings... OK" "@$T/st.out"
# The watchdog: a test past its limit is killed and fails as timed out,
# and its leftover sleep neither holds st_run's output (this pipe ends when
# the test does, not at the limit) nor stays behind.
printf '#!/bin/sh\necho started\nexec sleep 53\n' > "$dir/slowtest"
printf '#!/bin/sh\necho quick\nexit 0\n' > "$dir/quicktest"
chmod +x "$dir/slowtest" "$dir/quicktest"
t0=$SECONDS
st slowtest 2 - "$dir" ./slowtest
expect_line "st_run: a test past its limit is killed and fails" "selftest slowtest fail S timed out after 2 s" "@$T/st.out"
expect_eq "st_run: ... its sleep killed with it" "" "$(pgrep -f '^sleep 53$' || true)"
t0=$SECONDS
st quicktest 37 - "$dir" ./quicktest
expect_line "st_run: a quick test passes" "selftest quicktest pass S exit status 0" "@$T/st.out"
expect_eq "st_run: ... and its output ends with it, not at its 37 s limit" yes "$([ $((SECONDS - t0)) -lt 30 ] && echo yes || echo "no: $((SECONDS - t0)) s")"
expect_eq "st_run: ... no watchdog sleep left behind" "" "$(pgrep -f '^sleep 37$' || true)"
# casemask: 6.12's mrelease_test names its case by a size the run chose
# (2MB here, recorded on the vanilla 6.12 guest; 1MB on its twin that run).
printf '#!/bin/sh\ncat "$1"\nexit 0\n' > "$dir/mrtest"
chmod +x "$dir/mrtest"
st mrtest 20 'casemask=[0-9]+MB' "$dir" ./mrtest "$fx/mrelease-2mb.out"
expect_line "st_run: casemask puts N for the run's figure in the case's name" \
	"selftest-case mrtest Success_reaping_a_child_with_N_of_memory_allocations pass -" "@$T/st.out"
sed 's/2MB/1MB/' "$fx/mrelease-2mb.out" > "$T/mrelease-1mb.out"
st mrtest 20 'casemask=[0-9]+MB' "$dir" ./mrtest "$T/mrelease-1mb.out"
expect_line "st_run: ... the same name for 1MB" \
	"selftest-case mrtest Success_reaping_a_child_with_N_of_memory_allocations pass -" "@$T/st.out"
st mrtest 20 - "$dir" ./mrtest "$fx/mrelease-2mb.out"
expect_line "st_run: without it, the figure is in the name (the twins' names differ)" \
	"selftest-case mrtest Success_reaping_a_child_with_2MB_of_memory_allocations pass -" "@$T/st.out"

# --repeat takes 1 to 99 runs of each test, and a bad count boots nothing.
# shellcheck disable=SC2154 # r and r_out are set by capture (printf -v)
for bad in 0 100 x; do
	capture r "$TOP/tools/peer/selftests-run.sh" --repeat "$bad" "$T/no-such-build.env"
	expect_status "selftests-run --repeat $bad is refused" 2 "$r"
	expect_line "  ... saying why" "ERROR: selftests-run: --repeat '$bad': expected an integer from 1 to 99" "$r_out"
done

# What a recheck boot of the twin runs: the list up to the regressed tests,
# in its order (an order-dependent failure reruns in its order).
printf '%s\n' '# a comment' 'a quick 10 - ./a' 'b full 10 - ./b' '' 'c quick+debug 10 - ./c' 'd full 10 - ./d' > "$T/r.list"
rt() { "$TOP/tools/peer/selftests-run.sh" --recheck-tests "$T/r.list" "$@"; }
expect_eq "recheck tests: the full set up to the last regressed test" "a,b,c" "$(rt full c)"
expect_eq "recheck tests: two regressed tests, up to the later one" "a,b,c,d" "$(rt full d,b)"
expect_eq "recheck tests: the first test alone" "a" "$(rt full a)"
expect_eq "recheck tests: the quick set skips full-only tests" "a,c" "$(rt quick c)"
expect_eq "recheck tests: within --only (a run of b,c,d reruns b,c)" "b,c" "$(rt full c b,c,d)"
expect_eq "recheck tests: --only in another order keeps the list's" "b,c" "$(rt full c c,b)"
expect_eq "recheck tests: the quick set within --only" "c" "$(rt quick c b,c)"

# The comparison.
rows() { printf '%s\n' "$@" > "$T/rows"; }
cmp_run() { capture crc "$TOP/tools/peer/selftests-compare.sh" "$T/rows"; }
rows "6.1 vanilla 0 v migration pass 200 ok" "6.1 vanilla 0 v migration/migration.shared_anon fail - x" \
	"6.1 mmbatch 0 p migration pass 190 ok" "6.1 mmbatch 0 p migration/migration.shared_anon fail - x" \
	"6.1 mmbatch 0 p extra pass 1 ok"
cmp_run
# shellcheck disable=SC2154 # crc is set by capture in cmp_run (printf -v)
expect_status "compare: patched passes all vanilla passes" 0 "$crc"
# shellcheck disable=SC2154 # crc_out is set by capture in cmp_run (printf -v)
expect_line "compare: a case failing on both is listed" "fails on both: p and v: migration/migration.shared_anon" "$crc_out"
rows "6.1 vanilla 0 v migration pass 200 ok" "6.1 vanilla 0 v compaction_test pass 20 ok" \
	"6.1 mmbatch 0 p migration pass 190 ok" "6.1 mmbatch 0 p compaction_test skip 20 no hugepages"
cmp_run
expect_status "compare: a test vanilla passes is skipped on patched" 1 "$crc"
expect_line "compare: the regression names both kernels" "regression: p compaction_test: skip, passes on v" "$crc_out"
rows "6.1 vanilla 0 v migration pass 200 ok" "6.1 mmbatch 0 p compaction_test pass 20 ok"
cmp_run
expect_status "compare: a test vanilla passes is not run on patched" 1 "$crc"
expect_line "compare: not run" "regression: p migration: not run, passes on v" "$crc_out"
rows "6.12 mmbatch 0 p migration pass 20 ok" "6.1 vanilla 1 vd migration pass 20 ok" "6.1 mmbatch 0 p61 migration pass 20 ok"
cmp_run
expect_status "compare: builds without a vanilla twin (a debug vanilla is no twin of a normal build)" 3 "$crc"
expect_line "compare: names the build without a twin" "no vanilla twin: p61 (base and debug setting 6.1 0)" "$crc_out"
# Rechecks: the twin's reruns of a test the patched build failed.
rows "6.12 vanilla 0 v ksm_tests pass 20 ok" "6.12 mmbatch 0 p ksm_tests fail 20 x" \
	"6.12 vanilla 0 v ksm_tests fail 20 x" "6.12 vanilla 0 v ksm_tests pass 20 ok"
cmp_run
expect_status "compare: the twin failed a rerun: not a regression" 0 "$crc"
expect_line "compare: ... listed as flaky on both" "flaky on both: p ksm_tests: fail; v passed 2 of 3 runs" "$crc_out"
rows "6.12 vanilla 0 v ksm_tests pass 20 ok" "6.12 mmbatch 0 p ksm_tests fail 20 x" \
	"6.12 vanilla 0 v ksm_tests pass 20 ok" "6.12 vanilla 0 v ksm_tests pass 20 ok"
cmp_run
expect_status "compare: the twin passed every rerun: a regression" 1 "$crc"
expect_line "compare: ... with its runs" "regression: p ksm_tests: fail, passes on v (3 of 3 runs)" "$crc_out"
# A case the twin reported in its first run only (mrelease_test named its
# case 2MB there, 1MB in both reruns and on the patched build; seen in
# docs/results/2026-12-05-peer-stress-ng.md): the reruns that did not report
# it did not pass it.
mr=mrelease_test/Success_reaping_a_child_with_2MB_of_memory_allocations
mr1=mrelease_test/Success_reaping_a_child_with_1MB_of_memory_allocations
rows "6.12 vanilla 0 v mrelease_test pass 0 ok" "6.12 vanilla 0 v $mr pass 0 -" \
	"6.12 mmbatch 0 p mrelease_test pass 0 ok" "6.12 mmbatch 0 p $mr1 pass 0 -" \
	"6.12 vanilla 0 v mrelease_test pass 0 ok" "6.12 vanilla 0 v $mr1 pass 0 -" \
	"6.12 vanilla 0 v mrelease_test pass 0 ok" "6.12 vanilla 0 v $mr1 pass 0 -"
cmp_run
expect_status "compare: a case the twin's reruns did not report is no regression" 0 "$crc"
expect_line "compare: ... it passed 1 of the test's 3 runs on the twin" "flaky on both: p $mr: not run; v passed 1 of 3 runs" "$crc_out"
rows "6.12 vanilla 0 v mrelease_test pass 0 ok" "6.12 vanilla 0 v $mr pass 0 -" \
	"6.12 mmbatch 0 p mrelease_test pass 0 ok" "6.12 mmbatch 0 p $mr1 pass 0 -"
cmp_run
expect_status "compare: without reruns, a case the patched build did not report is a regression" 1 "$crc"

# The boot's verdict (selftests-run.sh --boot-verdict RC GUEST_OUT).
bv() { printf '%s\n' "${@:2}" > "$T/guest.out"; "$TOP/tools/peer/selftests-run.sh" --boot-verdict "$1" "$T/guest.out"; }
ok_lines=("ok       running kernel release: expected 'k', actual 'k'" "selftest migration pass 20 ok")
expect_eq "boot verdict: every test passed" ok "$(bv 0 "${ok_lines[@]}" "summary: 5 ok, 0 failed, 0 not live")"
expect_eq "boot verdict: two test verdicts failed, nothing else: for the comparison" "tests-failed 2" \
	"$(bv 1 "${ok_lines[@]}" "FAIL     selftest migration case migration.shared_anon: fail (-)" \
		"FAIL     selftest migration (exit status 1, 20 s): fail (exit status 1)" "summary: 4 ok, 2 failed, 0 not live")"
expect_eq "boot verdict: a harness check failed beside a test" \
	"a harness check failed: CPUs online: expected '0-3', actual '0-1'" \
	"$(bv 1 "${ok_lines[@]}" "FAIL     CPUs online: expected '0-3', actual '0-1'" \
		"FAIL     selftest migration (exit status 1, 20 s): fail (exit status 1)" "summary: 4 ok, 2 failed, 0 not live")"
expect_eq "boot verdict: an unknown flag in the list is the harness's failure" \
	"a harness check failed: list: test migration has an unknown flag 'hugepage=1'" \
	"$(bv 1 "FAIL     list: test migration has an unknown flag 'hugepage=1'" "summary: 0 ok, 1 failed, 0 not live")"
expect_eq "boot verdict: timed out before the summary" "the guest never reached its summary (vmtest exit 124)" \
	"$(bv 124 "${ok_lines[@]}" "FAIL     selftest migration (exit status 1, 20 s): fail (exit status 1)")"
expect_eq "boot verdict: exit 1 without a failed verdict" "vmtest exit 1 with 0 failed test verdicts" \
	"$(bv 1 "${ok_lines[@]}" "summary: 5 ok, 0 failed, 0 not live")"
test_summary
