#!/bin/bash
# bench-ipi-sources: which kernel paths send the TLB-shootdown IPIs a
# benchmark counts (`make bench-ipi-sources`, not part of check). The
# benchmarks count IPIs by the /proc/interrupts TLB row, the machine's:
# every flush in the window counts, whoever sent it. To tell the series'
# flushes from the rest, this builds each base's guest kernel, patched and
# vanilla (PATCHES=0), with configs/kernel/bench/ipi-trace.config, boots it
# (2 NUMA nodes, IPI_CPUS vCPUs), puts two histogram triggers on the
# tlb:tlb_flush tracepoint (one keyed by the flush reason, one keyed by the
# kernel stack of each TLB_REMOTE_SEND_IPI) and runs the benchmark there.
# Writes
#   $OUT/bench/ipi-sources-<base>-<variant>.hist  the tracepoint's histograms
#   $OUT/bench/ipi-sources-<base>-<variant>.json  the mmbench document
#   $OUT/bench/IPI-SOURCES.md                      per kernel: the TLB row's
#       IPIs, the sends by reason and the sending stacks, most first
# One send interrupts every other CPU of its mask that is not in lazy TLB
# mode, so at 2 vCPUs a send is at most one IPI.
#   bench-ipi-sources.sh                 build, boot, report
#   bench-ipi-sources.sh --report        the report again, from the .hist and
#                                        .json files there (no build, no boot)
#   bench-ipi-sources.sh --summarize HIST  the stack table of one .hist file
# Reads: OUT, IPI_BASES (default 6.1), IPI_VARIANTS (default "patched
# vanilla"), IPI_BENCH (the mmbench arguments, default "numa-hinting --reps 3"),
# IPI_CPUS (default 2), IPI_FRAMES (stack frames per row, default 4),
# BENCH_TIMEOUT (per boot, default 1800).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
bench=$out/bench
frames=${IPI_FRAMES:-4}

# summarize HIST: the stacktrace histogram as a table, one row per path:
# the sends, then the stack's top frames, callee first, with the frames of
# the send itself and of the tracing (native_flush_tlb_multi, trace_*)
# left out and offsets dropped. Stacks that agree in those frames are one
# row (they differ below, e.g. in the interrupt a fault came in through),
# most sends first.
summarize() {
	awk -v max="$frames" '
		/^# trigger info: hist:keys=stacktrace/ { on = 1; next }
		/^# trigger info:/ { on = 0; next }
		!on { next }
		/^\{ stacktrace:/ { st = ""; n = 0; next }
		/^\} hitcount:/ { sends[st] += $3; total += $3; next }
		/^ +[A-Za-z_]/ {
			f = $1; sub(/\+0x.*/, "", f)
			if (f == "native_flush_tlb_multi" || f ~ /^trace_/ || n >= max) next
			st = st (n++ ? " ← " : "") "`" f "`"
		}
		END {
			if (!total) { print "| 0 | (no TLB_REMOTE_SEND_IPI) |"; exit }
			for (k in sends) printf "| %d | %s |\n", sends[k], k
		}
	' "$1" | sort -t'|' -k2,2nr -k3,3
}
# reasons HIST: "reason=count" pairs of the reason histogram (the names of
# enum tlb_flush_reason, include/linux/mm_types.h).
reasons() {
	awk '
		BEGIN { split("task_switch remote_shootdown local_shootdown local_mm_shootdown remote_send_ipi", name, " ") }
		/^# trigger info: hist:keys=reason/ { on = 1; next }
		/^# trigger info:/ { on = 0; next }
		on && /^\{ reason:/ { gsub(/[{}:]/, " "); r = $2 + 1; printf "%s%s %s", sep, (r in name ? name[r] : $2), $4; sep = ", " }
	' "$1"
}

bad_knob() { echo "ERROR: bench-ipi-sources: $1" >&2; exit 2; }
[[ $frames =~ ^[1-9][0-9]*$ ]] || bad_knob "IPI_FRAMES: '$frames' is not a positive count"
if [ "${1:-}" = --summarize ]; then
	[ $# = 2 ] && [ -f "$2" ] || { echo "usage: bench-ipi-sources.sh --summarize HIST" >&2; exit 2; }
	summarize "$2"
	exit 0
fi
boot=1
case "${1:-}" in
--report) boot=0; shift ;;
esac
[ $# = 0 ] || { echo "usage: bench-ipi-sources.sh [--report | --summarize HIST]" >&2; exit 2; }

bases=${IPI_BASES:-6.1}
variants=${IPI_VARIANTS:-patched vanilla}
bench_args=${IPI_BENCH:-numa-hinting --reps 3}
cpus=${IPI_CPUS:-2}
timeout=${BENCH_TIMEOUT:-1800}
for b in $bases; do case $b in 6.1 | 6.12) ;; *) bad_knob "IPI_BASES: '$b' is not 6.1 or 6.12" ;; esac; done
for v in $variants; do case $v in patched | vanilla) ;; *) bad_knob "IPI_VARIANTS: '$v' is not patched or vanilla" ;; esac; done
[[ $cpus =~ ^[0-9]+$ ]] && [ "$cpus" -ge 2 ] && [ "$cpus" -le 8 ] || bad_knob "IPI_CPUS: '$cpus' is not a vCPU count from 2 to 8"
[[ $bench_args =~ ^[a-z-]+( [-a-z0-9:.=_]+)*$ ]] || bad_knob "IPI_BENCH: '$bench_args' is not an mmbench command line"
mmbench=$out/bin/mmbench
[ "$boot" = 0 ] || [ -x "$mmbench" ] || { echo "ERROR: bench-ipi-sources: no $mmbench (make mmbench)" >&2; exit 1; }
mkdir -p "$bench/builds"
note() { echo "bench-ipi-sources: $*" >&2; }
# shellcheck source=tools/vmtest/bench-lib.sh
. "$here/bench-lib.sh"

frag=$top/configs/kernel/bench/ipi-trace.config
t=/sys/kernel/tracing/events/tlb/tlb_flush
# ">>": a write that truncates the trigger file removes its triggers.
guest_script="mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; \
echo 'hist:keys=reason:sort=reason' >> $t/trigger && \
echo 'hist:keys=stacktrace:sort=hitcount.descending if reason == 4' >> $t/trigger || echo '@@NOTRACE@@'; \
mmbench $bench_args -o /tmp/doc.json > /tmp/doc.log 2>&1; echo \"@@EXIT \$?@@\"; cat /tmp/doc.log; \
echo @@HIST@@; cat $t/hist; echo @@HIST-END@@; echo @@JSON@@; cat /tmp/doc.json 2>/dev/null; echo @@JSON-END@@"

rc=0
[ "$boot" = 0 ] || for base in $bases; do
	for variant in $variants; do
		name=$base-$variant
		knobs=(FLAVOR=guest "BASE=$base" "FRAGMENTS=$frag")
		[ "$variant" = patched ] || knobs+=(PATCHES=0)
		note "[$name] building: ${knobs[*]}"
		if ! "$here/build-kernel.sh" -o "$bench/builds/ipi-$name.path" "${knobs[@]}" >&2; then
			note "[$name] build failed"; rc=1; continue
		fi
		kernel=$(bid_get "$(cat "$bench/builds/ipi-$name.path")" IMAGE)
		o=$bench/ipi-sources-$name.out
		note "[$name] booting $kernel: mmbench $bench_args"
		"$here/vmtest" boot "$kernel" --cpus "$cpus" --timeout "$timeout" --log "$bench/ipi-sources-$name.console" -- "$guest_script" > "$o" || true
		sed -n '1,/^@@HIST@@$/p' "$o" | sed "s/^/[$name] /" >&2
		sed -n '/^@@HIST@@$/,/^@@HIST-END@@$/p' "$o" | sed '1d;$d' > "$bench/ipi-sources-$name.hist"
		sed -n '/^@@JSON@@$/,/^@@JSON-END@@$/p' "$o" | sed '1d;$d' > "$bench/ipi-sources-$name.json"
		exit_st=$(sed -n 's/^@@EXIT \([0-9]*\)@@.*/\1/p' "$o" | tail -n 1)
		if grep -q '^@@NOTRACE@@' "$o"; then
			note "[$name] the triggers could not be set: see $o"; rc=1
		fi
		if [ "${exit_st:-none}" != 0 ] || ! jq -e '.schema == "mmbench/1"' "$bench/ipi-sources-$name.json" >/dev/null 2>&1; then
			note "[$name] mmbench exit ${exit_st:-none}: see $o"; rc=1
		fi
	done
done

# The report, from the files of each kernel.
report=$bench/IPI-SOURCES.md.tmp
{
	echo "# Where the TLB-shootdown IPIs come from"
	echo
	echo "\`mmbench $bench_args\` at $cpus vCPUs, 2 NUMA nodes, on guest builds with"
	echo "\`configs/kernel/bench/ipi-trace.config\` ($(date -u +%Y-%m-%d), $(bench_host_desc))."
	echo "IPIs: the /proc/interrupts TLB row over the benchmark (its \`tlb_ipis\` metric, summed over the"
	echo "repetitions). Sends: \`tlb:tlb_flush\` events by reason over the whole boot's benchmark;"
	echo "each send interrupts the other CPUs of its mask that are not in lazy TLB mode."
} > "$report"
for base in $bases; do
	for variant in $variants; do
		name=$base-$variant
		if ! grep -q '^# trigger info: hist:keys=stacktrace' "$bench/ipi-sources-$name.hist" 2>/dev/null; then
			note "[$name] no histogram in $bench/ipi-sources-$name.hist"; rc=1
			printf '\n## %s %s\n\nno histogram (not run, or the triggers could not be set)\n' "$base" "$variant" >> "$report"
			continue
		fi
		ipis=$(jq -r '[.results[].metrics[] | select(.name == "tlb_ipis") | .values | add] | add // "-"' "$bench/ipi-sources-$name.json" 2>/dev/null || echo -)
		{
			echo
			echo "## $base $variant ($(jq -r '.system.kernel_release // "?"' "$bench/ipi-sources-$name.json" 2>/dev/null || echo ?))"
			echo
			echo "- IPIs (TLB row, summed over the repetitions): $ipis"
			by_reason=$(reasons "$bench/ipi-sources-$name.hist")
			echo "- flushes by reason: ${by_reason:-(no reason histogram)}"
			echo
			echo "| sends | stack (callee first) |"
			echo "| ---: | --- |"
			summarize "$bench/ipi-sources-$name.hist"
		} >> "$report"
	done
done
mv "$report" "$bench/IPI-SOURCES.md"
note "wrote $bench/IPI-SOURCES.md"
exit $rc
