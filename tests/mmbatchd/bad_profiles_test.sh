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
ln -s /etc/hostname "$ROOT/sys/kernel/mm/escape"
ln -s ../../../proc/sys/vm/swappiness "$ROOT/sys/kernel/mm/cross"

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
