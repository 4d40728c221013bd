# Assertions and the EXIT trap shared by the scenario tests of every area
# (sourced by each area's tests/<area>/lib.sh, not run).
#
# pass MSG / fail MSG              record a result; any fail makes the test
#                                  exit non-zero at the end
# expect_eq WHAT EXPECTED ACTUAL   assertion that prints both values
# On exit: runs $cleanup_hook (if set), removes $T (if set), and reports the
# number of failed assertions.

TEST_NAME=$(basename "$0" .sh)
test_failures=0

cleanup() {
	local rc=$?
	if [ -n "${cleanup_hook:-}" ]; then $cleanup_hook || true; fi
	[ -n "${T:-}" ] && rm -rf "$T"
	if [ $test_failures -ne 0 ]; then
		echo "$TEST_NAME: $test_failures assertion(s) failed" >&2; exit 1
	fi
	exit $rc
}
trap cleanup EXIT

pass() { echo "  ok: $*"; }
fail() { echo "  FAIL: $*" >&2; test_failures=$((test_failures + 1)); }

expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1 = '$3'"; else fail "$1: expected '$2', got '$3'"; fi
}
