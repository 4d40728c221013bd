#!/bin/bash
# Writes the bench-vm report: REPORT.md on stdout and report.json into
# BENCHDIR, from the mmbench documents BENCHDIR/<base>-<variant>.json and the
# compare outputs BENCHDIR/<base>-<B>-vs-<A>.txt that bench-vm.sh made.
#   bench-report.sh [--cpus "N..."] [--scale-opts TEXT] [--seeds] [--host TEXT] BENCHDIR "BASES" "VARIANTS" "MMBENCH OPTIONS"
# A 2-vCPU document made of several boots (its `boots`, bench-vm.sh's
# BENCH_BOOTS) is named so in the heading and in its base's kernel table;
# --cpus: the vCPU counts of the scaling tables and charts (bench-scaling.sh;
# none when the list is just "2", so such a report is the 2-vCPU one alone);
# --scale-opts: the mmbench options of the scaling boots, as the heading
# names them;
# --seeds: the per-seed table (bench-seeds.sh). Both come after the anchors,
# and go into report.json as "scaling" and "seeds". --host: the run's host
# and its load (bench-vm.sh: bench_host_desc, load average at the start and
# the end), printed under the heading.
# Reads: nothing else.
set -eu

usage() { echo "usage: bench-report.sh [--cpus \"N...\"] [--scale-opts TEXT] [--seeds] [--host TEXT] BENCHDIR \"BASES\" \"VARIANTS\" \"MMBENCH OPTIONS\"" >&2; exit 2; }
cpus=2 seeds=0 host='' scale_opts=''
while [ $# -gt 0 ]; do
	case $1 in
	--cpus) [ $# -ge 2 ] || usage; read -ra cpu_list <<< "$2"; cpus=${cpu_list[*]}; shift 2 ;;
	--scale-opts) [ $# -ge 2 ] || usage; scale_opts=$2; shift 2 ;;
	--seeds) seeds=1; shift ;;
	--host) [ $# -ge 2 ] || usage; host=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 4 ] && [ -d "$1" ] && [ -n "$cpus" ] || usage
dir=$1 bases=$2 variants=$3 opts=$4
here=$(dirname "$0")

# verdict FILE BENCH METRIC: the verdict column of a compare table row.
verdict() {
	[ -f "$1" ] || { echo "-"; return; }
	awk -v b="$2" -v m="$3" '$1 == b && $2 == m { v = $0; sub(/^.*\] +/, "", v) } END { print (v == "" ? "-" : v) }' "$1"
}
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

# boots_of FILE: how many boots the document's figures come from (1 unless
# bench_merge_boots made it).
boots_of() { jq -r '.boots // 1' "$1" 2>/dev/null || echo 1; }
boots_text=''
for f in "$dir"/*.json; do
	[ -f "$f" ] && [ "$(boots_of "$f")" != 1 ] || continue
	boots_text="
Kernels booted more than once at 2 vCPUs (\`BENCH_BOOTS\`, the column \"boots\" below) took turns with their twins: their
2-vCPU figures are the median of the boots' medians, and \`mmbench compare\` takes its interval over the boots
(one value per boot; each boot's own documents: \`<base>-<variant>[-seeds]-boot<k>.json\`)."
	break
done
cat <<HEAD
# mmbatch side-by-side benchmark

Generated $(date -u +%Y-%m-%dT%H:%MZ) by \`make bench-vm\` (reproduce with exactly that; \`BENCH_REPS=N\`,
\`BENCH_BASES\`, \`BENCH_VARIANTS\` narrow it).${host:+
Host: $host.}
Every kernel boots under qemu with the same busybox initramfs, 2 NUMA nodes (1 GiB each), and runs every
benchmark of the suite in one boot at 2 vCPUs: \`mmbench <benchmark> $opts\`; the scaling boots (below)
run their benchmarks at each vCPU count${scale_opts:+, \`$scale_opts\`}.${boots_text}
Variants: **patched** = our guest flavor with the series, **vanilla** = same source and config with
\`PATCHES=0\`, **stock** = Debian's \`linux-image-*-amd64-unsigned\` of the same base.
Under TCG emulation rates and times are only comparable with each other on this run; counts (IPIs per
1000 pages, pages left in per-CPU lists) do not depend on the emulation speed.
Ratios are patched/vanilla and patched/stock medians; verdicts come from \`mmbench compare\` (95%
bootstrap CI of the difference of medians: better/same/worse; "info" = metric without a better side).

HEAD

# The headline rows (also shown in the README): one line per key metric.
# med BASE VARIANT BENCH METRIC: the median, or "-".
med() {
	local f=$dir/$1-$2.json
	[ -f "$f" ] || { echo -; return; }
	jq -r --arg b "$3" --arg m "$4" 'first(.results[] | select(.benchmark == $b) | (.metrics // [])[] | select(.name == $m) | .median) // "-"' "$f"
}
echo "## Summary"
echo
echo "| base | metric | patched | vanilla | stock | patched/vanilla (verdict) | patched/stock (verdict) |"
echo "|---|---|---|---|---|---|---|"
for base in $bases; do
	while IFS='|' read -r b m label; do
		p=$(med "$base" patched "$b" "$m") va=$(med "$base" vanilla "$b" "$m") st=$(med "$base" stock "$b" "$m")
		[ "$p$va$st" != "---" ] || continue
		echo "| $base | $b: $label | $(fmt "$p") | $(fmt "$va") | $(fmt "$st") | $(ratio "$p" "$va") ($(verdict "$dir/$base-patched-vs-vanilla.txt" "$b" "$m")) | $(ratio "$p" "$st") ($(verdict "$dir/$base-patched-vs-stock.txt" "$b" "$m")) |"
	done <<'ROWS'
migrate|tlb_ipis_per_1000_pages|remote TLB IPIs per 1000 migrated pages
migrate|pages_per_s|migrated pages/s
fault|pages_per_s|faulted pages/s
munmap|munmap_ops_per_s|munmap ops/s
exitdrain|4k_pcp_kib_100ms|KiB in per-CPU free lists 100 ms after the exit
integrity|small_corrupt_bytes|corrupt bytes (256 pages, 1 writer)
integrity|large_corrupt_bytes|corrupt bytes (large buffer)
ROWS
done
echo

json_bases='{}'
for base in $bases; do
	echo "## Base $base"
	echo
	echo "| variant | kernel release | document | boots |"
	echo "|---|---|---|---|"
	for v in $variants; do
		f=$dir/$base-$v.json
		if [ -f "$f" ]; then
			echo "| $v | \`$(jq -r .system.kernel_release "$f")\` | \`$base-$v.json\` | $(boots_of "$f") |"
		else
			echo "| $v | (missing: no kernel or no result, see bench-vm output) | - | - |"
		fi
	done
	echo
	echo "| benchmark | metric | unit | better | patched | vanilla | stock | patched/vanilla | verdict vs vanilla | patched/stock | verdict vs stock |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	# Rows: every metric any variant reported, in the order of the first document.
	rows=$(for v in $variants; do f=$dir/$base-$v.json; [ -f "$f" ] && jq -r '.results[] | .benchmark as $b | (.metrics // [])[] | [$b, .name, .unit, .better] | @tsv' "$f"; done | awk '!seen[$1 FS $2]++')
	json_rows='[]'
	while IFS=$'\t' read -r b m unit better; do
		[ -n "$b" ] || continue
		declare -A med=()
		for v in patched vanilla stock; do
			f=$dir/$base-$v.json
			med[$v]=-
			[ -f "$f" ] && med[$v]=$(jq -r --arg b "$b" --arg m "$m" 'first(.results[] | select(.benchmark == $b) | (.metrics // [])[] | select(.name == $m) | .median) // "-"' "$f")
		done
		rv=$(ratio "${med[patched]}" "${med[vanilla]}") rs=$(ratio "${med[patched]}" "${med[stock]}")
		vv=$(verdict "$dir/$base-patched-vs-vanilla.txt" "$b" "$m") vs=$(verdict "$dir/$base-patched-vs-stock.txt" "$b" "$m")
		echo "| $b | $m | $unit | $better | $(fmt "${med[patched]}") | $(fmt "${med[vanilla]}") | $(fmt "${med[stock]}") | $rv | $vv | $rs | $vs |"
		json_rows=$(jq -c --arg b "$b" --arg m "$m" --arg u "$unit" --arg be "$better" \
			--arg p "${med[patched]}" --arg va "${med[vanilla]}" --arg s "${med[stock]}" \
			--arg rv "$rv" --arg rs "$rs" --arg vv "$vv" --arg vs "$vs" \
			'def num: if . == "-" then null else tonumber end;
			 . + [{benchmark: $b, metric: $m, unit: $u, better: $be,
			       median: {patched: ($p|num), vanilla: ($va|num), stock: ($s|num)},
			       ratio: {patched_vs_vanilla: ($rv|num), patched_vs_stock: ($rs|num)},
			       verdict: {patched_vs_vanilla: $vv, patched_vs_stock: $vs}}]' <<< "$json_rows")
	done <<< "$rows"
	json_bases=$(jq -c --arg base "$base" --argjson rows "$json_rows" '. + {($base): $rows}' <<< "$json_bases")
	echo
	for pair in patched-vs-vanilla patched-vs-stock vanilla-vs-stock; do
		f=$dir/$base-$pair.txt
		[ -f "$f" ] || continue
		echo "### $base: $pair (\`mmbench compare\`, baseline = ${pair##*-vs-})"
		echo
		echo '```'
		cat "$f"
		echo '```'
		[ -f "$dir/$base-$pair.png" ] && echo && echo "![$base $pair]($base-$pair.png)"
		echo
	done
done

cat <<'ANCHORS'
## Anchors: what each change's mailing-list thread reported

| change | thread | published figure | where to look here |
|---|---|---|---|
| migration TLB batching | "migrate_pages: batch flushing TLB" (Huang Ying, upstream in 6.3; first tried by Mel Gorman 2015, "TLB flush multiple pages per IPI" 4/4) | migration IPIs −99.1%, pages migrated/s +291.7% (2-socket Intel, pmbench + migratepages); Mel Gorman 2015: peak interrupts 345K/s → 10K/s | `migrate tlb_ipis_per_1000_pages` and `pages_per_s`, base 6.1 patched vs vanilla (6.12 has it in base: patched ≈ vanilla ≈ stock) |
| larger per-CPU page batch (15 → 31) | Tim Chen 2020 (not merged), upstream 6.9 "mm: increase folio batch size" | LRU-lock contention 8.9% → 2.2% of cycles, pmbench 88.8 → 95.1 Mpages/s (96 threads); LKP will-it-scale page_fault2 +12.5% (104 threads) | `fault pages_per_s`, `munmap` rates (a 2-vCPU guest sees little lock contention: expect small changes) |
| per-CPU cache drain on exit | Lukasz Odzioba 2016 (upstream 4.7 "mm/swap.c: flush lru pvecs on compound page arrival"); our drain knob | (no throughput figure: the thread is about memory stranded in per-CPU lists) | `exitdrain` pages left after exit: stock 6.1 ≈ 0.7–1.5K pages, stock 6.12 ≈ 32–44K pages at +100 ms (measured here before, REFERENCE.md) |

Published figures come from large multi-socket machines; a 2-vCPU TCG guest shows the direction and the
per-page counts, not the magnitudes.
ANCHORS

extra='{}'
rm -f "$dir/seeds.json" "$dir/scaling.json"
if [ "$seeds" = 1 ]; then
	echo
	"$here/bench-seeds.sh" "$dir" "$bases"
	extra=$(jq -c --slurpfile s "$dir/seeds.json" '. + {seeds: $s[0]}' <<< "$extra")
fi
if [ "$cpus" != 2 ]; then
	echo
	"$here/bench-scaling.sh" "$dir" "$bases" "$variants" "$cpus"
	extra=$(jq -c --slurpfile s "$dir/scaling.json" '. + {scaling: $s[0]}' <<< "$extra")
fi

jq -n --argjson bases "$json_bases" --arg generated "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson extra "$extra" \
	'{schema: "mmbatch-bench-vm/1", generated: $generated, bases: $bases} + $extra' > "$dir/report.json"
