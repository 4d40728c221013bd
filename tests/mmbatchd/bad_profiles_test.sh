#!/bin/bash
# Every profile in tests/mmbatchd/bad/*.yaml must be refused by
# `mmbatchd --once` with exit status 2, exactly the error its first line
# announces, no journal, and the fake /proc+/sys tree unchanged.
#
# Header format:  # expect: LINE:COL: message          (error in this file)
#                 # expect: inc/FILE:LINE:COL: message (error in an include)
# @DIR@ in the message stands for the directory the profiles are copied to,
# @ROOT@ for the fake tree.
# Reads: MMBATCHD, TOP, BAD_DIR (default tests/mmbatchd/bad).
# shellcheck disable=SC2154 # VAR_out is set by capture
. "$(dirname "$0")/lib.sh"
setup

BAD_DIR=${BAD_DIR:-$TOP/tests/mmbatchd/bad}
fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
fake_knob proc/sys/vm/stat_interval 1
chmod 0444 "$ROOT/proc/sys/vm/stat_interval"
# The files behind the escape-*.yaml keys exist and are writable, so that
# only the key allowlist can refuse them (the vm./kernel. prefix rule of old
# accepted and wrote every one).
for k in kernel/core_pattern kernel/modprobe kernel/hotplug kernel/poweroff_cmd kernel/sysrq \
	kernel/unprivileged_bpf_disabled kernel/yama/ptrace_scope kernel/randomize_va_space kernel/kptr_restrict \
	kernel/perf_event_paranoid vm/mmap_min_addr vm/unprivileged_userfaultfd; do
	fake_knob "proc/sys/$k" 2
done
fake_knob proc/sys/kernel/numa_balancing 1
fake_knob sys/kernel/mm/transparent_hugepage/enabled 'always [madvise] never'
# The files behind the value-*, dangerous-* and refused sysfs-* profiles
# exist and are writable, so that only the value schema, the opt-in and the
# sysfs allowlist can refuse them (the old daemon wrote every one).
for k in panic_on_oom memory_failure_recovery min_free_kbytes overcommit_memory overcommit_ratio \
	overcommit_kbytes dirty_writeback_centisecs percpu_pagelist_high_fraction; do
	fake_knob "proc/sys/vm/$k" 1
done
fake_knob sys/kernel/mm/transparent_hugepage/shmem_enabled 'always within_size advise [never] deny force'
fake_knob sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none 511
fake_knob sys/kernel/mm/lru_gen/min_ttl_ms 0
fake_knob sys/kernel/mm/ksm/run 0
fake_knob sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages 0
fake_knob sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages 0
fake_knob sys/devices/system/node/node0/uevent ''
damon=sys/kernel/mm/damon/admin/kdamonds
fake_knob $damon/nr_kdamonds 1
fake_knob $damon/0/state off
fake_knob $damon/0/contexts/0/operations vaddr
fake_knob $damon/0/contexts/0/schemes/0/action stat
fake_knob $damon/0/contexts/0/schemes/0/filters/0/memcg_path ''
# Allowed names that are symlinks: out of the tree, and into /proc/sys.
ln -s /etc/hostname "$ROOT/sys/kernel/mm/transparent_hugepage/khugepaged/defrag"
ln -s ../../../../proc/sys/vm/swappiness "$ROOT/sys/kernel/mm/transparent_hugepage/use_zero_page"

cp -r "$BAD_DIR" "$T/bad"
chmod -R go-w "$T/bad"
before=$(tree_sum "$ROOT")
count=0
for f in "$T"/bad/*.yaml; do
	name=$(basename "$f" .yaml)
	count=$((count + 1))
	expect=$(sed -n '1s/^# expect: //p' "$f")
	if [ -z "$expect" ]; then fail "$name: no '# expect:' header"; continue; fi
	expect=${expect//@DIR@/$T/bad}
	expect=${expect//@ROOT@/$ROOT}
	case "$expect" in
		[0-9]*) expect="$f:$expect" ;;
		*) expect="$T/bad/$expect" ;;
	esac
	capture rc "$MMBATCHD" --once "$f" --root "$ROOT" --state-dir "$STATE"
	expect_eq "$name: exit status and error" "2 $expect" "$rc $rc_out"
	expect_absent "$name: journal" "$STATE/mmbatchd/journal"
	rm -f "$STATE/mmbatchd/journal"
	expect_eq "$name: fake tree" "$before" "$(tree_sum "$ROOT")"
done
expect_eq "tree checksum after $count bad profiles" "$before" "$(tree_sum "$ROOT")"
if [ $count -ge 40 ]; then pass "$count bad profiles (at least 40)"
else fail "only $count bad profiles (want at least 40)"; fi
