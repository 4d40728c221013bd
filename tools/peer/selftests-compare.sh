#!/bin/bash
# Patched >= vanilla, from selftests-run.sh's rows
# ("BASE VARIANT DEBUG KERNELRELEASE TEST[/CASE] VERDICT SECONDS WHY..."):
# per base and debug setting, every test and TAP case that passed on the
# vanilla build must pass on each other build. Prints one line per
# regression ("regression: PATCHED TEST: VERDICT, passes on VANILLA"), per
# test failing on both ("fails on both: ..."), and per build without a
# vanilla twin ("no vanilla twin: ...").
#   selftests-compare.sh ROWS
# Exit status: 0 none regressed, 1 a regression, 3 a build had no twin
# (and nothing regressed), 2 usage.
set -eu
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: selftests-compare.sh ROWS" >&2; exit 2; }
awk '
	{ key = $1 " " $3; rel[key, $4] = $2; v[$4, $5] = $6; seen[$4, $5] = 1; tests[$4] = tests[$4] " " $5
	  if ($2 == "vanilla") van[key] = $4; else { if (!((key, $4) in isp)) { np[key]++; pl[key, np[key]] = $4 }; isp[key, $4] = 1 } }
	END {
		rc = 0
		for (k in np) for (i = 1; i <= np[k]; i++) {
			p = pl[k, i]
			if (!(k in van)) { print "no vanilla twin: " p " (base and debug setting " k ")"; if (rc == 0) rc = 3; continue }
			w = van[k]; n = split(tests[w], t, " ")
			for (j = 1; j <= n; j++) {
				x = t[j]
				if (v[w, x] == "pass" && v[p, x] != "pass") { print "regression: " p " " x ": " ((p, x) in seen ? v[p, x] : "not run") ", passes on " w; rc = 1 }
				if (v[w, x] == "fail" && v[p, x] == "fail") print "fails on both: " p " and " w ": " x
			}
		}
		exit rc
	}' "$1"
