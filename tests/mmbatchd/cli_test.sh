#!/bin/bash
# The one-shot modes against a fake tree: --check and --plan write nothing,
# --once applies (journal 0600, every change logged with an undo line,
# choice files compared by the bracketed choice, unchanged keys not written),
# --verify reports drift, --rollback restores and removes the journal,
# --show-smoke prints the smoke section, --status without a daemon.
# Reads: MMBATCHD, TOP.
# shellcheck disable=SC2154 # VAR_out is set by capture
. "$(dirname "$0")/lib.sh"
setup

fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
fake_knob proc/sys/kernel/numa_balancing 1
fake_knob sys/kernel/mm/transparent_hugepage/enabled 'always [madvise] never'
fake_knob sys/kernel/mm/transparent_hugepage/defrag 'always defer [madvise] never'
cat > "$PROFILES/base.yaml" <<'P'
sysctl:
  vm.swappiness: 30
  vm.dirty_ratio: 10
P
cat > "$PROFILES/p.yaml" <<'P'
include: base.yaml
sysctl:
  vm.dirty_ratio: 15          # overrides base.yaml
  kernel.numa_balancing: 1    # already set: must not be written
  vm.nr_overcommit_hugepages: {value: 1, optional: true}
sysfs:
  /sys/kernel/mm/transparent_hugepage/enabled: never
  /sys/kernel/mm/transparent_hugepage/defrag: madvise   # already the choice
smoke:
  benchmarks: [fault, munmap]
  threshold_pct: 2.5
  timeout_s: 30
P
before=$(tree_sum "$ROOT")

out=$("$MMBATCHD" --check "$PROFILES/p.yaml" --root "$ROOT" 2>&1)
expect_eq "--check output" "$PROFILES/p.yaml: ok (6 keys, 1 optional absent)" "$out"
out=$("$MMBATCHD" --plan "$PROFILES/p.yaml" --root "$ROOT" 2>&1)
expect_eq "--plan output" "'vm.swappiness' (60) -> (30)
'vm.dirty_ratio' (20) -> (15)
'kernel.numa_balancing' (1) unchanged
'vm.nr_overcommit_hugepages' absent on this kernel (optional), skipped
'/sys/kernel/mm/transparent_hugepage/enabled' (madvise) -> (never)
'/sys/kernel/mm/transparent_hugepage/defrag' (madvise) unchanged" "$out"
expect_eq "tree after --check/--plan" "$before" "$(tree_sum "$ROOT")"

out=$("$MMBATCHD" --show-smoke "$PROFILES/p.yaml")
expect_eq "--show-smoke" '{"benchmarks":["fault","munmap"],"threshold_pct":2.5,"timeout_s":30}' "$out"
out=$("$MMBATCHD" --show-smoke "$PROFILES/base.yaml")
expect_eq "--show-smoke defaults" '{"benchmarks":["fault","munmap","exitdrain","integrity"],"threshold_pct":5.0,"timeout_s":60}' "$out"

# Unchanged knobs must not be written: make them unwritable files whose
# mtime we compare.
touch -d '2001-01-01' "$ROOT/proc/sys/kernel/numa_balancing" "$ROOT/sys/kernel/mm/transparent_hugepage/defrag"
capture rc "$MMBATCHD" --once "$PROFILES/p.yaml" --root "$ROOT" --state-dir "$STATE"
expect_ok "--once" "$rc" "$rc_out"
log=$rc_out
expect_eq "vm.swappiness after --once" 30 "$(knob proc/sys/vm/swappiness)"
expect_eq "vm.dirty_ratio after --once (include overridden)" 15 "$(knob proc/sys/vm/dirty_ratio)"
expect_eq "THP enabled after --once" never "$(knob sys/kernel/mm/transparent_hugepage/enabled)"
expect_eq "numa_balancing mtime (not written)" 2001 "$(date -r "$ROOT/proc/sys/kernel/numa_balancing" +%Y)"
expect_eq "THP defrag mtime (not written)" 2001 "$(date -r "$ROOT/sys/kernel/mm/transparent_hugepage/defrag" +%Y)"
expect_eq "journal mode" 600 "$(stat -c %a "$STATE/mmbatchd/journal")"
expect_eq "journal content" "# mmbatchd journal v2
boot_id	$FAKE_BOOT_ID
profile	$PROFILES/p.yaml
/proc/sys/vm/swappiness	60
/proc/sys/vm/dirty_ratio	20
/proc/sys/kernel/numa_balancing	1
/sys/kernel/mm/transparent_hugepage/enabled	madvise
/sys/kernel/mm/transparent_hugepage/defrag	madvise" "$(cat "$STATE/mmbatchd/journal")"
line=$(printf '%s\n' "$log" | grep -F "'vm.swappiness' (60) -> (30)" || true)
expect_eq "change log line" "mmbatchd: 'vm.swappiness' (60) -> (30) applied; undo: echo '60' > $ROOT/proc/sys/vm/swappiness" "$line"
changes=$(printf '%s\n' "$log" | grep -c -- ') -> (' || true)
expect_eq "number of logged changes" 3 "$changes"

out=$("$MMBATCHD" --verify "$PROFILES/p.yaml" --root "$ROOT" 2>&1) && rc=0 || rc=$?
expect_eq "--verify exit when in sync" 0 "$rc"
# A live choice file that says "[never]" in brackets still matches.
fake_knob sys/kernel/mm/transparent_hugepage/enabled 'always madvise [never]'
fake_knob proc/sys/vm/swappiness 35
out=$("$MMBATCHD" --verify "$PROFILES/p.yaml" --root "$ROOT" 2>&1) && rc=0 || rc=$?
expect_eq "--verify exit with drift" 1 "$rc"
expect_eq "--verify drift list" "drifted: 'vm.swappiness' live (35) profile (30)" "$out"

# A second --once keeps the first originals.
capture rc "$MMBATCHD" --once "$PROFILES/p.yaml" --root "$ROOT" --state-dir "$STATE"
expect_ok "second --once" "$rc" "$rc_out"
orig=$(grep swappiness "$STATE/mmbatchd/journal" | cut -f2)
expect_eq "original kept by a second --once" 60 "$orig"

out=$("$MMBATCHD" --status --state-dir "$STATE")
expect_eq "--status without a daemon" '{"state":"inactive","applied":[],"last_error":null}' "$out"

capture rc "$MMBATCHD" --rollback --root "$ROOT" --state-dir "$STATE"
expect_ok "--rollback" "$rc" "$rc_out"
expect_eq "vm.swappiness after --rollback" 60 "$(knob proc/sys/vm/swappiness)"
expect_eq "vm.dirty_ratio after --rollback" 20 "$(knob proc/sys/vm/dirty_ratio)"
expect_eq "THP enabled after --rollback" madvise "$(knob sys/kernel/mm/transparent_hugepage/enabled)"
expect_absent "journal after --rollback" "$STATE/mmbatchd/journal"
out=$("$MMBATCHD" --rollback --root "$ROOT" --state-dir "$STATE" 2>&1) && rc=0 || rc=$?
expect_eq "--rollback without a journal" "0 mmbatchd: no journal of this boot in $STATE, nothing to roll back" "$rc $out"

# (A write failing midway is covered by unit/test_plan.c, which makes the
# second write fail: a fake tree cannot refuse writes from root.)
