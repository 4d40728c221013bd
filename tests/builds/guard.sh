#!/bin/bash
# The guard on make check's kernel builds (check-builds, tests/builds/run.sh):
# reads a builds log (tools/check.sh's MMBATCH_BUILDS_LOG, one line per
# tools/kbuild/build.sh run, fields: tools/kbuild/lib.sh kb_log_build) and
# the table of builds in the section "### The kernel builds of make check"
# of DOC (docs/developing/testing.md), prints the table of the log's builds
# (stage, knobs, how, objects, wall, cpu) and the totals of the compiled ones
# (those with objects; kbuild runs that compiled nothing apart), overall and
# per stage, and fails, one line per offence starting "builds: " (stdout,
# after the table),
# when:
#  - two compiled full builds (targets all) in two build dirs share the key
#    CONFIG_HASH, SERIES_HASH, EXTRA_PATCHES_HASH (one configuration compiled
#    twice), unless one dir was seeded from the other (KB_SEED_FROM: a
#    derived variant, e.g. the next series, which compiles only what its
#    release reaches; seeds chain: the dirs of a key joined by seeds are one
#    lineage, and a second lineage with a compile in it is the offence); the
#    series hash alone leaves extra patches out, hence the third field (the
#    canary's BAD kernel is the 6.1 guest's config and series plus a patch);
#  - one build dir was compiled twice with objects (> 0) under one key and
#    the same targets (a wasted rebuild);
#  - the knobs of a compiled build have no row in DOC's table (its first
#    column: the exact knobs string, in backticks);
#  - in a full run (MMBATCH_CHECK_ONLY set and empty: tools/check.sh with no
#    ONLY), a row's knobs appear nowhere in the log (a stale row), or the log
#    holds no build at all;
#  - a line of the log is not 15 fields, or DOC has no such section.
# Restored builds (the build cache) and partial ones (BUILD_TARGETS) are
# listed, never counted as a second compile of a configuration.
# usage: guard.sh LOG DOC
# Reads: MMBATCH_CHECK_ONLY (unset: not known to be a full run, stale rows
# not checked).
set -eu

[ $# -eq 2 ] || { echo "usage: guard.sh LOG DOC" >&2; exit 2; }
log=$1 doc=$2
if ! [ -f "$log" ] || ! [ -r "$log" ]; then echo "builds: $log: no builds log" >&2; exit 2; fi
if ! [ -f "$doc" ] || ! [ -r "$doc" ]; then echo "builds: $doc: no such file" >&2; exit 2; fi
if [ -z "${MMBATCH_CHECK_ONLY+set}" ]; then
	run=unknown
elif [ -z "$MMBATCH_CHECK_ONLY" ]; then
	run=full
else
	run=partial
fi

awk -F'\t' -v logf="$log" -v docf="$doc" -v run="$run" -v only="${MMBATCH_CHECK_ONLY:-}" '
function offence(msg) { print "builds: " msg; bad++ }
function short(h) { return h == "-" ? h : substr(h, 1, 12) }
function root(x) { while (up[x] != x) x = up[x]; return x }
# The doc: the rows of the section, by their first cell.
FILENAME == docf {
	if ($0 == "### The kernel builds of make check") { insec = 1; seen_sec = 1; next }
	if (insec && $0 ~ /^#+ /) insec = 0
	if (!insec || $0 !~ /^\|/) next
	cell = $0; sub(/^\|[ \t]*/, "", cell); sub(/[ \t]*\|.*$/, "", cell)
	if (cell !~ /^`[^`]+`$/) next
	k = substr(cell, 2, length(cell) - 2)
	if (!(k in row)) { row[k] = FNR; rows[++nrows] = k }
	next
}
# The log.
/^#/ || /^$/ { next }
{
	if (NF != 15) { offence(logf ":" FNR ": " NF " fields, expected 15 (tools/kbuild/lib.sh kb_log_build)"); next }
	n++
	st[n] = $1; dir[n] = $2; knobs[n] = $4; key[n] = $5 "\t" $6 "\t" $7
	tg[n] = $8; seed[n] = $9; how[n] = $10; obj[n] = $11 + 0; wall[n] = $12 + 0; cpu[n] = $13 + 0
	logged[$4] = 1
	if (length($1) > ws) ws = length($1)
	if (length($4) > wk) wk = length($4)
}
END {
	if (!seen_sec) offence(docf ": no section \"### The kernel builds of make check\"")
	printf "builds of this run (%s): %d\n", logf, n
	if (ws < 5) ws = 5
	if (wk < 5) wk = 5
	if (n) printf "  %-" ws "s  %-" wk "s  %-8s  %7s  %6s  %6s\n", "stage", "knobs", "how", "objects", "wall_s", "cpu_s"
	for (i = 1; i <= n; i++) {
		printf "  %-" ws "s  %-" wk "s  %-8s  %7d  %6d  %6d\n", st[i], knobs[i], how[i], obj[i], wall[i], cpu[i]
		if (!(st[i] in seen_st)) { seen_st[st[i]] = 1; order[++ns] = st[i] }
		if (how[i] != "compiled") { r++; continue }
		if (obj[i] == 0) { u++; uw += wall[i]; uc += cpu[i]; su[st[i]]++; suw[st[i]] += wall[i]; suc[st[i]] += cpu[i]; continue }
		c++; co += obj[i]; cw += wall[i]; cc += cpu[i]
		sc[st[i]]++; so[st[i]] += obj[i]; sw[st[i]] += wall[i]; sp[st[i]] += cpu[i]
	}
	printf "compiled: %d builds, %d objects, %d s (wall, summed), cpu %d s; up to date (kbuild compiled nothing): %d, %d s, cpu %d s; restored: %d\n", c, co, cw, cc, u, uw, uc, r
	for (j = 1; j <= ns; j++) {
		x = order[j]
		printf "  %s: %d compiled, %d objects, %d s, cpu %d s", x, sc[x], so[x], sw[x], sp[x]
		if (su[x]) printf "; %d up to date, %d s, cpu %d s", su[x], suw[x], suc[x]
		printf "\n"
	}

	# One configuration compiled in two build dirs. The full builds of a key
	# fall into lineages, dirs joined by KB_SEED_FROM (restored ones join
	# too); a second lineage with a compile in it compiled the
	# configuration again.
	for (i = 1; i <= n; i++) {
		if (tg[i] != "all") continue
		node = key[i] SUBSEP dir[i]
		if (!(node in up)) up[node] = node
	}
	for (i = 1; i <= n; i++) {
		if (tg[i] != "all" || seed[i] == "-" || !((key[i] SUBSEP seed[i]) in up)) continue
		a = root(key[i] SUBSEP dir[i]); b = root(key[i] SUBSEP seed[i])
		if (a != b) up[a] = b
	}
	for (i = 1; i <= n; i++) {
		if (tg[i] != "all" || how[i] != "compiled") continue
		lin = root(key[i] SUBSEP dir[i])
		if (lin in first_of) continue
		first_of[lin] = i
		if (!(key[i] in first_key)) { first_key[key[i]] = i; continue }
		f = first_key[key[i]]
		split(key[i], kk, "\t")
		offence("one configuration compiled twice: stage " st[f] " (" dir[f] ", " obj[f] " objects, knobs \"" knobs[f] "\") and stage " st[i] " (" dir[i] ", " obj[i] " objects, knobs \"" knobs[i] "\") share CONFIG_HASH " short(kk[1]) " SERIES_HASH " short(kk[2]) " EXTRA_PATCHES_HASH " short(kk[3]) "; neither was seeded from the other (KB_SEED_FROM, directly or through other dirs)")
	}
	# One build dir compiled again.
	for (i = 1; i <= n; i++) {
		if (how[i] != "compiled" || obj[i] == 0) continue
		for (j = i + 1; j <= n; j++) {
			if (how[j] != "compiled" || obj[j] == 0 || dir[j] != dir[i] || key[j] != key[i] || tg[j] != tg[i]) continue
			p = dir[i] SUBSEP key[i] SUBSEP tg[i]
			if (p in rebuilt) continue
			rebuilt[p] = 1
			offence(dir[i] " compiled twice under one key (targets " tg[i] ", knobs \"" knobs[i] "\"): stage " st[i] " (" obj[i] " objects) and stage " st[j] " (" obj[j] " objects): a wasted rebuild")
		}
	}
	# The list in the doc.
	for (i = 1; i <= n; i++) {
		if (how[i] != "compiled" || (knobs[i] in row) || (knobs[i] in norow)) continue
		norow[knobs[i]] = 1
		offence("knobs \"" knobs[i] "\" compiled by stage " st[i] " (" dir[i] ") have no row in " docf " (### The kernel builds of make check)")
	}
	if (run == "full") {
		if (n == 0) offence(logf ": no build logged in a full make check (did MMBATCH_BUILDS_LOG reach tools/kbuild/build.sh?)")
		for (j = 1; j <= nrows; j++)
			if (!(rows[j] in logged))
				offence("row \"" rows[j] "\" of " docf ":" row[rows[j]] ": no build of these knobs in this full run (a stale row)")
	} else if (run == "partial") {
		printf "rows with no build not checked: not a full run (ONLY=%s)\n", only
	} else {
		print "rows with no build not checked: not known to be a full run (MMBATCH_CHECK_ONLY unset: not run by tools/check.sh)"
	}
	if (bad) { printf "builds: %d offence(s)\n", bad; exit 1 }
	print "builds: no configuration compiled twice, every compiled build listed"
}' "$doc" "$log"
