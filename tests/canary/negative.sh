# shellcheck shell=bash
# The negative controls of the canary's mmbatchctl tests (sourced by
# ctl_test.sh and bls_test.sh, after tests/lib/assert.sh and after the test
# defined `suite`, which runs its checks against $CTL):
#   negative NAME SED [SUITE_ARGS...]
#       A test that cannot fail is a defect: `suite SUITE_ARGS` runs again
#       against a copy of mmbatchctl edited by SED and must fail at least
#       one check. It runs in a subshell that stops at its first failed
#       check (one is enough to catch the copy, and the rest of the suite
#       would only start more processes); the broken run's checks are not
#       the test's own, one pass or fail line says how it went. A SED that
#       changes nothing fails (mmbatchctl's code moved under it).
negative() {
	local name=$1 expr=$2 broken=$T/broken-mmbatchctl rc=0
	shift 2
	echo "== negative control: $name"
	sed "$expr" "$TOP/src/mmbatchctl/mmbatchctl" > "$broken"
	chmod +x "$broken"
	if cmp -s "$TOP/src/mmbatchctl/mmbatchctl" "$broken"; then
		fail "negative control ($name): the sed did not break mmbatchctl (its code changed?)"
		return 0
	fi
	(
		# shellcheck disable=SC2034 # read by the suite's checks through the test's ctl helper
		CTL=$broken
		# The subshell's fail says it and stops (exit 99). A subshell does
		# not run the test's EXIT trap (assert.sh's cleanup): bash resets
		# caught traps there.
		fail() { echo "  FAIL: $*"; exit 99; }
		suite "$@"
	) > "$T/negative.log" 2>&1 || rc=$?
	if [ "$rc" = 99 ]; then
		pass "negative control ($name): fails, first at: $(grep -m1 '^ *FAIL: ' "$T/negative.log" | sed 's/^ *FAIL: //')"
	else
		fail "negative control ($name): the broken mmbatchctl passed every check (exit $rc)"
	fi
}
