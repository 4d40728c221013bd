#!/bin/bash
# The scaling tables of the bench-vm report: per base and variant, a count
# per 1000 pages at each vCPU count, read from the documents
# BENCHDIR/<base>-<variant>-cpus<N>.json that bench-vm.sh writes (one boot
# per kernel and vCPU count, BENCH_CPUS). Markdown on stdout, the same as
# JSON in BENCHDIR/scaling.json, and one gnuplot chart per table,
# BENCHDIR/scaling-<benchmark>.png (x: vCPUs, one line per base and variant).
#   bench-scaling.sh BENCHDIR "BASES" "VARIANTS" "CPUS"
# A cell without a figure says why (bench-lib.sh bench_cell: "not run",
# "n/a (no lock_stat)", ...), never 0, and is left out of the chart. A chart
# gnuplot cannot draw is named in the markdown and on stderr; the tables are
# written all the same. Reads: PATH (gnuplot, jq).
set -eu

usage() { echo "usage: bench-scaling.sh BENCHDIR \"BASES\" \"VARIANTS\" \"CPUS\"" >&2; exit 2; }
[ $# -eq 4 ] && [ -d "$1" ] || usage
dir=$1 bases=$2 variants=$3 cpus=$4
# shellcheck source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"
note() { echo "bench-scaling: $*" >&2; }

# The tables: benchmark, metric, what the count is, where the figures come
# from. Counts, not rates: they are what stays exact when TCG runs more
# vCPUs than the host has cores. "suite": bench-vm's scaling documents;
# "lockstat": the proof's LOCK_STAT builds of patched and vanilla (no other
# kernel counts lru_lock acquisitions; stock reads its suite documents,
# which say so).
TABLES='migrate|tlb_ipis_per_1000_pages|TLB IPIs received per 1000 migrated pages|suite
compaction|tlb_ipis_per_1000_migrated_pages|TLB IPIs received per 1000 pages compaction migrated|suite
fault|lru_lock_acq_per_1000_pages|lru_lock acquisitions per 1000 faulted pages (LOCK_STAT builds of the proof, NR_CPUS 256 on 6.1 and 1024 on 6.12)|lockstat'

# doc_of SOURCE BASE VARIANT N: the document of one cell.
doc_of() {
	if [ "$1" = lockstat ] && [ "$3" != stock ]; then
		if [ "$4" = 2 ]; then echo "$dir/proof-lockstat-$2-$3-fault.json"; else echo "$dir/proof-lockstat-$2-$3-cpus$4-fault.json"; fi
	else
		echo "$dir/$2-$3-cpus$4.json"
	fi
}

# draw_chart PNG TITLE DATA SERIES...: DATA holds one gnuplot data block per
# SERIES ("base variant", in order; blocks apart by two blank lines, lines
# "vcpus value"). Colour by variant, dash by base; a log y axis when every
# figure is above 0 and they span a factor of 10 or more (unbatched and
# batched counts differ by hundreds). Drawn into a temp name, then renamed,
# so a failed run leaves no PNG. Prints gnuplot's first error line on failure.
draw_chart() {
	local png=$1 title=$2 data=$3 i=0 s base variant colour dash plot='' logy lo hi
	shift 3
	lo=$(tr ' ' '\n' <<< "$cpus" | sort -n | sed -n '/./{p;q}') hi=$(tr ' ' '\n' <<< "$cpus" | sort -n | tail -n 1)
	logy=$(awk 'NF == 2 { if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 }
		END { print (min > 0 && max / min >= 10) ? "set logscale y; set ylabel \"per 1000 pages (log scale)\"" : "" }' "$data")
	for s in "$@"; do
		base=${s% *} variant=${s#* }
		case $variant in patched) colour=0x2e8b57 ;; vanilla) colour=0xcc2222 ;; *) colour=0x888888 ;; esac
		dash=$(($(tr ' ' '\n' <<< "$bases" | grep -nxF -- "$base" | cut -d: -f1) + 0))
		[ "$dash" -ge 1 ] || dash=1
		plot+="${plot:+, }'$data' index $i using 1:2 with linespoints lw 2 pt 7 dt $dash lc rgb '#${colour#0x}' title '$s'"
		i=$((i + 1))
	done
	gnuplot > "$png.log" 2>&1 <<-GP || { sed -n '/./{p;q}' "$png.log"; rm -f "$png.tmp.png" "$png.log"; return 1; }
		set terminal pngcairo size 900,600
		set output '$png.tmp.png'
		set title '$title' noenhanced
		set xlabel 'vCPUs'
		set ylabel 'per 1000 pages'
		$logy
		set xtics ($(tr ' ' ',' <<< "$cpus"))
		set xrange [$((lo - 1)):$((hi + 1))]
		set key outside right noenhanced
		set grid
		plot $plot
	GP
	rm -f "$png.log"
	mv "$png.tmp.png" "$png"
}

host_cores=$(nproc)
over=$(for n in $cpus; do [ "$n" -le "$host_cores" ] || echo "$n"; done | paste -sd ' ')
if [ -n "$over" ]; then
	over="at ${over// /, } vCPUs there are more vCPUs than host cores ($host_cores on the machine that wrote this report)"
else
	over="here no count exceeds the host's $host_cores cores, but other guests and builds share them"
fi
cat <<HEAD
## Scaling with vCPUs

Each kernel runs \`mmbench {migrate,compaction,fault}\` at ${cpus// /, } vCPUs (\`BENCH_CPUS\`; 2 NUMA nodes, the
vCPUs spread over them, the same memory): the 2-vCPU figures come from the suite's own boot, every
other count from a boot of its own (documents \`<base>-<variant>-cpus<N>.json\`). Unbatched migration
flushes each page on every other CPU that runs the mm, so its IPIs per 1000 pages grow with the
vCPUs; batched migration should stay near one IPI per batch per CPU. The lru_lock is taken about once
per per-CPU batch, so its count per 1000 pages follows the batch size rather than the vCPUs, until
CPUs contend.

**Under TCG the counts are exact and the rates are not.** qemu runs each vCPU as a host thread, and
$over. The guest kernel counts every IPI it receives and every lru_lock acquisition however slowly
its vCPUs run, so these per-1000-page counts compare across vCPU counts; rates (pages/s, IPIs/s) and
times do not, which is why no rate is tabled here. The lru_lock table comes from the proof's LOCK_STAT
builds of patched and vanilla (the same guest flavor with \`configs/kernel/bench/lockstat.config\`, at the
NR_CPUS that gives each base its larger batch), booted at each of these counts (\`PROOF_LOCKSTAT_CPUS\`).
"not run": no document or no such result; "n/a (no lock_stat)": the kernel has no CONFIG_LOCK_STAT, so
it cannot count lru_lock acquisitions (Debian's stock kernels).

HEAD

tables='[]'
while IFS='|' read -r b m title source; do
	echo "### $title (\`$b\` \`$m\`)"
	echo
	printf '| base | variant |'; for n in $cpus; do printf ' %s vCPUs |' "$n"; done; echo
	printf '|---|---|'; for n in $cpus; do printf -- '---|'; done; echo
	data=$dir/scaling-$b.dat series=() json_rows='[]'
	: > "$data"
	for base in $bases; do
		for v in $variants; do
			line="| $base | $v |" points='' cells=''
			for n in $cpus; do
				c=$(bench_cell "$(doc_of "$source" "$base" "$v" "$n")" "$b" "$m") t=$(cell_text "$c") value=null
				line+=" $t |"
				is_number "$c" && points+="$n $c"$'\n' value=$c
				# JSON built here, not by a jq per cell (the report is
				# rebuilt often): every text is a number or one of
				# bench_cell's fixed words, nothing to escape.
				cells+="${cells:+,}{\"vcpus\":$n,\"value\":$value,\"text\":\"$t\"}"
			done
			echo "$line"
			json_rows=$(jq -c --arg base "$base" --arg v "$v" --argjson cells "[$cells]" '. + [{base: $base, variant: $v, cells: $cells}]' <<< "$json_rows")
			if [ -n "$points" ]; then
				[ ${#series[@]} -eq 0 ] || printf '\n\n' >> "$data"
				printf '%s' "$points" >> "$data"
				series+=("$base $v")
			fi
		done
	done
	echo
	png=scaling-$b.png chart=null
	if [ ${#series[@]} -eq 0 ]; then
		echo "(no chart: no figure in this table)"
		rm -f "$dir/$png"
	elif why=$(draw_chart "$dir/$png" "$title vs vCPUs" "$data" "${series[@]}"); then
		echo "![$title vs vCPUs]($png)"
		chart="\"$png\""
	else
		echo "(chart not drawn: gnuplot: ${why:-no output})"
		note "$png not drawn: gnuplot: ${why:-no output}"
	fi
	rm -f "$data"
	echo
	tables=$(jq -c --arg b "$b" --arg m "$m" --arg t "$title" --argjson chart "$chart" --argjson rows "$json_rows" \
		'. + [{benchmark: $b, metric: $m, title: $t, chart: $chart, rows: $rows}]' <<< "$tables")
done <<< "$TABLES"
jq -n --argjson tables "$tables" --arg cpus "$cpus" \
	'{vcpus: ($cpus | split(" ") | map(select(. != "") | tonumber)), host_cores: '"$host_cores"',
	  note: "under TCG the counts are exact and the rates are not (more vCPUs than host cores)", tables: $tables}' > "$dir/scaling.json"
