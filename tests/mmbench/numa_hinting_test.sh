#!/bin/bash
# mmbench numa-hinting --quick on this machine: on one NUMA node, or
# without NUMA balancing, it is refused (exit 77, the reason on one line:
# a SKIP here, never a pass); on two with NUMA balancing it runs (exit 0,
# schema-valid, hinting faults counted, pages migrated, the memory local in
# time). Either way the knobs it may write (numa_balancing, the scan period)
# read the same afterwards. Bad options: one line naming the option,
# exit 2, no document.
# Reads: MMBENCH, TOP.
. "$(dirname "$0")/lib.sh"
setup

metric() { jq -c --arg n "$2" '.results[0].metrics[] | select(.name == $n) | .values' "$1"; }
all_values() { jq --arg n "$2" "[.results[0].metrics[] | select(.name == \$n) | .values[] | $3] | length > 0 and all" "$1"; }
knobs() {
	local f
	for f in /proc/sys/kernel/numa_balancing /proc/sys/kernel/numa_balancing_scan_* \
		/sys/kernel/debug/sched/numa_balancing/scan_*; do
		[ ! -r "$f" ] || echo "$f $(cat "$f")"
	done
}

nodes=$(memory_nodes)
nb=/proc/sys/kernel/numa_balancing
echo "  NUMA nodes with memory: $nodes; numa_balancing: $(cat "$nb" 2>/dev/null || echo absent)"
reason=
if [ "$nodes" -lt 2 ]; then
	reason="needs 2 NUMA nodes with memory, this machine has $nodes"
elif [ ! -e "$nb" ]; then
	reason="no NUMA balancing in this kernel (no $nb: CONFIG_NUMA_BALANCING?)"
elif [ ! -w "$nb" ]; then
	reason="cannot write $nb: Permission denied"
elif ! grep -q '^numa_hint_faults ' /proc/vmstat; then
	reason="no NUMA balancing in this kernel (no numa_hint_faults in /proc/vmstat)"
fi

before=$(knobs)
run_cmd quick "$MMBENCH" numa-hinting --quick -o "$T/n.json"
expect_eq "the knobs read the same afterwards" "$before" "$(knobs)"
if [ -n "$reason" ]; then
	expect_eq "numa-hinting --quick here: exit (skipped)" 77 "$RC"
	expect_line "the refusal names the reason" "numa-hinting: skipped: $reason" "@$T/quick.out"
	expect_lines "the refusal is one line" 1 "@$T/quick.out"
	schema_ok "numa-hinting (skipped)" "$T/n.json" --command numa-hinting --status numa-hinting=skipped
	skip "numa-hinting figures" "$reason"
else
	expect_eq "numa-hinting --quick exit" 0 "$RC"
	schema_ok "numa-hinting" "$T/n.json" --command numa-hinting --status numa-hinting=ok
	expect_eq "2 repetitions (--quick)" 2 "$(jq '.results[0].repetitions' "$T/n.json")"
	expect_eq "hinting faults in every repetition" true "$(all_values "$T/n.json" numa_hint_faults '. > 0')"
	expect_eq "NUMA balancing migrated pages" true "$(all_values "$T/n.json" numa_pages_migrated '. > 0')"
	expect_eq "local within the timeout (15 s)" true "$(all_values "$T/n.json" time_to_local_s '. > 0 and . <= 15.1')"
	expect_eq "at least 90% local at the end" true "$(all_values "$T/n.json" local_fraction_end '. >= 0.9')"
	for n in time_to_local_s numa_hint_faults numa_pages_migrated tlb_ipis_per_1000_hint_faults sys_s; do
		echo "  measured: $n $(metric "$T/n.json" "$n")"
	done
	run_cmd same "$MMBENCH" compare "$T/n.json" "$T/n.json"
	expect_eq "compare A A: exit" 0 "$RC"
	expect_match "compare judges the time to local" '^numa-hinting +time_to_local_s ' "@$T/same.out"
fi

bad_input "a wait too short" "^mmbench numa-hinting: option '--seconds': 0.5 s, numa-hinting waits at least 1 s for the memory to become local$" \
	"$MMBENCH" numa-hinting --seconds 0.5 -o "$T/x.json"
bad_input "no wait" "^mmbench numa-hinting: bad value '0' for option '--seconds'$" \
	"$MMBENCH" numa-hinting --seconds 0 -o "$T/x.json"
bad_input "zero MiB" "^mmbench numa-hinting: bad value '0' for option '--size-mib'$" \
	"$MMBENCH" numa-hinting --size-mib 0 -o "$T/x.json"
bad_input "an option of another benchmark" "^mmbench numa-hinting: option '--thp' does not apply to numa-hinting$" \
	"$MMBENCH" numa-hinting --thp -o "$T/x.json"
expect_absent "no document after bad input" "$T/x.json"
