#!/bin/bash
# Patched >= vanilla, from selftests-run.sh's rows
# ("BASE VARIANT DEBUG KERNELRELEASE TEST[/CASE] VERDICT SECONDS WHY..."):
# per base and debug setting, every test and TAP case that passed on the
# vanilla build must pass on each other build. A kernel may have several
# rows of a test (selftests-run.sh's rechecks on the twin): it passes the
# test when every row passes; a TAP case, when every run of its test
# reported it and it passed in each. Prints one line per regression
# ("regression: PATCHED TEST: VERDICT, passes on VANILLA", with "(N of N
# runs)" after several), per test that fails on the patched build and
# sometimes on the twin ("flaky on both: PATCHED TEST: VERDICT; VANILLA
# passed P of N runs": listed, not a regression), per test failing on both
# ("fails on both: ..."), and per build without a vanilla twin ("no vanilla
# twin: ...").
#   selftests-compare.sh ROWS
# Exit status: 0 none regressed, 1 a regression, 3 a build had no twin
# (and nothing regressed), 2 usage.
set -eu
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: selftests-compare.sh ROWS" >&2; exit 2; }
awk '
	{ key = $1 " " $3; k = $4; x = $5
	  if (!((k, x) in runs)) { tests[k] = tests[k] " " x; v[k, x] = $6 }
	  runs[k, x]++; if ($6 == "pass") passes[k, x]++; else v[k, x] = $6
	  if ($2 == "vanilla") van[key] = k; else { if (!((key, k) in isp)) { np[key]++; pl[key, np[key]] = k }; isp[key, k] = 1 } }
	END {
		rc = 0
		for (key in np) for (i = 1; i <= np[key]; i++) {
			p = pl[key, i]
			if (!(key in van)) { print "no vanilla twin: " p " (base and debug setting " key ")"; if (rc == 0) rc = 3; continue }
			w = van[key]; n = split(tests[w], t, " ")
			for (j = 1; j <= n; j++) {
				x = t[j]; wp = passes[w, x] + 0; wr = runs[w, x]
				# A case counts as many runs as its test: a rerun of the
				# test that did not report the case did not pass it.
				tx = x; sub(/\/.*/, "", tx)
				if (tx != x && runs[w, tx] > wr) wr = runs[w, tx]
				pv = ((p, x) in runs) ? v[p, x] : "not run"
				if (pv == "pass") continue
				if (wp == wr) { print "regression: " p " " x ": " pv ", passes on " w (wr > 1 ? " (" wr " of " wr " runs)" : ""); rc = 1 }
				else if (wp > 0) print "flaky on both: " p " " x ": " pv "; " w " passed " wp " of " wr " runs"
				else if (pv == "fail" && v[w, x] == "fail") print "fails on both: " p " and " w ": " x
			}
		}
		exit rc
	}' "$1"
