#!/bin/bash
# The shipped profiles (configs/profiles/*.yaml and configs/mmbatchd.yaml)
# load and validate: against a fake tree that has every key they name, and
# (read-only, --check writes nothing) against the running kernel. Also checks
# default.yaml's smoke section is mmbatch-smoke's fallback (fault, munmap,
# exitdrain, integrity / 5 % / 60 s).
# Reads: MMBATCHD, TOP.
. "$(dirname "$0")/lib.sh"
setup

cp "$TOP"/configs/profiles/*.yaml "$PROFILES"/
cp "$TOP"/configs/mmbatchd.yaml "$T/mmbatchd.yaml"
chmod 0644 "$PROFILES"/*.yaml "$T/mmbatchd.yaml"
for k in swappiness:60 dirty_ratio:20 dirty_background_ratio:10 watermark_scale_factor:10 stat_interval:1 \
	 compaction_proactiveness:20 zone_reclaim_mode:0 watermark_boost_factor:15000; do
	fake_knob "proc/sys/vm/${k%%:*}" "${k#*:}"
done
fake_knob proc/sys/kernel/numa_balancing 0
fake_knob sys/kernel/mm/transparent_hugepage/enabled 'always [madvise] never'
fake_knob sys/kernel/mm/transparent_hugepage/defrag 'always defer defer+madvise [madvise] never'
fake_knob sys/kernel/mm/numa/demotion_enabled false
fake_knob sys/devices/system/node/online 0
fake_knob proc/sys/vm/drain_percpu ''
chmod 0200 "$ROOT/proc/sys/vm/drain_percpu"
before=$(tree_sum "$ROOT")

for p in "$PROFILES"/*.yaml "$T/mmbatchd.yaml"; do
	name=$(basename "$p")
	rc=0; out=$("$MMBATCHD" --check "$p" --root "$ROOT" --profile-dir "$PROFILES" 2>&1) || rc=$?
	expect_eq "$name on the fake tree" "0 $p: ok" "$rc ${out%% (*}"
	rc=0; out=$("$MMBATCHD" --check "$p" --profile-dir "$PROFILES" 2>&1) || rc=$?
	expect_eq "$name on the running kernel ($(uname -r))" "0 $p: ok" "$rc ${out%% (*}"
done
expect_eq "fake tree after --check" "$before" "$(tree_sum "$ROOT")"
expect_eq "default smoke section" '{"benchmarks":["fault","munmap","exitdrain","integrity"],"threshold_pct":5.0,"timeout_s":60}' \
	"$("$MMBATCHD" --show-smoke "$PROFILES/default.yaml")"
out=$("$MMBATCHD" --plan "$T/mmbatchd.yaml" --root "$ROOT" --profile-dir "$PROFILES")
expect_eq "mmbatchd.yaml plan (drain via the knob when present)" "'vm.watermark_boost_factor' (15000) -> (0)
'/sys/kernel/mm/transparent_hugepage/enabled' (madvise) unchanged
'/sys/kernel/mm/transparent_hugepage/defrag' (madvise) unchanged
drain on exit: min_rss_mb 256, max_per_second 1, method sysctl" "$out"
