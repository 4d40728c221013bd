#!/bin/bash
# bench-debug: what the debug checkers cost (`make bench-debug`, not part of
# check). For each base, boots in turn the guest build ("normal") and its
# debug build (DEBUG=1: lockdep, PROVE_RCU, KASAN outline, DEBUG_VM, ...;
# mk/kernel.mk) with the same busybox initramfs, vCPUs, NUMA nodes and
# memory, runs the mmbench suite in each (bench-lib.sh bench_run_suite, as
# bench-vm does), and writes
#   $OUT/bench/<base>-normal.json, <base>-debug.json  the mmbench documents
#   $OUT/bench/DEBUG.md    per benchmark metric: normal median, debug median,
#                          debug/normal; kernels, host, load, seconds per boot
#   $OUT/bench/debug.json  the same as JSON
# Each guest dumps its kernel log after the suite (tests/vm/lib.sh); the
# reports tests/vm/host.sh's splat scan finds in it and in the console are
# listed, and any of them makes the run exit 1 (the figures are still
# written).
# Reads: BENCH_BUILDS (identity files: the guest and the debug build of each
#   base; `make bench-debug` builds them first), OUT, BENCH_BASES (default
#   "6.12 6.1"), BENCH_SUITE (default fault,migrate,munmap,exitdrain,integrity),
#   BENCH_REPS (default 5), BENCH_QUICK=1 (the benchmarks' --quick sizes),
#   BENCH_TIMEOUT (seconds per boot, default 3600), BENCH_MEM (MiB for both
#   guests, default 3072: KASAN's shadow and lockdep need room), VMTEST_*.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
bases=${BENCH_BASES:-6.12 6.1}
suite=${BENCH_SUITE:-fault,migrate,munmap,exitdrain,integrity}
reps=${BENCH_REPS:-5}
quick=${BENCH_QUICK:-}
[ "$quick" != 0 ] || quick=
timeout=${BENCH_TIMEOUT:-3600}
mem=${BENCH_MEM:-3072}
bench=$out/bench
mkdir -p "$bench"
note() { echo "bench-debug: $*" >&2; }
# shellcheck source=tools/vmtest/bench-lib.sh
. "$here/bench-lib.sh"
# shellcheck source=tests/vm/host.sh
. "$top/tests/vm/host.sh"
command -v jq >/dev/null || { echo "ERROR: bench-debug: jq is missing (make deps-vm)" >&2; exit 1; }
for f in "$out/bin/static/mmbench" "$out/bin/mmbatchd"; do
	[ -x "$f" ] || { echo "ERROR: bench-debug: no $f (make tools)" >&2; exit 1; }
done

# One initramfs for every boot: the quick path's (busybox, static mmbench, mmbatchd).
initramfs=$bench/debug-initramfs.cpio.gz
"$here/mkinitramfs.sh" -o "$initramfs" "$out/bin/static/mmbench:/usr/bin/mmbench" "$out/bin/mmbatchd:/usr/sbin/mmbatchd"
bench_boot_opts=(--initramfs "$initramfs" --mem "$mem" --add "$top/tests/vm/lib.sh")
# shellcheck disable=SC2034 # bench_run_suite reads it
bench_guest_tail='. ./lib.sh; vm_dump_kernel_log'

host_desc=$(bench_host_desc)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
accel=${VMTEST_ACCEL:-}
t0=$SECONDS splats_total=0
declare -A rel secs load splat_note
for base in $bases; do
	for variant in normal debug; do
		key=$base-$variant
		rm -f "$bench/$key.json" "$bench/$key.dmesg"
		rel[$key]=- secs[$key]=- load[$key]=- splat_note[$key]="not run"
		if [ $variant = normal ]; then id=$(bench_build "$base" patched); else id=$(bench_build "$base" debug); fi
		kernel=$(bid_get "$id" IMAGE)
		rel[$key]=$(bid_get "$id" KERNELRELEASE)
		[ -n "$accel" ] || accel=$("$here/vmtest" accel "$kernel" 2>/dev/null || echo "?")
		t1=$SECONDS
		bench_run_suite "$base" "$variant" "$kernel" || true
		secs[$key]=$((SECONDS - t1)) load[$key]=$(cut -d' ' -f1-3 /proc/loadavg)
		note "[$key] ${secs[$key]} s (load ${load[$key]})"
		# The splat scan: the dumped log and the console (without the dump).
		n=0 why='' first=''
		if why=$(guest_kernel_log "$bench/$key.out" "$bench/$key.dmesg"); then
			why="$(wc -l < "$bench/$key.dmesg") log lines"
			splat_console "$bench/$key.console" > "$bench/$key.console.scan"
			for f in "$bench/$key.dmesg" "$bench/$key.console.scan"; do
				while IFS=$'\t' read -r line kind text; do
					[ "$kind" = new ] || continue
					n=$((n + 1))
					[ -n "$first" ] || first="$(basename "${f%.scan}") line $line: $text"
				done < <(splat_reports "$f")
			done
			rm -f "$bench/$key.console.scan"
			splat_note[$key]="$n${first:+ (first: $first)}; $why scanned"
		else
			n=1 splat_note[$key]="log not dumped: $why"
		fi
		[ "$n" = 0 ] || note "[$key] kernel splats: ${splat_note[$key]}"
		splats_total=$((splats_total + n))
	done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# med FILE BENCH METRIC: a metric's median, or "-".
med() {
	[ -f "$1" ] || { echo -; return; }
	jq -r --arg b "$2" --arg m "$3" 'first(.results[] | select(.benchmark == $b) | (.metrics // [])[] | select(.name == $m) | .median) // "-"' "$1"
}
md=$bench/DEBUG.md.tmp
opts="--reps $reps${quick:+ --quick}"
{
	echo "# Debug kernel slowdown"
	echo
	echo "Generated $(date -u +%Y-%m-%dT%H:%MZ) by \`make bench-debug\`$([ -z "$quick" ] || echo " (\`BENCH_QUICK=1\`)") in $((SECONDS - t0)) s."
	echo "Host: $host_desc; load average $load_start at the start, $load_end at the end."
	echo "Each kernel boots under qemu ($accel) with the same busybox initramfs, 2 vCPUs, 2 NUMA nodes and"
	echo "$mem MiB, and runs every benchmark of the suite in one boot: \`mmbench <benchmark> $opts\`."
	echo "**normal** = the guest build of the base (the series applied), **debug** = the same with \`DEBUG=1\`"
	echo "(lockdep, PROVE_RCU, KASAN outline, DEBUG_VM, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_OBJECTS, SLUB_DEBUG)."
	echo "debug/normal is the ratio of medians: below 1 for a rate means the debug kernel is slower, above 1 for"
	echo "a time or a count means more. Under TCG on a shared host rates are indications; counts are exact."
	echo
	echo "| base | variant | kernel release | boot and suite (s) | load after | kernel splats |"
	echo "|---|---|---|---|---|---|"
	for base in $bases; do
		for variant in normal debug; do
			key=$base-$variant
			echo "| $base | $variant | \`${rel[$key]}\` | ${secs[$key]} | ${load[$key]} | ${splat_note[$key]} |"
		done
	done
	echo
} > "$md"
json_bases='{}'
for base in $bases; do
	n=$bench/$base-normal.json d=$bench/$base-debug.json
	{
		echo "## Base $base"
		echo
		echo "| benchmark | metric | unit | better | normal | debug | debug/normal |"
		echo "|---|---|---|---|---|---|---|"
	} >> "$md"
	rows=$(for f in "$n" "$d"; do [ -f "$f" ] && jq -r '.results[] | .benchmark as $b | (.metrics // [])[] | [$b, .name, .unit, .better] | @tsv' "$f"; done | awk '!seen[$1 FS $2]++')
	json_rows='[]'
	while IFS=$'\t' read -r b m unit better; do
		[ -n "$b" ] || continue
		mn=$(med "$n" "$b" "$m") mdb=$(med "$d" "$b" "$m") r=$(ratio "$(med "$d" "$b" "$m")" "$mn")
		echo "| $b | $m | $unit | $better | $(fmt "$mn") | $(fmt "$mdb") | $r |" >> "$md"
		json_rows=$(jq -c --arg b "$b" --arg m "$m" --arg u "$unit" --arg be "$better" --arg n "$mn" --arg d "$mdb" --arg r "$r" \
			'def num: if . == "-" then null else tonumber end;
			 . + [{benchmark: $b, metric: $m, unit: $u, better: $be, median: {normal: ($n|num), debug: ($d|num)}, debug_over_normal: ($r|num)}]' <<< "$json_rows")
	done <<< "$rows"
	echo >> "$md"
	json_bases=$(jq -c --arg base "$base" --argjson rows "$json_rows" \
		--arg rn "${rel[$base-normal]}" --arg rd "${rel[$base-debug]}" --arg sn "${secs[$base-normal]}" --arg sd "${secs[$base-debug]}" \
		--arg pn "${splat_note[$base-normal]}" --arg pd "${splat_note[$base-debug]}" \
		'. + {($base): {kernels: {normal: $rn, debug: $rd}, seconds: {normal: ($sn|tonumber? // null), debug: ($sd|tonumber? // null)},
		                splats: {normal: $pn, debug: $pd}, rows: $rows}}' <<< "$json_bases")
done
mv "$md" "$bench/DEBUG.md"
jq -n --argjson bases "$json_bases" --arg generated "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg host "$host_desc" \
	--arg l0 "$load_start" --arg l1 "$load_end" --arg opts "$opts" --arg mem "$mem" --arg accel "$accel" \
	'{schema: "mmbatch-bench-debug/1", generated: $generated, host: $host, load: {start: $l0, end: $l1},
	  accel: $accel, mem_mib: ($mem|tonumber), mmbench_options: $opts, bases: $bases}' > "$bench/debug.json"
note "wrote $bench/DEBUG.md, debug.json ($((SECONDS - t0)) s)"
[ "$splats_total" = 0 ] || { note "FAILED: kernel splats (see DEBUG.md)"; exit 1; }
