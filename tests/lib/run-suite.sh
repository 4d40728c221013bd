#!/bin/bash
# Runs one area's test suite: every cmocka binary UNIT_DIR/test_*, then every
# SCENARIO_DIR/*_test.sh (with bash). Prints one line per test and the summary
# "LABEL: N passed, N failed"; exit status is non-zero when any failed. Every
# test runs even after a failure.
# Usage: run-suite.sh LABEL UNIT_DIR SCENARIO_DIR [ONLY]
#   ONLY: space-separated subset of scenario names to run (default: all).
set -eu

usage() { echo "usage: run-suite.sh LABEL UNIT_DIR SCENARIO_DIR [ONLY]" >&2; exit 2; }
[ $# -ge 3 ] && [ $# -le 4 ] || usage
label=$1 unit_dir=$2 scenario_dir=$3 only=${4:-}
[ -d "$scenario_dir" ] || { echo "ERROR: $label: no scenario directory '$scenario_dir'" >&2; exit 2; }

passed=0 failed=0 failed_names=()
run_one() {
	local name=$1 t0
	shift
	t0=$(date +%s)
	if "$@"; then
		passed=$((passed + 1)); echo "$label: PASS $name ($(( $(date +%s) - t0 )) s)"
	else
		failed=$((failed + 1)); failed_names+=("$name"); echo "$label: FAIL $name"
	fi
}

for t in "$unit_dir"/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$scenario_dir"/*_test.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "$only" ] && ! [[ " $only " == *" $name "* ]]; then continue; fi
	run_one "$name" bash "$t"
done
echo "$label: $passed passed, $failed failed${failed_names:+ (${failed_names[*]})}"
[ $failed -eq 0 ]
