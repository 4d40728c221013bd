# shellcheck shell=bash
# The negative controls of the canary's mmbatchctl tests (sourced by
# ctl_test.sh and bls_test.sh, after tests/lib/assert.sh and after the test
# defined `suite`, which runs its checks against $CTL):
#   negative NAME SED [SUITE_ARGS...]
#       A test that cannot fail is a defect: `suite SUITE_ARGS` runs again
#       against a copy of mmbatchctl edited by SED and must fail at least
#       one check; the broken run's checks are not the test's own (its
#       counts are put back), one pass or fail line says how it went. A SED
#       that changes nothing fails (mmbatchctl's code moved under it).
negative() {
	local name=$1 expr=$2 broken=$T/broken-mmbatchctl caught saved_failures saved_passes saved_what
	shift 2
	echo "== negative control: $name"
	sed "$expr" "$TOP/src/mmbatchctl/mmbatchctl" > "$broken"
	chmod +x "$broken"
	if cmp -s "$TOP/src/mmbatchctl/mmbatchctl" "$broken"; then
		fail "negative control ($name): the sed did not break mmbatchctl (its code changed?)"
		return 0
	fi
	saved_failures=$test_failures saved_passes=$test_passes saved_what=$test_failed_what
	CTL=$broken suite "$@" > "$T/negative.log" 2>&1 || true
	caught=$((test_failures - saved_failures))
	test_failures=$saved_failures test_passes=$saved_passes test_failed_what=$saved_what
	if [ "$caught" -gt 0 ]; then
		pass "negative control ($name): fails $caught check(s), e.g. $(grep -m1 '^ *FAIL: ' "$T/negative.log" | sed 's/^ *FAIL: //')"
	else
		fail "negative control ($name): the broken mmbatchctl passed every check"
	fi
}
