#!/bin/bash
# Every benchmark runs briefly (--quick) on this machine and writes a
# schema-valid document; migrate and integrity give the documented refusal
# (exit 77, status "skipped") on a one-node machine and run for real on two.
. "$(dirname "$0")/lib.sh"
setup

nodes=$(memory_nodes)
echo "  NUMA nodes with memory: $nodes"

for b in fault munmap exitdrain; do
	run_cmd "$b" "$MMBENCH" "$b" --quick --reps 2 -o "$T/$b.json"
	expect_eq "$b --quick exit" 0 "$RC"
	schema_ok "$b" "$T/$b.json" --command "$b" --status "$b=ok"
done
expect_match "fault reports pages/s" '^fault pages_per_s ' "@$T/fault.out"
expect_match "exitdrain samples 1000 ms" '^exitdrain 4k_pcp_kib_1000ms ' "@$T/exitdrain.out"
expect_match "munmap has the MADV_DONTNEED variant" '^munmap dontneed_ops_per_s ' "@$T/munmap.out"

for b in migrate integrity; do
	run_cmd "$b" "$MMBENCH" "$b" --quick -o "$T/$b.json"
	if [ "$nodes" -lt 2 ]; then
		expect_eq "$b on $nodes node(s): exit" 77 "$RC"
		expect_match "$b refusal names the reason" "^$b: skipped: needs 2 NUMA nodes with memory, this machine has 1$" "@$T/$b.out"
		schema_ok "$b (skipped)" "$T/$b.json" --status "$b=skipped"
	else
		expect_eq "$b on $nodes nodes: exit" 0 "$RC"
		schema_ok "$b" "$T/$b.json" --status "$b=ok"
	fi
done

# --json: the document on stdout, the summary on stderr
run_cmd json "$MMBENCH" fault --quick --reps 1 --size-mib 4 --json
expect_eq "fault --json exit" 0 "$RC"
schema_ok "fault --json stdout" "$T/json.out" --command fault
expect_match "summary went to stderr" '^fault pages_per_s ' "@$T/json.err"

# the drain knob exists only on mmbatch kernels: skipped (77) elsewhere
run_cmd knob "$MMBENCH" exitdrain --quick --reps 1 --size-mib 16 --drain-knob -o "$T/knob.json"
if [ -w /proc/sys/vm/drain_percpu ]; then
	expect_eq "exitdrain --drain-knob exit" 0 "$RC"
else
	expect_eq "exitdrain --drain-knob exit (no knob here)" 77 "$RC"
	expect_match "knob refusal" 'cannot write /proc/sys/vm/drain_percpu' "@$T/knob.out"
fi
schema_ok "exitdrain --drain-knob" "$T/knob.json"
run_cmd cmd "$MMBENCH" exitdrain --quick --reps 1 --size-mib 16 --drain-cmd "echo drained > $T/drained" -o "$T/cmd.json"
expect_eq "exitdrain --drain-cmd exit" 0 "$RC"
expect_eq "the drain command ran" drained "$(cat "$T/drained" 2>/dev/null || true)"

# smoke: one document with every listed benchmark; skips are not failures
run_cmd smoke "$MMBENCH" smoke --benchmarks fault,migrate -o "$T/smoke.json"
expect_eq "smoke exit" 0 "$RC"
if [ "$nodes" -lt 2 ]; then
	schema_ok "smoke" "$T/smoke.json" --command smoke --status fault=ok --status migrate=skipped
else
	schema_ok "smoke" "$T/smoke.json" --command smoke --status fault=ok --status migrate=ok
fi
printf '{"benchmarks":["fault"],"threshold_pct":5.0,"timeout_s":60}\n' > "$T/show.json"
run_cmd smokecfg "$MMBENCH" smoke --config "$T/show.json" -o "$T/smokecfg.json"
expect_eq "smoke --config exit" 0 "$RC"
expect_eq "smoke --config ran the listed benchmark only" fault \
	"$(jq -r '[.results[].benchmark] | join(",")' "$T/smokecfg.json")"

# the checker itself rejects a broken document
jq '.results[0].metrics[0].median = -1 | del(.system.kernel_release)' "$T/fault.json" > "$T/broken.json"
if python3 "$TOP/tests/mmbench/check_schema.py" "$T/broken.json" > "$T/broken.log" 2>&1; then
	fail "schema checker accepted a broken document"
else
	expect_match "checker names the bad median" 'median -1 is not the median' "@$T/broken.log"
	expect_match "checker names the missing key" "missing 'kernel_release'" "@$T/broken.log"
fi
