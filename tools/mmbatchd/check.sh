#!/bin/bash
# Runs the mmbatchd test suite: every cmocka binary in MBD_UNIT_DIR, then every
# tests/mmbatchd/*_test.sh scenario (each gets MMBATCHD). Prints one line per
# test and a summary; exit status is non-zero when any failed. Every test runs
# even after a failure.
# Reads: MMBATCHD (daemon binary), MBD_UNIT_DIR (unit test binaries),
#        MBD_TESTS (space-separated subset of scenario names to run).
set -eu

usage() { echo "usage: MMBATCHD=BIN MBD_UNIT_DIR=DIR check.sh" >&2; exit 2; }
[ -n "${MMBATCHD:-}" ] && [ -x "$MMBATCHD" ] || usage
[ -n "${MBD_UNIT_DIR:-}" ] || usage
top=$(cd "$(dirname "$0")/../.." && pwd)
export MMBATCHD TOP="$top"

passed=0 failed=0 failed_names=()
run_one() {
	local name=$1; shift
	local t0=$(date +%s)
	if "$@"; then
		passed=$((passed + 1)); echo "check-daemon: PASS $name ($(( $(date +%s) - t0 )) s)"
	else
		failed=$((failed + 1)); failed_names+=("$name"); echo "check-daemon: FAIL $name"
	fi
}

for t in "$MBD_UNIT_DIR"/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$top"/tests/mmbatchd/*_test.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "${MBD_TESTS:-}" ] && ! [[ " $MBD_TESTS " == *" $name "* ]]; then continue; fi
	run_one "$name" bash "$t"
done
echo "check-daemon: $passed passed, $failed failed${failed_names:+ (${failed_names[*]})}"
[ $failed -eq 0 ]
