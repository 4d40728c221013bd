#!/bin/bash
# tests/lib/assert.sh itself: every assertion passes on a true case and fails
# (counted, exit status 1 at the end) on a false one, skips are not passes,
# and the ONLY selector picks what it says. A library whose assertions cannot
# fail would make every test built on it pass whatever it checks.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch

# one EXPECT SNIPPET: run SNIPPET in a fresh bash that sourced assert.sh;
# EXPECT is pass (exit 0, one "ok:") or fail (exit 1, one "FAIL:").
one() {
	local want=$1 snippet=$2 rc=0 out
	out=$(cd "$T" && TEST_NAME=probe bash -c ". '$TOP/tests/lib/assert.sh'; $snippet" 2>&1) || rc=$?
	case $want in
	pass) if [ $rc -eq 0 ] && grep -q '^  ok: ' <<<"$out" && ! grep -q 'FAIL' <<<"$out"; then pass "passes: $snippet"
	      else fail "expected a pass from: $snippet (exit $rc): $out"; fi ;;
	fail) if [ $rc -eq 1 ] && grep -q '^  FAIL: ' <<<"$out" && ! grep -q '^  ok: ' <<<"$out"; then pass "fails: $snippet"
	      else fail "expected a failure from: $snippet (exit $rc): $out"; fi ;;
	esac
}

printf 'alpha\nbeta gamma\n' >"$T/f"
one pass 'expect_eq x a a';                 one fail 'expect_eq x a b'
one pass 'expect_eq x "$(printf "1\n2")" "$(printf "1\n2")"'
one fail 'expect_eq x "$(printf "1\n2")" "$(printf "1\n3")"'
one pass 'expect_match x "^b.*a$" @f';      one fail 'expect_match x "^gamma" @f'
one pass 'expect_match x "^(124|2)$" 2';    one fail 'expect_match x "^y" x'
one pass 'expect_no_match x "^gamma" @f';   one fail 'expect_no_match x "^y" y'
one pass 'expect_line x alpha @f';          one fail 'expect_line x alph @f'
one pass 'expect_no_line x alph @f';        one fail 'expect_no_line x alpha @f'
one pass 'expect_contains x "a gam" @f';    one fail 'expect_contains x delta @f'
one pass 'expect_lacks x delta @f';         one fail 'expect_lacks x zz zzz'
one fail 'expect_match x alpha @missing-file'
one pass 'expect_lines x 2 @f';             one fail 'expect_lines x 3 @f'
# Under set -e -o pipefail (the VM tests' mode) a failed assertion is
# counted and the test goes on to its next check: it must return 0.
for snippet in 'expect_eq x "$(printf "1\n2")" "$(printf "1\n3")"' 'expect_eq x a b' \
	'expect_match x "^y" x' 'expect_contains x zz y' 'expect_lines x 3 @f' 'expect_status x 0 1'; do
	out=$(cd "$T" && TEST_NAME=probe bash -c "set -e -o pipefail; . '$TOP/tests/lib/assert.sh'; $snippet; echo went-on" 2>&1) || :
	if grep -qx went-on <<<"$out"; then pass "set -e -o pipefail: goes on after a failed $snippet"
	else fail "set -e -o pipefail: a failed '$snippet' ended the test: $out"; fi
done
one pass 'expect_status x 2 2';             one fail 'expect_status x 0 1'
one pass 'expect_status x nonzero 3';       one fail 'expect_status x nonzero 0'
one pass 'expect_ok x 0 out';               one fail 'expect_ok x 1 out'
one pass 'expect_fails x "^E" 2 "Err"';     one fail 'expect_fails x "^E" 0 "Err"'
one fail 'expect_fails x "^E" 2 "other"'
one pass 'expect_file x f';                 one fail 'expect_file x nothing'
one pass 'expect_exists x f';               one fail 'expect_exists x nothing'
one pass 'expect_absent x nothing';         one fail 'expect_absent x f'
one pass 'capture r sh -c "echo hi; exit 3"; expect_eq rc 3 "$r"; [ "$r_out" = hi ]'
one pass 'mkdir -p d; echo 1 >d/a; s1=$(tree_sum d); echo 2 >d/a; s2=$(tree_sum d); [ "$s1" != "$s2" ] && pass sums'
one pass 'step s true >/dev/null; pass stepped';  one fail 'step s false || fail "step failed"'

# A skip is counted apart and never as a pass.
capture rc bash -c ". '$TOP/tests/lib/assert.sh'; TEST_NAME=probe; skip thing 'no tool'"
expect_eq "a lone skip exits" 0 "$rc"
# shellcheck disable=SC2154 # rc_out is set by capture (printf -v)
expect_match "the skip is reported" '^  SKIP: thing: no tool$' "$rc_out"
expect_match "the summary counts it as skipped, not passed" '^probe: 0 passed, 0 failed, 1 skipped$' "$rc_out"

# The failed assertions are named again after the counts (a log's tail says
# which failed), by their first line, in order.
capture rc bash -c ". '$TOP/tests/lib/assert.sh'; TEST_NAME=probe; pass fine; fail 'the first thing'; fail \$'two\\nlines'"
expect_eq "failures: exit" 1 "$rc"
expect_eq "failures: the counts, then each failed one by name" "probe: 1 passed, 2 failed, 0 skipped
probe: failed: the first thing
probe: failed: two
probe: 2 assertion(s) failed" "$(grep '^probe: ' <<< "$rc_out")"

# The selector: STAGE, STAGE/TEST, globs; nothing selected outside ONLY.
# shellcheck disable=SC2034 # read by selected (tests/lib/assert.sh)
sel() { (TEST_STAGE=$1 ONLY=$2; selected "$3" && echo yes || echo no); }
expect_eq "no ONLY selects all" yes "$(unset ONLY; TEST_STAGE=daemon selected x && echo yes || echo no)"
expect_eq "ONLY=daemon selects its tests" yes "$(sel daemon daemon security_test)"
expect_eq "ONLY=daemon/sec* picks security_test" yes "$(sel daemon 'daemon/sec*' security_test)"
expect_eq "ONLY=daemon/sec* leaves cli_test" no "$(sel daemon 'daemon/sec*' cli_test)"
expect_eq "ONLY names another stage" no "$(sel daemon-san daemon security_test)"
expect_eq "ONLY=daemon-san/cli_test in daemon-san" yes "$(sel daemon-san 'daemon-san/cli_test vm' cli_test)"

# run_test / run_summary: a runner counts one result per test, adds the
# tests' checks, does not run what ONLY leaves out, and fails when ONLY
# selects nothing or a --summary test printed no summary.
cat >"$T/good_test.sh" <<'T1'
. "$TOP/tests/lib/assert.sh"; TEST_NAME=good_test; pass a; pass b; skip c why
T1
cat >"$T/bad_test.sh" <<'T2'
. "$TOP/tests/lib/assert.sh"; TEST_NAME=bad_test; pass a; fail b
T2
runner() {
	(cd "$T" && export TOP && TEST_STAGE=st ONLY=$1 bash -c ". '$TOP/tests/lib/assert.sh'; TEST_NAME=st
		run_test good_test bash good_test.sh; run_test bad bash bad_test.sh
		run_test --summary quiet true; run_summary st" 2>&1)
}
capture rc runner ''
expect_eq "runner with a failing test and a silent --summary test: exit" 1 "$rc"
expect_match "checks of the tests add up" '^st: checks: 3 passed, 1 failed, 1 skipped$' "$rc_out"
expect_match "one result per test" '^st: 1 passed, 2 failed, 0 not selected \(failed: bad quiet\)$' "$rc_out"
expect_match "a --summary test without one fails" 'FAIL: quiet: no summary line' "$rc_out"
capture rc runner 'st/good'
expect_eq "ONLY=st/good: exit" 0 "$rc"
expect_match "ONLY=st/good runs good_test only" '^st: 1 passed, 0 failed, 2 not selected$' "$rc_out"
expect_no_match "a test left out does not run" '^bad_test: ' "$rc_out"
capture rc runner 'st/nothing'
expect_eq "ONLY selecting nothing: exit" 1 "$rc"
expect_match "ONLY selecting nothing: says so" "ERROR: st: ONLY='st/nothing' selects no test of this stage" "$rc_out"
