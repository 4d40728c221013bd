#!/bin/bash
# Runs the mmbench test suite: every cmocka binary in MMB_UNIT_DIR, then every
# tests/mmbench/*_test.sh scenario. Prints one line per test and a summary;
# exit status is non-zero when any failed. Every test runs even after a
# failure.
# Reads: MMBENCH (binary under test), MMB_UNIT_DIR (unit test binaries),
#        MMBATCHD (daemon binary, optional: used when it has --show-smoke),
#        MMB_TESTS (space-separated subset of scenario names to run), SAN.
set -eu

usage() { echo "usage: MMBENCH=BIN MMB_UNIT_DIR=DIR check.sh" >&2; exit 2; }
[ -n "${MMBENCH:-}" ] && [ -x "$MMBENCH" ] || usage
[ -n "${MMB_UNIT_DIR:-}" ] || usage
top=$(cd "$(dirname "$0")/../.." && pwd)
export MMBENCH MMBATCHD="${MMBATCHD:-}" TOP="$top" SAN="${SAN:-}"

passed=0 failed=0 failed_names=()
run_one() {
	local name=$1; shift
	local t0=$(date +%s)
	if "$@"; then
		passed=$((passed + 1)); echo "check-bench: PASS $name ($(( $(date +%s) - t0 )) s)"
	else
		failed=$((failed + 1)); failed_names+=("$name"); echo "check-bench: FAIL $name"
	fi
}

for t in "$MMB_UNIT_DIR"/test_*; do
	[ -x "$t" ] || continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in "$top"/tests/mmbench/*_test.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ -n "${MMB_TESTS:-}" ] && ! [[ " $MMB_TESTS " == *" $name "* ]]; then continue; fi
	run_one "$name" bash "$t"
done
echo "check-bench: $passed passed, $failed failed${failed_names:+ (${failed_names[*]})}"
[ $failed -eq 0 ]
