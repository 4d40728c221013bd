#!/bin/bash
# Runs one area's test suite: every cmocka binary UNIT_DIR/test_* (as
# unit/test_NAME), then every SCENARIO_DIR/*_test.sh (with bash), each that
# the subset selector ONLY picks (tests/lib/assert.sh's `selected`; the stage
# is TEST_STAGE). Prints one line per test with its time and its count of
# passed checks ("ok:" lines of a scenario, "[ OK ]" lines of a cmocka
# binary), and the summary "LABEL: N passed, N failed, N not selected"; a test
# not selected is not counted as passed. Exit status is non-zero when any
# test failed, or when ONLY selects no test of this suite. Every test runs
# even after a failure.
# Usage: run-suite.sh LABEL UNIT_DIR SCENARIO_DIR   (UNIT_DIR '-': no units)
# Reads: ONLY, TEST_STAGE, TEST_TMPDIR (assert.sh's scratch base, default
# $OUT/test-tmp; also the tests' TMPDIR), and what the tests read.
set -eu

usage() { echo "usage: run-suite.sh LABEL UNIT_DIR|- SCENARIO_DIR" >&2; exit 2; }
[ $# -eq 3 ] || usage
label=$1 unit_dir=$2 scenario_dir=$3
[ -d "$scenario_dir" ] || { echo "ERROR: $label: no scenario directory '$scenario_dir'" >&2; exit 2; }
[ "$unit_dir" = - ] || [ -d "$unit_dir" ] || { echo "ERROR: $label: no unit test directory '$unit_dir'" >&2; exit 2; }
# shellcheck disable=SC2034 # read by assert.sh
TEST_NAME=$label
# shellcheck source=assert.sh
. "$(dirname "$0")/assert.sh"
scratch
# The tests' TMPDIR is the scratch base (root's, 0755): the cmocka tests make
# their fake trees there, and mmbatchd trusts no profile under /tmp.
TMPDIR=$(dirname "$T")
export TMPDIR

passed=0 failed=0 unselected=0 failed_names=()
# run_one NAME OK-REGEX CMD...: runs CMD, its output (stdout and stderr, in
# order) kept in $T and shown when it ends, with the lines matching OK-REGEX
# counted. (Not through a pipe: a daemon a test left behind would hold it.)
run_one() {
	local name=$1 ok_re=$2 t0=$SECONDS rc=0 n
	shift 2
	if ! selected "$name"; then
		unselected=$((unselected + 1))
		return 0
	fi
	"$@" > "$T/out" 2>&1 < /dev/null || rc=$?
	cat "$T/out"
	n=$(grep -cE -- "$ok_re" "$T/out" || true)
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1)); echo "$label: PASS $name ($((SECONDS - t0)) s, $n ok)"
	else
		failed=$((failed + 1)); failed_names+=("$name"); echo "$label: FAIL $name (exit $rc, $((SECONDS - t0)) s, $n ok)"
	fi
}

if [ "$unit_dir" != - ]; then
	for t in "$unit_dir"/test_*; do
		[ -x "$t" ] || continue
		run_one "unit/$(basename "$t")" '^\[ +OK \]' "$t"
	done
fi
for t in "$scenario_dir"/*_test.sh; do
	[ -e "$t" ] || continue
	run_one "$(basename "$t" .sh)" '^  ok: ' bash "$t"
done
echo "$label: $passed passed, $failed failed, $unselected not selected${failed_names[0]:+ (failed: ${failed_names[*]})}"
if [ $((passed + failed)) -eq 0 ]; then
	echo "ERROR: $label: ONLY='${ONLY:-}' selects no test of this suite" >&2
	exit 1
fi
[ $failed -eq 0 ]
