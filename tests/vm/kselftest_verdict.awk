# The verdict of one kernel selftest run, from its output and exit status,
# with kselftest's own conventions (tools/testing/selftests/kselftest.h:
# exit 0 pass, 4 KSFT_SKIP; TAP lines "ok N DESC", "not ok N DESC",
# "ok N DESC # SKIP WHY", "# XFAIL"). Portable awk: runs in the guest under
# busybox awk, and on the host (tests/vm/selftest_verdict_test.sh).
#   awk -v name=NAME -v rc=STATUS -v timedout=0|1 -v bounded=0|1 -v limit=S [-v failcount=1] [-v casemask=ERE] -f kselftest_verdict.awk OUTPUT
# Prints one "case NAME DESC VERDICT WHY" line per TAP case, then
# "test VERDICT WHY". A run whose cases all skipped is a skip, never a pass;
# a bounded test (it loops until killed) that reached its limit without a
# failure passes; any other timeout fails.
# failcount=1 (the list's flag of that name): the test's exit status is its
# count of failed checks, not kselftest's code, so 4 means four failures,
# not KSFT_SKIP, unless no check failed (khugepaged exits KSFT_SKIP before
# its first case when THP is off). khugepaged is such a test (fail() does
# exit_status++, in 6.1 and 6.12 alike); it prints "Run test: NAME
# (COLLAPSE:MEM)" before each case and colours each check's result (31 red:
# failed, 33 yellow: skipped, 32 green: passed), and those blocks are read
# as its cases.
# casemask=ERE (the list's flag casemask=ERE): each match of ERE in a case's
# name becomes "N". A case is known by its name, on the patched build as on
# its twin, and some tests put a figure of the run into it: 6.12's
# mrelease_test reports "Success reaping a child with 2MB of memory
# allocations" after retries that double the size from 1MB, as many as
# the race with the child's exit takes.
function clean(s) {
	gsub(/\033\[[0-9;]*m/, "", s)
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
	desc = clean(line)
	if (casemask != "") gsub(casemask, "N", desc)
	gsub(/ /, "_", desc)
	if (desc == "-") desc = "case" ++anon
	ncases++; count[verdict]++
	if (verdict == "fail" && firstfail == "") firstfail = desc
	if (verdict == "skip" && firstskip == "") firstskip = why
	printf "case %s %s %s %s\n", name, desc, verdict, why
	next
}
# failcount: the checks of khugepaged's "Run test:" blocks (see above).
function close_block() {
	if (block == "") return
	# A block without any check's result ran nothing to judge: a skip.
	v = bfail != "" ? "fail" : (bpass == 0 ? "skip" : "pass")
	w = bfail != "" ? bfail : (v == "pass" ? "-" : (bskip != "" ? bskip : "no check reported a result"))
	ncases++; count[v]++
	if (v == "fail" && firstfail == "") { firstfail = block; firstwhy = clean(bfail) }
	if (v == "skip" && firstskip == "") firstskip = w
	printf "case %s %s %s %s\n", name, block, v, clean(w)
	block = ""
}
failcount == 1 && /^Run test: / {
	close_block()
	block = clean(substr($0, 11)); sub(/ \(/, "(", block)
	if (casemask != "") gsub(casemask, "N", block)
	gsub(/ /, "_", block)
	bfail = ""; bskip = ""; bpass = 0
	next
}
failcount == 1 && /\033\[31m/ {
	if (block == "") { block = "setup"; bfail = ""; bskip = ""; bpass = 0 }
	if (bfail == "") bfail = $0
	nfailchecks++
}
failcount == 1 && block != "" && /\033\[33m/ { if (bskip == "") bskip = $0 }
failcount == 1 && block != "" && /\033\[32m/ { bpass++ }
NF { last = $0 }
END {
	# A test that exited with a failure in the middle of a block, before
	# any of its checks printed a result: that block is where it failed.
	# 6.1's khugepaged exits with "Failed to allocate huge page" when
	# fragmented memory has no THP left for collapse_compound_extreme.
	if (failcount == 1 && block != "" && bfail == "" && timedout != 1 && rc != 0 && !(rc == 4 && nfailchecks == 0)) {
		t = last; sub(/^.*(\r|\.\.\.)/, "", t)
		bfail = "the test exited in this case: " (t != "" ? t : last)
	}
	if (failcount == 1) close_block()
	if (timedout == 1) {
		if (bounded == 1 && count["fail"] == 0) {
			v = "pass"; w = "ran its " limit " s bound without a failure (killed at the bound: the test loops until stopped)"
		} else {
			v = "fail"; w = "timed out after " limit " s"
		}
	} else if (failcount == 1 && rc != 0 && (rc != 4 || nfailchecks > 0)) {
		v = "fail"
		w = "exit status " rc " (its count of failed checks" (nfailchecks ? ", " nfailchecks " seen" : "") ")" \
			(firstfail != "" ? ", first failed case " firstfail ": " firstwhy : ": " clean(last))
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
