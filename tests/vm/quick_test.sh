#!/bin/sh
# Quick-path checks, run inside the guest (busybox initramfs) by tests/vm/guest.sh:
#   vmtest boot BZIMAGE --add tests/vm/lib.sh --add tests/vm/quick_test.sh \
#       -- sh quick_test.sh KERNELRELEASE DRAIN_KNOB
# KERNELRELEASE: the release the host built (the guest must run it);
# DRAIN_KNOB: yes when the kernel's patches provide /proc/sys/vm/drain_percpu,
# no when they do not (then the knob must be absent and the check is listed
# as not live). Exit status: 0 when every check passed.
# Reads: MIGRATE_MIB (default 16).
# shellcheck source=tests/vm/lib.sh
. ./lib.sh

[ $# -eq 2 ] || { echo "usage: quick_test.sh KERNELRELEASE yes|no"; exit 2; }
want_release=$1 drain=$2
migrate_mib=${MIGRATE_MIB:-16}

# vmstat_field NAME: its value, or "no-NAME" when /proc/vmstat lacks it
# (a kernel without CONFIG_VM_EVENT_COUNTERS).
vmstat_field() { awk -v k="$1" '$1 == k {v = $2} END {print (v == "" ? "no-" k : v)}' /proc/vmstat; }

# 1. The kernel we built booted, with the topology the harness asked for.
vm_expect "running kernel release" "$want_release" "$(uname -r)"
vm_expect "NUMA nodes online" "0-1" "$(cat /sys/devices/system/node/online)"
vm_expect "CPUs online" "0-1" "$(cat /sys/devices/system/cpu/online)"

# 2. No byte lost or torn while pages migrate under writers.
vm_run_expect "mmbench integrity --quick" 0 mmbench integrity --quick

# 3. Migration across the two nodes really moves pages (counted by the
#    kernel, not by mmbench).
before=$(vmstat_field pgmigrate_success)
vm_run_expect "mmbench migrate --quick --size-mib $migrate_mib" 0 mmbench migrate --quick --size-mib "$migrate_mib"
after=$(vmstat_field pgmigrate_success)
case "$before$after" in
*no-*) delta="/proc/vmstat has no pgmigrate_success (CONFIG_VM_EVENT_COUNTERS off?)" ;;
*) delta=$((after - before)) ;;
esac
vm_expect_ge "pgmigrate_success delta during migrate (pages, >= one buffer)" $((migrate_mib * 256)) "$delta"

# 4. The drain knob of the series: write-only, 1 drains, anything else EINVAL.
knob=/proc/sys/vm/drain_percpu
if [ "$drain" = yes ]; then
	vm_expect "$knob exists" yes "$([ -e $knob ] && echo yes || echo no)"
	vm_expect "$knob mode" 200 "$(stat -c %a $knob 2>&1)"
	(echo 1 > $knob) 2>"$vm_tmp/knob.err"
	vm_expect "write 1 to $knob: exit status" 0 "$?"
	(echo 2 > $knob) 2>"$vm_tmp/knob.err"
	rc=$?
	vm_expect "write 2 to $knob: exit status" 1 "$rc"
	vm_expect_match "write 2 to $knob: error" "*Invalid argument*" "$(cat "$vm_tmp/knob.err")"
else
	vm_expect "$knob absent (not in the series)" no "$([ -e $knob ] && echo yes || echo no)"
	vm_not_live "drain knob write 1 ok / write 2 EINVAL" "this kernel has no drain_percpu patch (vanilla, Debian's, or a series without it)"
fi

vm_summary
