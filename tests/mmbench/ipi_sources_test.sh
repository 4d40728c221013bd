#!/bin/bash
# make bench-ipi-sources' report (tools/vmtest/bench-ipi-sources.sh) on the
# tlb:tlb_flush histograms of two real boots (fixtures/ipi-sources/: 6.1
# patched and vanilla guests with configs/kernel/bench/ipi-trace.config,
# mmbench numa-hinting --reps 3, the boots of
# docs/results/2026-12-06-numa-hinting-ipis.md; the vanilla boot ran before
# the reason trigger was added with ">>", so it has only the stack
# histogram): no VM. The stack table: one row per path, its sends summing
# to the histogram's own total, the sender's and the tracing's frames left
# out, stacks that agree in the frames shown merged; the reason line; a
# kernel without a histogram reported as such and failing the run; bad
# knobs and arguments give one line and exit 2.
# Reads: MMBENCH, TOP (tests/mmbench/lib.sh).
# shellcheck disable=SC2016 # the patterns match markdown backquotes
. "$(dirname "$0")/lib.sh"
setup
tool=$TOP/tools/vmtest/bench-ipi-sources.sh
fx=$TOP/tests/mmbench/fixtures/ipi-sources

# sends TABLE: the sum of the first column of a stack table.
sends() { awk -F'|' '{ n += $2 } END { print n + 0 }' "$1"; }
# hits HIST: the stack histogram's own total (its "Hits:" line).
hits() { awk '/^# trigger info: hist:keys=stacktrace/ { on = 1 } on && /^ +Hits:/ { print $2; exit }' "$1"; }

run_cmd van "$tool" --summarize "$fx/6.1-vanilla.hist"
expect_eq "summarize: exit" 0 "$RC"
expect_eq "summarize: the most frequent path first, callee first, offsets dropped" \
	'| 379 | `flush_tlb_mm_range` ← `ptep_clear_flush` ← `try_to_migrate_one` ← `rmap_walk_anon` |' "$(head -n 1 "$T/van.out")"
expect_eq "summarize: the rows add up to the histogram's hits" "$(hits "$fx/6.1-vanilla.hist")" "$(sends "$T/van.out")"
expect_lacks "summarize: the sender's frame left out" "native_flush_tlb_multi" "@$T/van.out"
expect_lacks "summarize: the tracing's frames left out" "trace_" "@$T/van.out"
expect_eq "summarize: rows sorted by sends" "$(cut -d'|' -f2 "$T/van.out" | sort -nr | paste -sd ' ')" "$(cut -d'|' -f2 "$T/van.out" | paste -sd ' ')"
RC=0; IPI_FRAMES=2 "$tool" --summarize "$fx/6.1-vanilla.hist" > "$T/van2.out" 2>&1 || RC=$?
expect_eq "summarize, 2 frames: stacks that agree in them are one row" \
	'| 385 | `flush_tlb_mm_range` ← `ptep_clear_flush` |' "$(head -n 1 "$T/van2.out")"
expect_eq "summarize, 2 frames: the same sends" "$(hits "$fx/6.1-vanilla.hist")" "$(sends "$T/van2.out")"
run_cmd pat "$tool" --summarize "$fx/6.1-patched.hist"
expect_eq "summarize: a file with the reason histogram too reads only the stacks" "$(hits "$fx/6.1-patched.hist")" "$(sends "$T/pat.out")"
printf '# event histogram\n#\n# trigger info: hist:keys=stacktrace:vals=hitcount if reason == 4 [active]\n#\n\nTotals:\n    Hits: 0\n' > "$T/empty.hist"
run_cmd empty "$tool" --summarize "$T/empty.hist"
expect_eq "summarize: no send is said, not left empty" "| 0 | (no TLB_REMOTE_SEND_IPI) |" "$(cat "$T/empty.out")"

# --report: the report from the files of each kernel, no build, no boot.
B=$T/out/bench
mkdir -p "$B"
for v in patched vanilla; do
	cp "$fx/6.1-$v.hist" "$B/ipi-sources-6.1-$v.hist"
	cp "$fx/6.1-$v.json" "$B/ipi-sources-6.1-$v.json"
done
RC=0; OUT=$T/out "$tool" --report > "$T/report.out" 2>&1 || RC=$?
expect_eq "report: exit" 0 "$RC"
R=$B/IPI-SOURCES.md
expect_line "report: a section per kernel, with its release" "## 6.1 patched (6.1.192-mmbatch3-guest-f50ac4f2f)" "@$R"
expect_line "report: the TLB row's IPIs, summed over the repetitions" "- IPIs (TLB row, summed over the repetitions): 490" "@$R"
expect_line "report: the flushes by reason" "- flushes by reason: task_switch 19, remote_shootdown 466, local_mm_shootdown 547, remote_send_ipi 524" "@$R"
expect_line "report: a boot without the reason histogram says so" "- flushes by reason: (no reason histogram)" "@$R"
expect_line "report: the vanilla kernel's first path" '| 379 | `flush_tlb_mm_range` ← `ptep_clear_flush` ← `try_to_migrate_one` ← `rmap_walk_anon` |' "@$R"
expect_absent "report: no temp file left" "$R.tmp"
rm "$B/ipi-sources-6.1-vanilla.hist"
RC=0; OUT=$T/out "$tool" --report > "$T/report2.out" 2>&1 || RC=$?
expect_eq "report, a kernel without a histogram: fails" 1 "$RC"
expect_line "report, a kernel without a histogram: its section says so" "no histogram (not run, or the triggers could not be set)" "@$R"
expect_contains "report, a kernel without a histogram: named" "[6.1-vanilla] no histogram in" "@$T/report2.out"

# Bad knobs and arguments: one line, exit 2, nothing built or written.
bad() {
	local what=$1 pattern=$2
	shift 2
	RC=0; env OUT="$T/bad" "$@" "$tool" > "$T/bad.out" 2>&1 || RC=$?
	expect_eq "$what: exit" 2 "$RC"
	expect_eq "$what: one line" 1 "$(wc -l < "$T/bad.out")"
	expect_match "$what: the line" "$pattern" "@$T/bad.out"
	expect_absent "$what: nothing written" "$T/bad"
}
bad "IPI_BASES=5.10" "^ERROR: bench-ipi-sources: IPI_BASES: '5.10' " IPI_BASES=5.10
bad "IPI_VARIANTS=stock" "^ERROR: bench-ipi-sources: IPI_VARIANTS: 'stock' " IPI_VARIANTS=stock
bad "IPI_CPUS=1" "^ERROR: bench-ipi-sources: IPI_CPUS: '1' " IPI_CPUS=1
bad "IPI_FRAMES=0" "^ERROR: bench-ipi-sources: IPI_FRAMES: '0' " IPI_FRAMES=0
bad "IPI_BENCH with a shell command" "^ERROR: bench-ipi-sources: IPI_BENCH: " "IPI_BENCH=numa-hinting; reboot"
RC=0; OUT=$T/bad "$tool" --kernels > "$T/bad.out" 2>&1 || RC=$?
expect_eq "an unknown argument: exit" 2 "$RC"
expect_eq "an unknown argument: the usage line" "usage: bench-ipi-sources.sh [--report | --summarize HIST]" "$(cat "$T/bad.out")"
