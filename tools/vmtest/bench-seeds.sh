#!/bin/bash
# The per-seed table of the bench-vm report: for each thread the series
# descends from (tools/vmtest/bench-seeds.tsv), its published figure beside
# our patched, vanilla and stock medians of the same shape of workload, read
# from the documents BENCHDIR/<base>-<variant>-seeds.json that bench-vm.sh
# writes (the 2-vCPU boot, BENCH_SEEDS=1), and the ratios. Markdown on
# stdout, the same as JSON in BENCHDIR/seeds.json.
#   bench-seeds.sh BENCHDIR "BASES"
# A missing document or result is "not run", never a number (bench-lib.sh
# bench_cell). Reads: nothing else.
set -eu

usage() { echo "usage: bench-seeds.sh BENCHDIR \"BASES\"" >&2; exit 2; }
[ $# -eq 2 ] && [ -d "$1" ] || usage
dir=$1 bases=$2
seeds=$(dirname "$0")/bench-seeds.tsv
[ -r "$seeds" ] || { echo "ERROR: bench-seeds: no $seeds" >&2; exit 1; }
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

# workload ITEM METRIC: the mmbench command line and metric, as the table shows them.
workload() {
	local cmd="mmbench ${1%%:*}"
	[ "$1" = "${1#*:}" ] || cmd+=" --shape ${1#*:}"
	echo "\`$cmd\` \`$2\`"
}

cat <<'HEAD'
## Seeds: each thread's own scenario on our kernels

One row per mailing-list thread the series descends from: the figure it published, and our medians of
the same shape of workload (`<base>-<variant>-seeds.json`, the 2-vCPU boot of each kernel; which
parameters each mmbench shape follows: `docs/developing/bench-shapes.md`). "seed after/before" is the
published figure as a ratio in the direction of our patched/vanilla ratio of the same metric ("-": the
thread gives no before/after we can read). "not run": no document or no such result; "skipped" and
"failed" are mmbench's statuses (the reason is in the document). The threads measured machines with 96
to 104 CPUs; a 2-vCPU guest shows the direction, not the magnitude (the scaling tables below show the
trend with vCPUs).

HEAD

rows='[]'
for base in $bases; do
	echo "### Seeds, base $base"
	echo
	echo "| seed | its scenario | its figure | seed after/before | our workload | patched | vanilla | stock | patched/vanilla | patched/stock | expected |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	while IFS=$'\t' read -r key change scenario figure seed_ratio item metric expect; do
		case $key in '#'* | '') continue ;; esac
		declare -A cell=()
		for v in patched vanilla stock; do
			cell[$v]=$(bench_cell "$dir/$base-$v-seeds.json" "$item" "$metric")
		done
		rv=$(cell_ratio "${cell[patched]}" "${cell[vanilla]}") rs=$(cell_ratio "${cell[patched]}" "${cell[stock]}")
		echo "| $change | $scenario | $figure | $seed_ratio | $(workload "$item" "$metric") | $(cell_text "${cell[patched]}") | $(cell_text "${cell[vanilla]}") | $(cell_text "${cell[stock]}") | $rv | $rs | $expect |"
		rows=$(jq -c --arg base "$base" --arg key "$key" --arg change "$change" --arg scenario "$scenario" \
			--arg figure "$figure" --arg sr "$seed_ratio" --arg item "$item" --arg metric "$metric" --arg expect "$expect" \
			--arg p "${cell[patched]}" --arg va "${cell[vanilla]}" --arg s "${cell[stock]}" --arg rv "$rv" --arg rs "$rs" '
			def num: if test("^-?[0-9.]+([eE][-+]?[0-9]+)?$") then tonumber else null end;
			. + [{base: $base, seed: $key, change: $change, scenario: $scenario, figure: $figure,
			      seed_after_over_before: ($sr|num),
			      benchmark: ($item | split(":")[0]), shape: ($item | split(":")[1]), metric: $metric,
			      median: {patched: ($p|num), vanilla: ($va|num), stock: ($s|num)},
			      cell: {patched: $p, vanilla: $va, stock: $s},
			      ratio: {patched_vs_vanilla: ($rv|num), patched_vs_stock: ($rs|num)},
			      expected: $expect}]' <<< "$rows")
	done < "$seeds"
	echo
done

# The goals of the seed scenarios (issue 17), patched against vanilla of the
# same base, from the same documents: on 6.1, where our batching is the
# change, compaction's TLB IPIs per 1000 migrated pages at most 1/20 of
# vanilla's and its peak IPIs/s at most 1/10; wherever the series is not
# expected to help (every scenario on 6.12, numa-hinting on 6.1), no
# regression: mmbench compare's verdict on vanilla -> patched
# (BENCHDIR/<base>-patched-vs-vanilla-seeds.txt, bench-vm.sh) is same or
# better. A goal without figures or a verdict is "-", never met.
# compare_verdict BASE BENCH METRIC: that verdict, or "-".
compare_verdict() {
	local f=$dir/$1-patched-vs-vanilla-seeds.txt
	[ -f "$f" ] || { echo -; return; }
	awk -v b="$2" -v m="$3" '$1 == b && $2 == m { v = $0; sub(/^.*\] +/, "", v) } END { print (v == "" ? "-" : v) }' "$f"
}
echo "### Goals of the seed scenarios"
echo
echo "| base | goal | our workload | patched | vanilla | patched/vanilla | mmbench compare | met |"
echo "|---|---|---|---|---|---|---|---|"
goals='[]'
while IFS='|' read -r gbase item metric kind limit text; do
	case " $bases " in *" $gbase "*) ;; *) continue ;; esac
	p=$(bench_cell "$dir/$gbase-patched-seeds.json" "$item" "$metric") va=$(bench_cell "$dir/$gbase-vanilla-seeds.json" "$item" "$metric")
	r=$(cell_ratio "$p" "$va") cv=$(compare_verdict "$gbase" "${item%%:*}" "$metric") met=-
	case $kind in
	ratio) [ "$r" = - ] || met=$(awk -v r="$r" -v l="$limit" 'BEGIN { print (r <= l) ? "yes" : "no" }') ;;
	verdict) case $cv in same | better) met=yes ;; worse*) met=no ;; esac ;;
	esac
	echo "| $gbase | $text | $(workload "$item" "$metric") | $(cell_text "$p") | $(cell_text "$va") | $r | $cv | $met |"
	goals=$(jq -c --arg base "$gbase" --arg goal "$text" --arg item "$item" --arg metric "$metric" --arg r "$r" --arg cv "$cv" --arg met "$met" \
		'. + [{base: $base, goal: $goal, benchmark: ($item | split(":")[0]), shape: ($item | split(":")[1]), metric: $metric,
		       ratio: ($r | tonumber? // null), compare: $cv, met: (if $met == "yes" then true elif $met == "no" then false else null end)}]' <<< "$goals")
done <<'GOALS'
6.1|compaction|tlb_ipis_per_1000_migrated_pages|ratio|0.05|TLB IPIs per 1000 compaction-migrated pages at most 1/20 of vanilla
6.1|compaction|tlb_ipis_per_s_peak|ratio|0.1|peak TLB IPIs/s at most 1/10 of vanilla (a rate: TCG)
6.1|numa-hinting|tlb_ipis_per_1000_hint_faults|verdict|-|numa-hinting: same or better
6.12|compaction|tlb_ipis_per_1000_migrated_pages|verdict|-|compaction: same or better
6.12|compaction|tlb_ipis_per_s_peak|verdict|-|compaction peak IPIs/s: same or better
6.12|numa-hinting|tlb_ipis_per_1000_hint_faults|verdict|-|numa-hinting: same or better
6.12|fault:page_fault2|pages_per_s|verdict|-|page_fault2: same or better
6.12|munmap:ebizzy|munmap_sys_s|verdict|-|ebizzy: same or better
GOALS
echo
jq -n --argjson rows "$rows" --argjson goals "$goals" '{vcpus: 2, rows: $rows, goals: $goals}' > "$dir/seeds.json"
