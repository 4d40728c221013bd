#!/bin/bash
# The bench-vm report's scaling tables, charts and per-seed table
# (tools/vmtest/bench-report.sh, bench-scaling.sh, bench-seeds.sh) and the
# splitting of one boot's output into its documents (bench-lib.sh
# bench_split_output) and the merging of several boots' documents
# (bench_merge_boots, BENCH_BOOTS), on fixture documents: no VM. The templates in
# fixtures/bench-report/ are real `mmbench ... --quick --reps 1` documents of
# this host (migrate and numa-hinting, which skip on one node, with the
# metrics their source adds, bench_migrate.c and bench_numa_hinting.c); each
# document below is one of them with its medians set to known figures.
# Negative controls: a missing document is "not run", a kernel without
# lock_stat "n/a (no lock_stat)", a skipped result "skipped" (never a
# number); without gnuplot no PNG and the report says so; bad knobs of
# bench-vm.sh give one error line, exit 2 and write nothing. Last,
# bench-vm.sh's boot plan runs against a stand-in vmtest (no VM): which
# boots, with which --cpus, which benchmarks, which documents, and with
# BENCH_BOOTS=2 the kernels' boots in turns and their merged documents; and
# bench-proof.sh --kernels against a stand-in build-kernel.sh: which builds,
# each once, no boot, a failing build named.
# Reads: MMBENCH, TOP (tests/mmbench/lib.sh).
# shellcheck disable=SC2016 # the patterns match markdown backquotes
. "$(dirname "$0")/lib.sh"
setup
if [ "${SAN:-}" = 1 ]; then
	skip "bench-report" "SAN=1 (shell and jq, nothing for ASan to check; check-bench runs it)"
	exit 0
fi
command -v gnuplot > /dev/null || { skip "bench-report" "no gnuplot (make deps-bench)"; exit 0; }
tools=$TOP/tools/vmtest
fx=$TOP/tests/mmbench/fixtures/bench-report
B=$T/bench
mkdir -p "$B"

# doc OUT LOCKSTAT TEMPLATE=METRIC=VALUE...: one document from the templates
# (results in that order), each METRIC's median and values set to VALUE;
# LOCKSTAT true adds fault's lru_lock metric when the VALUE names it.
doc() {
	local out=$1 ls=$2 spec t m v files=() filter='.'
	shift 2
	for spec in "$@"; do
		t=${spec%%=*} m=${spec#*=} v=${m#*=} m=${m%%=*}
		files+=("$fx/$t.json")
		filter+=" | .results[$((${#files[@]} - 1))].metrics |= (if any(.[]; .name == \"$m\") then . else . + [{name: \"$m\", unit: \"acquisitions/1000 pages\", better: \"lower\", values: [1], median: 1}] end
			| map(if .name == \"$m\" then .values = [$v, $v, $v] | .median = $v else . end))"
	done
	jq -s --argjson ls "$ls" ".[0] + {command: \"bench-vm\", results: [.[].results[]]} | .system.lock_stat = \$ls | $filter" "${files[@]}" > "$out"
}

# The scaling documents: base, variant, vCPUs -> migrate, compaction IPIs
# per 1000 migrated pages (bench-vm's documents, no lock_stat, as the guest
# flavor), and lru_lock per 1000 faulted pages in the proof's LOCK_STAT
# documents of patched and vanilla (6.1's with lock_stat; 6.12's without:
# the negative control for "n/a"). 6.1 stock has no 8-vCPU document: the
# negative control for "not run".
while read -r base v n mig cmp lru; do
	doc "$B/$base-$v-cpus$n.json" false migrate=tlb_ipis_per_1000_pages="$mig" compaction=tlb_ipis_per_1000_migrated_pages="$cmp" fault=pages_per_s=1000
	# as the guest of that count would say (the report does not read it)
	jq --argjson n "$n" '.system.cpus_online = $n' "$B/$base-$v-cpus$n.json" > "$T/x" && mv "$T/x" "$B/$base-$v-cpus$n.json"
	[ "$v" != stock ] || continue
	p=$B/proof-lockstat-$base-$v-fault.json
	[ "$n" = 2 ] || p=$B/proof-lockstat-$base-$v-cpus$n-fault.json
	if [ "$lru" = - ]; then doc "$p" false fault=pages_per_s=1000; else doc "$p" true fault=lru_lock_acq_per_1000_pages="$lru"; fi
done <<'DOCS'
6.1 patched 2 2 5 98.2
6.1 patched 4 6 15 99.1
6.1 patched 8 14 35 101.5
6.1 vanilla 2 1000 1001 98.4
6.1 vanilla 4 3000 3003 98.9
6.1 vanilla 8 7000 7007 100.2
6.1 stock 2 999.6 1000 -
6.1 stock 4 2999 3001 -
6.12 patched 2 2 4 -
6.12 patched 4 6 12 -
6.12 patched 8 14 28 -
6.12 vanilla 2 2 4 -
6.12 vanilla 4 6 12 -
6.12 vanilla 8 14 28 -
6.12 stock 2 2 4 -
6.12 stock 4 6 12 -
6.12 stock 8 14 28 -
DOCS
# The seed documents (2 vCPUs): 6.12 stock has none; 6.1 vanilla's
# numa-hinting skipped (the negative control for "skipped").
for bv in "6.1 patched 3500 40 60000 0.5" "6.1 vanilla 120000 41 60000 0.5" "6.1 stock 118000 42 59000 0.51" \
	"6.12 patched 3400 40 66000 0.4" "6.12 vanilla 3450 40 65000 0.4"; do
	read -r base v peak hint pf2 sys <<< "$bv"
	doc "$B/$base-$v-seeds.json" false compaction=tlb_ipis_per_s_peak="$peak" numa-hinting=tlb_ipis_per_1000_hint_faults="$hint" \
		fault-page_fault2=pages_per_s="$pf2" munmap-ebizzy=munmap_sys_s="$sys"
done
jq '(.results[] | select(.benchmark == "numa-hinting")) |= (.status = "skipped" | .reason = "needs 2 NUMA nodes with memory, this machine has 1" | .metrics = [])' \
	"$B/6.1-vanilla-seeds.json" > "$T/x" && mv "$T/x" "$B/6.1-vanilla-seeds.json"
# compaction's IPIs per 1000 migrated pages in the 6.1 seed documents (the
# goal of 1/20: 90/1000 misses it), and mmbench compare's verdicts on 6.12.
for bvx in "6.1 patched 90" "6.1 vanilla 1000" "6.12 patched 3" "6.12 vanilla 3"; do
	read -r base v x <<< "$bvx"
	jq --argjson x "$x" '(.results[] | select(.benchmark == "compaction") | .metrics[] | select(.name == "tlb_ipis_per_1000_migrated_pages")) |= (.median = $x | .values = [$x, $x, $x])' \
		"$B/$base-$v-seeds.json" > "$T/x" && mv "$T/x" "$B/$base-$v-seeds.json"
done
cat > "$B/6.12-patched-vs-vanilla-seeds.txt" <<'CMP'
benchmark  metric                                 baseline          new    change   95% CI (bootstrap)  verdict
fault      pages_per_s                               65000        66000     +1.5%       [-2.0%, +4.0%]  same
munmap     munmap_sys_s                                0.4          0.5    +25.0%      [+10.0%, +40.0%]  worse
CMP
# The 2-vCPU suite documents the report always reads.
for base in 6.12 6.1; do
	for v in patched vanilla stock; do
		doc "$B/$base-$v.json" false migrate=pages_per_s=30000 fault=pages_per_s=80000
	done
done

# section FILE HEADING: the lines from the heading that starts with HEADING
# to the next heading of any level.
section() { awk -v h="$2" '$0 == h || index($0, h " ") == 1 {on = 1; print; next} on && /^#/ {exit} on' "$1"; }

run_cmd report bash "$tools/bench-report.sh" --cpus "2 4 8" --seeds --host "h1, 2 CPUs (cpu), 24 GiB; load average 0.10 0.20 0.30 at the start, 2.00 1.90 1.50 at the end of the boots (3600 s)" \
	"$B" "6.12 6.1" "patched vanilla stock" "--reps 3"
expect_eq "report: exit" 0 "$RC"
R=$T/report.out
expect_line "report: the host and its load under the heading" \
	"Host: h1, 2 CPUs (cpu), 24 GiB; load average 0.10 0.20 0.30 at the start, 2.00 1.90 1.50 at the end of the boots (3600 s)." "@$R"
section "$R" "### TLB IPIs received per 1000 migrated pages" > "$T/mig.md"
section "$R" "### TLB IPIs received per 1000 pages compaction migrated" > "$T/cmp.md"
section "$R" "### lru_lock acquisitions per 1000 faulted pages" > "$T/lru.md"
expect_line "migrate: columns are the vCPU counts" "| base | variant | 2 vCPUs | 4 vCPUs | 8 vCPUs |" "@$T/mig.md"
expect_line "migrate: 6.1 vanilla grows with vCPUs" "| 6.1 | vanilla | 1000 | 3000 | 7000 |" "@$T/mig.md"
expect_line "migrate: 6.1 patched" "| 6.1 | patched | 2 | 6 | 14 |" "@$T/mig.md"
expect_line "migrate: 6.12 stock" "| 6.12 | stock | 2 | 6 | 14 |" "@$T/mig.md"
expect_line "migrate: a missing document is 'not run'" "| 6.1 | stock | 999.6 | 2999 | not run |" "@$T/mig.md"
expect_line "compaction: per 1000 migrated pages" "| 6.1 | vanilla | 1001 | 3003 | 7007 |" "@$T/cmp.md"
expect_line "compaction: missing document" "| 6.1 | stock | 1000 | 3001 | not run |" "@$T/cmp.md"
expect_line "fault: lru_lock with lock_stat" "| 6.1 | patched | 98.2 | 99.1 | 101.5 |" "@$T/lru.md"
expect_line "fault: no lock_stat is n/a, never 0" "| 6.12 | patched | n/a (no lock_stat) | n/a (no lock_stat) | n/a (no lock_stat) |" "@$T/lru.md"
expect_line "fault: no lock_stat, then a missing document" "| 6.1 | stock | n/a (no lock_stat) | n/a (no lock_stat) | not run |" "@$T/lru.md"
sed -n '/^## Seeds/,$p' "$R" > "$T/new.md"
expect_no_match "no new cell is a 0 standing for a missing figure" '\| 0 \|' "@$T/new.md"
expect_contains "the report says counts are exact, rates are not, under TCG" "Under TCG the counts are exact and the rates are not." "@$R"
for b in migrate compaction fault; do
	expect_eq "chart scaling-$b.png is a PNG" "89504e47" "$(od -An -tx1 -N4 "$B/scaling-$b.png" 2>/dev/null | tr -d ' \n')"
	expect_contains "the report shows scaling-$b.png" "(scaling-$b.png)" "@$R"
done
expect_absent "no chart data left behind" "$B/scaling-migrate.dat"

# report.json: the same cells, a missing one null with its text.
J=$B/report.json
cell() { jq -c --arg t "$1" --arg b "$2" --arg v "$3" --argjson n "$4" \
	'.scaling.tables[] | select(.benchmark == $t) | .rows[] | select(.base == $b and .variant == $v) | .cells[] | select(.vcpus == $n)' "$J"; }
expect_eq "json: vCPU counts" "[2,4,8]" "$(jq -c .scaling.vcpus "$J")"
expect_eq "json: migrate 6.1 vanilla 8" '{"vcpus":8,"value":7000,"text":"7000"}' "$(cell migrate 6.1 vanilla 8)"
expect_eq "json: missing document" '{"vcpus":8,"value":null,"text":"not run"}' "$(cell migrate 6.1 stock 8)"
expect_eq "json: no lock_stat" '{"vcpus":4,"value":null,"text":"n/a (no lock_stat)"}' "$(cell fault 6.12 vanilla 4)"
expect_eq "json: lru_lock 6.1 vanilla 2" '{"vcpus":2,"value":98.4,"text":"98.4"}' "$(cell fault 6.1 vanilla 2)"
expect_eq "json: charts" '["scaling-migrate.png","scaling-compaction.png","scaling-fault.png"]' "$(jq -c '[.scaling.tables[].chart]' "$J")"
expect_eq "json: the TCG note" "under TCG the counts are exact and the rates are not (more vCPUs than host cores)" "$(jq -r .scaling.note "$J")"
expect_eq "json: the 2-vCPU tables are still there" "true" "$(jq '.bases["6.1"] | length > 0' "$J")"

# The per-seed table.
section "$R" "### Seeds, base 6.1" > "$T/seed61.md"
section "$R" "### Seeds, base 6.12" > "$T/seed612.md"
expect_match "seed: compaction peak IPIs/s, 6.1, ratio" '^\| migration TLB batching .*345K/s .*\| 0\.029 \| `mmbench compaction` `tlb_ipis_per_s_peak` \| 3500 \| 120000 \| 118000 \| 0\.0292 \| 0\.0297 \|' "@$T/seed61.md"
expect_match "seed: page_fault2 shape" '^\| larger per-CPU page batch .*\| 1\.125 \| `mmbench fault --shape page_fault2` `pages_per_s` \| 60000 \| 60000 \| 59000 \| 1 \| 1\.02 \|' "@$T/seed61.md"
expect_match "seed: ebizzy shape" '^\| mmu_gather force flush .*\| - \| `mmbench munmap --shape ebizzy` `munmap_sys_s` \| 0\.5 \| 0\.5 \| 0\.51 \| 1 \| 0\.98 \|' "@$T/seed61.md"
expect_match "seed: a skipped result is 'skipped', no ratio" '^\| NUMA hinting faults .* `tlb_ipis_per_1000_hint_faults` \| 40 \| skipped \| 42 \| - \| 0\.952 \|' "@$T/seed61.md"
expect_match "seed: a missing document is 'not run', no ratio" '^\| migration TLB batching .* \| 3400 \| 3450 \| not run \| 0\.986 \| - \|' "@$T/seed612.md"
expect_eq "seed rows: 4 seeds x 2 bases" 8 "$(jq '.seeds.rows | length' "$J")"

# The goals of the seed scenarios (bench-seeds.sh), from the same documents
# and mmbench compare's verdicts (recorded here as bench-vm.sh writes them).
section "$R" "### Goals of the seed scenarios" > "$T/goals.md"
expect_match "goal: compaction peak IPIs/s at most 1/10, met" '^\| 6\.1 \| peak TLB IPIs/s at most 1/10 .* \| 3500 \| 120000 \| 0\.0292 \| - \| yes \|$' "@$T/goals.md"
expect_match "goal: compaction per 1000 migrated pages at most 1/20, not met" '^\| 6\.1 \| TLB IPIs per 1000 compaction-migrated pages at most 1/20 .* \| 90 \| 1000 \| 0\.09 \| - \| no \|$' "@$T/goals.md"
expect_match "goal: numa-hinting 6.1, vanilla skipped: no verdict, not met" '^\| 6\.1 \| numa-hinting: same or better .* \| 40 \| skipped \| - \| - \| - \|$' "@$T/goals.md"
expect_match "goal: 6.12 page_fault2 same" '^\| 6\.12 \| page_fault2: same or better .* \| same \| yes \|$' "@$T/goals.md"
expect_match "goal: 6.12 ebizzy worse" '^\| 6\.12 \| ebizzy: same or better .* \| worse \| no \|$' "@$T/goals.md"
expect_eq "goals in seeds.json: 8, of which 4 without a verdict (null) and 2 missed" "8 4 2" \
	"$(jq -r '.seeds.goals | "\(length) \(map(select(.met == null)) | length) \(map(select(.met == false)) | length)"' "$J")"
expect_eq "seeds json: missing is null" 'null not run' "$(jq -r '.seeds.rows[] | select(.base == "6.12" and .seed == "migration-tlb") | "\(.median.stock) \(.cell.stock)"' "$J")"

# BENCH_CPUS "2": the report is the 2-vCPU one alone, as before the knob.
run_cmd plain bash "$tools/bench-report.sh" "$B" "6.12 6.1" "patched vanilla stock" "--reps 3"
run_cmd two bash "$tools/bench-report.sh" --cpus 2 "$B" "6.12 6.1" "patched vanilla stock" "--reps 3"
expect_eq "--cpus 2 gives the report of no --cpus" "$(grep -v '^Generated' "$T/plain.out")" "$(grep -v '^Generated' "$T/two.out")"
expect_no_match "--cpus 2: no scaling section" '^## Scaling' "@$T/two.out"
expect_no_match "no --host: no host line" '^Host:' "@$T/two.out"
expect_no_match "--cpus 2: no seed section" '^## Seeds' "@$T/two.out"
expect_eq "--cpus 2: report.json has no scaling or seeds" "false false" "$(jq -r '"\(has("scaling")) \(has("seeds"))"' "$J")"
expect_absent "--cpus 2: no scaling.json" "$B/scaling.json"

# Negative control: no gnuplot on PATH. The tables stay, no PNG is left.
mkdir "$T/nognuplot"
for t in jq awk sed tr sort paste head tail cut grep date nproc od dirname cat rm mv printf basename uniq; do
	p=$(command -v "$t") && ln -s "$p" "$T/nognuplot/$t"
done
rm -f "$B"/scaling-*.png
RC=0; PATH=$T/nognuplot "$BASH" "$tools/bench-report.sh" --cpus "2 4 8" "$B" "6.12 6.1" "patched vanilla stock" "--reps 3" > "$T/nogp.out" 2> "$T/nogp.err" || RC=$?
expect_eq "no gnuplot: the report is still written" 0 "$RC"
expect_contains "no gnuplot: the report says the chart is missing" "(chart not drawn: gnuplot:" "@$T/nogp.out"
expect_line "no gnuplot: the tables stay" "| 6.1 | vanilla | 1000 | 3000 | 7000 |" "@$T/nogp.out"
expect_absent "no gnuplot: no PNG" "$B/scaling-migrate.png"
expect_eq "no gnuplot: json chart null" "null" "$(jq -c '.scaling.tables[0].chart' "$J")"

# Negative control: a table without any figure gets no chart.
mkdir "$T/nolock"
cp "$B"/6.12-*-cpus*.json "$T/nolock/"
run_cmd nolock bash "$tools/bench-report.sh" --cpus "2 4 8" "$T/nolock" "6.12" "patched vanilla stock" "--reps 3"
expect_contains "no lock_stat anywhere: no chart" "(no chart: no figure in this table)" "@$T/nolock.out"
expect_absent "no lock_stat anywhere: no PNG" "$T/nolock/scaling-fault.png"
expect_exists "... the migrate chart still" "$T/nolock/scaling-migrate.png"

# One boot's output split into its documents (bench_split_output): the
# suite's document keeps only the suite's results, so the scaling and seed
# items of the same boot do not change it.
{
	for it in fault migrate compaction numa-hinting fault:page_fault2 munmap:ebizzy; do
		echo "@@JSON $it@@"
		f=$fx/${it//:/-}.json
		jq . "$f"
	done
	echo "@@JSON exitdrain@@"
	echo "mmbench: no such file"
} > "$T/boot.out"
(
	bench=$B/split
	# shellcheck disable=SC2317 # bench-lib.sh calls it
	note() { echo "note: $*"; }
	mkdir -p "$bench"
	# shellcheck source=../../tools/vmtest/bench-lib.sh
	. "$tools/bench-lib.sh"
	bench_split_output "$T/boot.out" "$bench/6.1-patched" "6.1-patched.json=fault,migrate,exitdrain" \
		"6.1-patched-cpus2.json=migrate,compaction,fault" "6.1-patched-seeds.json=compaction,numa-hinting,fault:page_fault2,munmap:ebizzy"
) > "$T/split.out" 2>&1 || fail "bench_split_output failed: $(cat "$T/split.out")"
S=$B/split
expect_eq "split: the suite document has the suite's results" "fault/ migrate/" "$(jq -r '[.results[] | "\(.benchmark)/\(.params.shape // "")"] | join(" ")' "$S/6.1-patched.json")"
expect_eq "split: the 2-vCPU scaling document" "migrate/ compaction/ fault/" "$(jq -r '[.results[] | "\(.benchmark)/\(.params.shape // "")"] | join(" ")' "$S/6.1-patched-cpus2.json")"
expect_eq "split: the seed document, shapes kept apart" "compaction/ numa-hinting/ fault/page_fault2 munmap/ebizzy" "$(jq -r '[.results[] | "\(.benchmark)/\(.params.shape // "")"] | join(" ")' "$S/6.1-patched-seeds.json")"
expect_contains "split: an item without a document is named" "no mmbench document for exitdrain" "@$T/split.out"
expect_eq "split: no part files left" "" "$(find "$S" -name '*.part.json')"
schema_ok "split: the suite document" "$S/6.1-patched.json"

# A boot's output as bench_run_suite's guest prints it (each document
# between its marker and the end line, as soon as its item ended, the next
# item's log after it), killed at its timeout in the middle of the second
# document: the first document is written, the cut one is named missing.
{
	echo "mmbench fault: exit 0"; echo "fault: 3 reps"
	echo "@@JSON fault@@"; jq . "$fx/fault.json"; echo "@@JSON-END@@"
	echo "mmbench migrate: exit 0"; echo "migrate: 3 reps"
	echo "@@JSON migrate@@"; jq . "$fx/migrate.json" | head -n 5
} > "$T/cut.out"
(
	bench=$B/cut
	# shellcheck disable=SC2317 # bench-lib.sh calls it
	note() { echo "note: $*"; }
	mkdir -p "$bench"
	# shellcheck source=../../tools/vmtest/bench-lib.sh
	. "$tools/bench-lib.sh"
	bench_split_output "$T/cut.out" "$bench/6.1-patched" "6.1-patched.json=fault,migrate"
) > "$T/cut-split.out" 2>&1 || fail "bench_split_output on a cut boot failed: $(cat "$T/cut-split.out")"
expect_eq "cut boot: the finished item's document is kept" "fault/" "$(jq -r '[.results[] | "\(.benchmark)/\(.params.shape // "")"] | join(" ")' "$B/cut/6.1-patched.json")"
expect_contains "cut boot: the cut item is named" "no mmbench document for migrate" "@$T/cut-split.out"

# A boot that died before its first item printed anything (Debian's 6.12
# at 8 vCPUs under TCG: an int3 Oops at boot, seen in
# docs/results/2026-12-06-bench-vm.md): no document, and the boot counts as
# failed (jq 1.6 -e passed the empty parts).
: > "$T/dead.out"
rc=0
(
	bench=$B/dead
	# shellcheck disable=SC2317 # bench-lib.sh calls it
	note() { echo "note: $*"; }
	mkdir -p "$bench"
	# shellcheck source=../../tools/vmtest/bench-lib.sh
	. "$tools/bench-lib.sh"
	bench_split_output "$T/dead.out" "$bench/6.12-stock-cpus8" "6.12-stock-cpus8.json=migrate,compaction,fault"
) > "$T/dead-split.out" 2>&1 || rc=$?
expect_eq "dead boot: bench_split_output fails (no document)" 1 "$rc"
expect_absent "dead boot: no document written" "$B/dead/6.12-stock-cpus8.json"
expect_contains "dead boot: each item named" "no mmbench document for compaction" "@$T/dead-split.out"

# Several boots of one kernel merged (bench_merge_boots, BENCH_BOOTS): each
# metric's values are the boots' medians, judged across the boots.
doc "$T/b1.json" false fault=pages_per_s=100 munmap-ebizzy=munmap_sys_s=4
doc "$T/b2.json" false fault=pages_per_s=300 munmap-ebizzy=munmap_sys_s=6
doc "$T/b3.json" false fault=pages_per_s=200 munmap-ebizzy=munmap_sys_s=5
jq '.results[1].status = "failed" | .results[1].reason = "an ebizzy lookup missed"' "$T/b3.json" > "$T/b3f.json"
doc "$T/bx.json" false migrate=pages_per_s=1 munmap-ebizzy=munmap_sys_s=5
merge() {
	(
		# shellcheck source=../../tools/vmtest/bench-lib.sh
		. "$tools/bench-lib.sh"
		bench_merge_boots "$@"
	)
}
RC=0; merge "$T/merged.json" "$T/b1.json" "$T/b2.json" "$T/b3.json" || RC=$?
expect_eq "merge boots: ok" 0 "$RC"
expect_eq "merge boots: one value per boot, the median of the boots' medians" "[100,300,200] 200" \
	"$(jq -c '.results[0].metrics[] | select(.name == "pages_per_s") | .values, .median' "$T/merged.json" | paste -sd ' ')"
expect_eq "merge boots: repetitions count the boots, params keep the repetitions of one" "3 3 3 $(jq '.results[0].repetitions' "$fx/fault.json")" \
	"$(jq -r '[.boots, .results[0].repetitions, .results[0].params.boots, .results[0].params.reps_per_boot] | join(" ")' "$T/merged.json")"
expect_eq "merge boots: the shape stays" "ebizzy ok [4,6,5]" \
	"$(jq -c '.results[1] | [.params.shape, .status, (.metrics[] | select(.name == "munmap_sys_s") | .values)] | map(tostring) | join(" ")' "$T/merged.json" | tr -d '"')"
schema_ok "merge boots: the merged document" "$T/merged.json"
RC=0; merge "$T/mergedf.json" "$T/b1.json" "$T/b2.json" "$T/b3f.json" || RC=$?
expect_eq "merge boots, one boot failed: the result is failed with its reason, the ok boots' values" \
	"0 failed an ebizzy lookup missed [4,6] 2" \
	"$RC $(jq -r '.results[1] | [.status, .reason, (.metrics[] | select(.name == "munmap_sys_s") | .values | tojson), .repetitions] | join(" ")' "$T/mergedf.json")"
RC=0; merge "$T/mergedx.json" "$T/b1.json" "$T/bx.json" 2> "$T/mergex.err" || RC=$?
expect_eq "merge boots, different benchmarks: fails" 1 "$RC"
expect_absent "merge boots, different benchmarks: nothing written" "$T/mergedx.json"
expect_absent "merge boots, different benchmarks: no temp file left" "$T/mergedx.json.tmp"
# compare on merged documents judges a shift of one boot as one sample
RC=0; merge "$T/ma.json" "$T/b1.json" "$T/b2.json" "$T/b3.json"; merge "$T/mb.json" "$T/b2.json" "$T/b3.json" "$T/b1.json"
"$MMBENCH" compare "$T/ma.json" "$T/mb.json" > "$T/mcmp.txt" 2>&1 || RC=$?
expect_eq "merge boots: the same boots in another order compare as the same" 0 "$RC"
expect_match "merge boots: compare's row for the merged metric" '^fault +pages_per_s .*same' "@$T/mcmp.txt"

# bench-vm.sh's knobs: bad values give one line naming the knob, exit 2,
# and nothing is written (OUT is not even made).
bad_knob() {
	local what=$1 re=$2; shift 2
	RC=0; env "$@" OUT="$T/badout" BENCH_BASES='' BENCH_PROOF=0 bash "$tools/bench-vm.sh" > "$T/bad.out" 2> "$T/bad.err" || RC=$?
	expect_eq "$what: exit" 2 "$RC"
	expect_lines "$what: one error line" 1 "@$T/bad.err"
	expect_match "$what: names the knob" "$re" "@$T/bad.err"
	expect_absent "$what: nothing written" "$T/badout"
}
bad_knob "BENCH_CPUS=x" "^ERROR: bench-vm: BENCH_CPUS: 'x' " BENCH_CPUS=x
bad_knob "BENCH_CPUS=1" "^ERROR: bench-vm: BENCH_CPUS: '1' " BENCH_CPUS=1
bad_knob "BENCH_CPUS above NR_CPUS" "^ERROR: bench-vm: BENCH_CPUS: '16' .*CONFIG_NR_CPUS" BENCH_CPUS="2 16"
bad_knob "BENCH_CPUS twice" "^ERROR: bench-vm: BENCH_CPUS: .* twice" BENCH_CPUS="2 4 4"
bad_knob "BENCH_CPUS blank" "^ERROR: bench-vm: BENCH_CPUS is empty" BENCH_CPUS="  "
bad_knob "BENCH_SEEDS=yes" "^ERROR: bench-vm: BENCH_SEEDS: 'yes'" BENCH_SEEDS=yes
bad_knob "BENCH_SCALE_SUITE" "^ERROR: bench-vm: BENCH_SCALE_SUITE: " "BENCH_SCALE_SUITE=migrate;reboot"
bad_knob "BENCH_SCALE_MIGRATE_MIB=0" "^ERROR: bench-vm: BENCH_SCALE_MIGRATE_MIB: '0' " BENCH_SCALE_MIGRATE_MIB=0
bad_knob "BENCH_SCALE_COMPACTION_KEEP=1" "^ERROR: bench-vm: BENCH_SCALE_COMPACTION_KEEP: '1' .*from 2 to 512" BENCH_SCALE_COMPACTION_KEEP=1
bad_knob "BENCH_SCALE_REPS=0" "^ERROR: bench-vm: BENCH_SCALE_REPS: '0' " BENCH_SCALE_REPS=0
bad_knob "BENCH_BOOTS=0" "^ERROR: bench-vm: BENCH_BOOTS: '0' .*from 1 to 9" BENCH_BOOTS=0
bad_knob "BENCH_BOOTS=two" "^ERROR: bench-vm: BENCH_BOOTS: 'two' " BENCH_BOOTS=two

# bench-vm.sh end to end without a boot (BENCH_BASES empty: the report from
# the documents there): the knob reaches the report.
mkdir -p "$T/vmout/bin" "$T/vmout/bench"
ln -s "$MMBENCH" "$T/vmout/bin/mmbench"
cp "$B"/*.json "$T/vmout/bench/"
RC=0; OUT=$T/vmout BENCH_BASES='' BENCH_PROOF=0 BENCH_CPUS="4 2 8" bash "$tools/bench-vm.sh" > "$T/vm.out" 2>&1 || RC=$?
expect_eq "bench-vm, no boot: exit" 0 "$RC"
expect_line "bench-vm: counts sorted into columns" "| base | variant | 2 vCPUs | 4 vCPUs | 8 vCPUs |" "@$T/vmout/bench/REPORT.md"
expect_match "bench-vm: seeds on by default" '^## Seeds' "@$T/vmout/bench/REPORT.md"
expect_exists "bench-vm: chart" "$T/vmout/bench/scaling-migrate.png"
RC=0; OUT=$T/vmout BENCH_BASES='' BENCH_PROOF=0 BENCH_CPUS=2 BENCH_SEEDS=0 bash "$tools/bench-vm.sh" > "$T/vm2.out" 2>&1 || RC=$?
expect_eq "bench-vm BENCH_CPUS=2 BENCH_SEEDS=0: exit" 0 "$RC"
expect_no_match "bench-vm BENCH_CPUS=2 BENCH_SEEDS=0: no new section" '^## (Scaling|Seeds)' "@$T/vmout/bench/REPORT.md"

# bench-vm.sh's boot plan, with a stand-in for vmtest (a copy of
# tools/vmtest whose vmtest logs each boot's kernel and --cpus and runs the
# guest command on the host, with an mmbench that writes the fixture of the
# benchmark and shape it is asked for): one boot per kernel and vCPU count,
# each item once per boot, the documents named by count, the suite's
# document with the suite's results only.
P=$T/plan
mkdir -p "$P/top/tools" "$P/top/configs/kernel/guest" "$P/bin" "$P/out/bin" "$P/guest-tmp" "$P/k"
cp -r "$TOP/tools/vmtest" "$TOP/tools/kbuild" "$P/top/tools/"
cp "$TOP/configs/kernel/guest/guest.config" "$P/top/configs/kernel/guest/"
cat > "$P/top/tools/vmtest/vmtest" <<'STUB'
#!/bin/bash
# stand-in: vmtest boot KERNEL [opts] -- CMD...
set -eu
kernel=$2 cpus=2
shift 2
while [ "$1" != -- ]; do case $1 in --cpus) cpus=$2; shift 2 ;; --timeout | --log) shift 2 ;; *) shift ;; esac; done
shift
echo "boot $(basename "$kernel") cpus=$cpus" >> "$PLAN/boots"
cmd="$*"
FAKE_CPUS=$cpus PATH=$PLAN/bin:$PATH sh -c "${cmd//\/tmp\//$PLAN/guest-tmp/}"
STUB
cat > "$P/bin/mmbench" <<'STUB'
#!/bin/bash
# stand-in: mmbench BENCH [--shape S] ... -o FILE
b=$1 shape='' o='' size='' reps='' keep=''
shift
while [ $# -gt 0 ]; do case $1 in --shape) shape=$2; shift 2 ;; --size-mib) size=$2; shift 2 ;; --keep-every) keep=$2; shift 2 ;; --reps) reps=$2; shift 2 ;; -o) o=$2; shift 2 ;; *) shift ;; esac; done
echo "$b${shape:+:$shape} cpus=$FAKE_CPUS${size:+ size=$size}${keep:+ keep=$keep} reps=$reps" >> "$PLAN/runs"
[ -f "$FX/$b${shape:+-$shape}.json" ] || { echo "no fixture for $b" >&2; exit 2; }
jq --argjson n "$FAKE_CPUS" '.system.cpus_online = $n' "$FX/$b${shape:+-$shape}.json" > "$o"
STUB
chmod +x "$P/top/tools/vmtest/vmtest" "$P/bin/mmbench"
ln -s "$MMBENCH" "$P/out/bin/mmbench"
ids=()
for v in mmbatch vanilla; do
	: > "$P/k/bzImage-$v"
	printf 'IDENTITY_VERSION=1\nBASE=6.1\nVARIANT=%s\nIMAGE=%s\n' "$v" "$P/k/bzImage-$v" > "$P/k/$v.env"
	ids+=("$P/k/$v.env")
done
mkdir -p "$P/out/bench" && echo '{}' > "$P/out/bench/6.1-patched-cpus8.json"
RC=0; PLAN=$P FX=$fx OUT=$P/out BENCH_BUILDS="${ids[*]}" BENCH_BASES=6.1 BENCH_VARIANTS="patched vanilla" BENCH_CPUS="4 2" \
	BENCH_SUITE=fault,migrate BENCH_PROOF=0 bash "$P/top/tools/vmtest/bench-vm.sh" > "$P/vm.log" 2>&1 || RC=$?
expect_eq "plan: exit" 0 "$RC"
expect_eq "plan: the suite's boots in a row, then one per vCPU count and kernel, each count's kernels side by side" "boot bzImage-mmbatch cpus=2
boot bzImage-vanilla cpus=2
boot bzImage-mmbatch cpus=2
boot bzImage-vanilla cpus=2
boot bzImage-mmbatch cpus=4
boot bzImage-vanilla cpus=4" "$(cat "$P/boots")"
expect_eq "plan: migrate of the scaling boots on 4 MiB (BENCH_SCALE_MIGRATE_MIB) 3 times (BENCH_SCALE_REPS), the suite's on its own size 5 times (BENCH_REPS)" "migrate cpus=2 reps=5
migrate cpus=2 reps=5
migrate cpus=2 size=4 reps=3
migrate cpus=2 size=4 reps=3
migrate cpus=4 size=4 reps=3
migrate cpus=4 size=4 reps=3" "$(grep '^migrate ' "$P/runs")"
expect_eq "plan: compaction of the scaling boots keeps one page of 64 (BENCH_SCALE_COMPACTION_KEEP), the seeds' every other" "compaction cpus=2 reps=5
compaction cpus=2 reps=5
compaction cpus=2 keep=64 reps=3
compaction cpus=2 keep=64 reps=3
compaction cpus=4 keep=64 reps=3
compaction cpus=4 keep=64 reps=3" "$(grep '^compaction ' "$P/runs")"
expect_match "plan: the report names the scaling boots' options" 'each vCPU count, `--reps 3; migrate --size-mib 4; compaction --keep-every 64`' "@$P/out/bench/REPORT.md"
expect_eq "plan: the 2-vCPU boot runs each item once" "fault migrate compaction numa-hinting fault:page_fault2 munmap:ebizzy" \
	"$(awk '$2 == "cpus=2" {print $1}' "$P/runs" | head -n 6 | paste -sd ' ')"
expect_eq "plan: the 4-vCPU boot runs the scaling suite" "migrate compaction fault" "$(awk '$2 == "cpus=4" {print $1}' "$P/runs" | head -n 3 | paste -sd ' ')"
kinds() { jq -r '[.system.cpus_online] + [.results[] | "\(.benchmark)\(if .params.shape then ":" + .params.shape else "" end)"] | join(" ")' "$1" 2>&1; }
expect_eq "plan: the suite's document is the suite's" "2 fault migrate" "$(kinds "$P/out/bench/6.1-patched.json")"
expect_eq "plan: the 2-vCPU scaling document" "2 migrate compaction fault" "$(kinds "$P/out/bench/6.1-vanilla-cpus2.json")"
expect_eq "plan: the 4-vCPU scaling document" "4 migrate compaction fault" "$(kinds "$P/out/bench/6.1-patched-cpus4.json")"
expect_eq "plan: the seed document" "2 compaction numa-hinting fault:page_fault2 munmap:ebizzy" "$(kinds "$P/out/bench/6.1-vanilla-seeds.json")"
expect_eq "plan: another count's document stays" "{}" "$(cat "$P/out/bench/6.1-patched-cpus8.json")"
expect_line "plan: the report's columns" "| base | variant | 2 vCPUs | 4 vCPUs |" "@$P/out/bench/REPORT.md"
expect_exists "plan: the 4-vCPU boot's own console name" "$P/out/bench/6.1-patched-cpus4.out"

# BENCH_BOOTS=2: the 2-vCPU boots of the two kernels take turns, each
# boot's documents are kept, and the suite's and the seeds' documents hold
# the boots' medians.
: > "$P/boots"
: > "$P/runs"
RC=0; PLAN=$P FX=$fx OUT=$P/out BENCH_BUILDS="${ids[*]}" BENCH_BASES=6.1 BENCH_VARIANTS="patched vanilla" BENCH_CPUS=2 BENCH_BOOTS=2 \
	BENCH_SUITE=fault BENCH_PROOF=0 bash "$P/top/tools/vmtest/bench-vm.sh" > "$P/boots.log" 2>&1 || RC=$?
expect_eq "boots: exit" 0 "$RC"
expect_eq "boots: the kernels take turns" "boot bzImage-mmbatch cpus=2
boot bzImage-vanilla cpus=2
boot bzImage-mmbatch cpus=2
boot bzImage-vanilla cpus=2" "$(cat "$P/boots")"
for f in 6.1-patched-boot1 6.1-patched-boot2 6.1-vanilla-seeds-boot1 6.1-vanilla-seeds-boot2; do
	expect_exists "boots: each boot's own document ($f)" "$P/out/bench/$f.json"
done
expect_eq "boots: the suite's document is the boots' medians" "2 2 $(jq '.results[0].repetitions' "$fx/fault.json")" \
	"$(jq -r '[.boots, .results[0].repetitions, .results[0].params.reps_per_boot] | join(" ")' "$P/out/bench/6.1-patched.json")"
expect_eq "boots: so is the seeds' document" "2 compaction numa-hinting fault:page_fault2 munmap:ebizzy" \
	"$(jq -r '.boots' "$P/out/bench/6.1-vanilla-seeds.json") $(kinds "$P/out/bench/6.1-vanilla-seeds.json" | cut -d' ' -f2-)"
expect_match "boots: the report says how the 2-vCPU figures were made" "^Kernels booted more than once at 2 vCPUs" "@$P/out/bench/REPORT.md"
expect_match "boots: and how many boots each kernel had" '^\| patched \| `.*` \| `6.1-patched.json` \| 2 \|$' "@$P/out/bench/REPORT.md"
expect_exists "boots: compare ran on the merged documents" "$P/out/bench/6.1-patched-vs-vanilla-seeds.txt"
RC=0; PLAN=$P FX=$fx OUT=$P/out BENCH_BUILDS="${ids[*]}" BENCH_BASES=6.1 BENCH_VARIANTS=patched BENCH_CPUS=2 \
	BENCH_SUITE=fault BENCH_PROOF=0 bash "$P/top/tools/vmtest/bench-vm.sh" > "$P/boots1.log" 2>&1 || RC=$?
expect_absent "boots: a later run with one boot drops the kernel's old boot documents" "$P/out/bench/6.1-patched-boot2.json"
expect_eq "boots: and its document is one boot's again" "null" "$(jq -r '.boots' "$P/out/bench/6.1-patched.json")"

# bench-proof.sh --kernels (make bench-kernels): every build the proof's
# steps boot or read, each made once through build-kernel.sh (a stand-in
# that logs its knobs and writes an identity file) or found among
# BENCH_BUILDS, their identity files printed, and no boot.
cat > "$P/top/tools/vmtest/build-kernel.sh" <<'STUB'
#!/bin/bash
# stand-in: build-kernel.sh -o FILE [--config-only] KNOB...
o=$2
shift 2
echo "$*" >> "$PLAN/builds"
id=$PLAN/k/built-$(echo "$*" | sha256sum | cut -c1-8).env
printf 'IDENTITY_VERSION=1\nCONFIG=%s\n' "$PLAN/k/cfg" > "$id"
echo "$id" > "$o"
STUB
chmod +x "$P/top/tools/vmtest/build-kernel.sh"
: > "$P/boots"
: > "$P/builds"
for v in mmbatch vanilla; do
	printf 'IDENTITY_VERSION=1\nBASE=6.12\nVARIANT=%s\nIMAGE=%s\n' "$v" "$P/k/bzImage-$v" > "$P/k/6.12-$v.env"
	ids+=("$P/k/6.12-$v.env")
done
RC=0; PLAN=$P OUT=$P/out BENCH_BUILDS="${ids[*]}" bash "$P/top/tools/vmtest/bench-proof.sh" --kernels > "$P/kernels.out" 2> "$P/kernels.err" || RC=$?
expect_eq "bench-proof --kernels: exit" 0 "$RC"
expect_eq "bench-proof --kernels: boots nothing" "" "$(cat "$P/boots")"
frag=$P/top/configs/kernel/bench/lockstat.config
expect_eq "bench-proof --kernels: the builds made, once each" "$(for b in 6.1 6.12; do for n in 8 64 65 256 512 513 8192; do echo "--config-only FLAVOR=guest BASE=$b NR_CPUS=$n"; done; done
	echo "FLAVOR=guest BASE=6.1 NR_CPUS=256 FRAGMENTS=$frag"
	echo "FLAVOR=guest BASE=6.1 NR_CPUS=256 FRAGMENTS=$frag PATCHES=0"
	echo "FLAVOR=guest BASE=6.12 NR_CPUS=1024 FRAGMENTS=$frag"
	echo "FLAVOR=guest BASE=6.12 NR_CPUS=1024 FRAGMENTS=$frag PATCHES=0"
	echo "FLAVOR=guest BASE=6.1 EXTRA_PATCHES=$P/top/patches/test/6.1-migrate-skip-flush.patch")" "$(cat "$P/builds")"
expect_eq "bench-proof --kernels: every identity file, once" "23 23" "$(sort -u "$P/kernels.out" | wc -l) $(wc -l < "$P/kernels.out")"
expect_eq "bench-proof --kernels: the guest builds among them" "4" "$(grep -c '/k/\(6\.12-\)\?\(mmbatch\|vanilla\)\.env$' "$P/kernels.out")"
expect_absent "bench-proof --kernels: no proof written" "$P/out/bench/PROOF.md"
RC=0; PLAN=$P OUT=$P/out bash "$P/top/tools/vmtest/bench-proof.sh" --kernel > "$P/kbad.out" 2>&1 || RC=$?
expect_status "bench-proof --kernel (a typo)" 2 "$RC"
expect_eq "bench-proof --kernel: its one line" "usage: bench-proof.sh [--kernels]" "$(cat "$P/kbad.out")"
# A build that fails is named, and fails the run.
sed -i 's/^o=\$2$/o=$2; case "$*" in *PATCHES=0*) echo "build failed" >\&2; exit 1 ;; esac/' "$P/top/tools/vmtest/build-kernel.sh"
RC=0; PLAN=$P OUT=$P/out BENCH_BUILDS="${ids[*]}" PROOF_STEPS=lockstat bash "$P/top/tools/vmtest/bench-proof.sh" --kernels > "$P/kernels.out" 2> "$P/kernels.err" || RC=$?
expect_status "bench-proof --kernels, a build failing" 1 "$RC"
expect_match "bench-proof --kernels: the failed build named" "FAILED: no build for: BASE=6.1 NR_CPUS=256 FRAGMENTS=.* PATCHES=0" "@$P/kernels.err"
