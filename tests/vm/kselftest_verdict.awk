# The verdict of one kernel selftest run, from its output and exit status,
# with kselftest's own conventions (tools/testing/selftests/kselftest.h:
# exit 0 pass, 4 KSFT_SKIP; TAP lines "ok N DESC", "not ok N DESC",
# "ok N DESC # SKIP WHY", "# XFAIL"). Portable awk: runs in the guest under
# busybox awk, and on the host (tests/vm/selftest_verdict_test.sh).
#   awk -v name=NAME -v rc=STATUS -v timedout=0|1 -v bounded=0|1 -v limit=S -f kselftest_verdict.awk OUTPUT
# Prints one "case NAME DESC VERDICT WHY" line per TAP case, then
# "test VERDICT WHY". A run whose cases all skipped is a skip, never a pass;
# a bounded test (it loops until killed) that reached its limit without a
# failure passes; any other timeout fails.
function clean(s) {
	gsub(/[\t\r]/, " ", s); sub(/^ +/, "", s); sub(/ +$/, "", s)
	if (length(s) > 160) s = substr(s, 1, 157) "..."
	return s == "" ? "-" : s
}
/^(not )?ok [0-9]+( |$)/ {
	line = $0
	bad = (line ~ /^not ok/)
	sub(/^(not )?ok [0-9]+ */, "", line)
	why = "-"; verdict = bad ? "fail" : "pass"
	if (match(line, /# *[Ss][Kk][Ii][Pp]/)) {
		why = clean(substr(line, RSTART + RLENGTH)); line = substr(line, 1, RSTART - 1)
		if (!bad) verdict = "skip"
	} else if (match(line, /# *XFAIL/)) {
		why = "expected failure (XFAIL): " clean(substr(line, RSTART + RLENGTH)); line = substr(line, 1, RSTART - 1)
		verdict = "pass"
	}
	desc = clean(line); gsub(/ /, "_", desc)
	if (desc == "-") desc = "case" ++anon
	ncases++; count[verdict]++
	if (verdict == "fail" && firstfail == "") firstfail = desc
	if (verdict == "skip" && firstskip == "") firstskip = why
	printf "case %s %s %s %s\n", name, desc, verdict, why
	next
}
NF { last = $0 }
END {
	if (timedout == 1) {
		if (bounded == 1 && count["fail"] == 0) {
			v = "pass"; w = "ran its " limit " s bound without a failure (killed at the bound: the test loops until stopped)"
		} else {
			v = "fail"; w = "timed out after " limit " s"
		}
	} else if (rc == 4) {
		v = "skip"; w = (firstskip != "" ? firstskip : clean(last))
	} else if (rc == 0 && count["fail"] == 0) {
		if (ncases > 0 && count["skip"] == ncases) {
			v = "skip"; w = "all " ncases " cases skipped: " firstskip
		} else {
			v = "pass"
			w = (ncases > 0 ? count["pass"] " of " ncases " cases passed" (count["skip"] ? ", " count["skip"] " skipped" : "") : "exit status 0")
		}
	} else {
		v = "fail"
		w = "exit status " rc (firstfail != "" ? ", first failed case " firstfail : ": " clean(last))
	}
	printf "test %s %s\n", v, clean(w)
}
