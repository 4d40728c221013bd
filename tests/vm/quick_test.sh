#!/bin/sh
# Quick-path checks, run inside the guest (busybox initramfs) by tests/vm/guest.sh:
#   vmtest boot BZIMAGE --add tests/vm/lib.sh --add tests/vm/quick_test.sh \
#       -- sh quick_test.sh KERNELRELEASE DRAIN_KNOB
# KERNELRELEASE: the release the host built (the guest must run it);
# DRAIN_KNOB: yes when the kernel's patches provide /proc/sys/vm/drain_percpu,
# no when they do not (then the knob must be absent and the check is listed
# as not live). The same script runs on the debug builds (check-vm's
# debug-<base>: lockdep, KASAN, ...), with a longer integrity run. Last, the
# kernel log is dumped for the host's splat scan. Exit status: 0 when every
# check passed.
# Reads: MIGRATE_MIB (default 16), INTEGRITY_ARGS (mmbench integrity's
# options, default --quick), INTEGRITY_MIN_PAGES (pages the kernel must
# migrate during it, default 256), INTEGRITY_KINDS (default
# fork-shared,shmem,ksm,mixed), INTEGRITY_KINDS_SECONDS (each kind's
# run, default 3) and INTEGRITY_KINDS_MIN (pages each must
# migrate, default 16), DEBUG_GUEST (1 on the debug builds: the
# checkers are on and stayed on), GUEST_CPUS (vCPUs the host gave, default
# 2), ST_LIST (the selftests list's file name in /vmtest).
# shellcheck source=tests/vm/lib.sh
. ./lib.sh
# shellcheck source=tests/vm/selftests_lib.sh
. ./selftests_lib.sh

[ $# -eq 2 ] || { echo "usage: quick_test.sh KERNELRELEASE yes|no"; exit 2; }
want_release=$1 drain=$2
migrate_mib=${MIGRATE_MIB:-16}
integrity_args=${INTEGRITY_ARGS:---quick}
integrity_min=${INTEGRITY_MIN_PAGES:-256}
kinds_list=${INTEGRITY_KINDS:-fork-shared,shmem,ksm,mixed}
# 16: the least a kind migrated in 3 s on a loaded TCG host (ksm, 6.1) was 74.
# The debug guests (KASAN, lockdep: migration about 16x slower) get
# INTEGRITY_KINDS_SECONDS=6 from guest.sh.
kinds_args="--seconds ${INTEGRITY_KINDS_SECONDS:-3} --pages 1024 --min-migrations ${INTEGRITY_KINDS_MIN:-16}"

# The steps, in this order, each a function below; the debug guests run the
# same list.
steps="release integrity kinds migrate contention drain selftests"
[ "${DEBUG_GUEST:-0}" != 1 ] || steps="$steps debug"

# vmstat_field NAME: its value, or "no-NAME" when /proc/vmstat lacks it
# (a kernel without CONFIG_VM_EVENT_COUNTERS).
vmstat_field() { awk -v k="$1" '$1 == k {v = $2} END {print (v == "" ? "no-" k : v)}' /proc/vmstat; }
# vmstat_delta BEFORE AFTER: AFTER - BEFORE, or why there is none.
vmstat_delta() {
	case "$1$2" in
	*no-*) echo "/proc/vmstat has no pgmigrate_success (CONFIG_VM_EVENT_COUNTERS off?)" ;;
	*) echo $(($2 - $1)) ;;
	esac
}

# 1. The kernel we built booted, with the topology the harness asked for.
step_release() {
	vm_expect "running kernel release" "$want_release" "$(uname -r)"
	vm_expect "NUMA nodes online" "0-1" "$(cat /sys/devices/system/node/online)"
	vm_expect "CPUs online" "0-$((${GUEST_CPUS:-2} - 1))" "$(cat /sys/devices/system/cpu/online)"
}

# 2. No byte lost or torn while pages migrate under writers, and the
#    kernel really migrated pages meanwhile.
step_integrity() {
	_before=$(vmstat_field pgmigrate_success)
	_t0=$(date +%s)
	# shellcheck disable=SC2086 # the options are words
	vm_run_expect "mmbench integrity $integrity_args" 0 mmbench integrity $integrity_args
	echo "time     mmbench integrity: $(($(date +%s) - _t0)) s"
	vm_expect_ge "pgmigrate_success delta during integrity (pages)" "$integrity_min" \
		"$(vmstat_delta "$_before" "$(vmstat_field pgmigrate_success)")"
}

# 2b. The same guard over the other kinds of folio (mmbench integrity
#     --kind): private pages COW-shared with forked children, shmem written
#     by several processes, KSM-merged pages, one list mixing THPs and small
#     folios; movers move_pages, mbind, migrate_pages, compaction and NUMA
#     balancing, beside mprotect, MADV_DONTNEED and munmap+remap. Every byte
#     checked; each kind must have migrated pages (the file kind on ext4 runs
#     in the full path).
step_kinds() {
	echo "run      mmbench integrity --kind $kinds_list $kinds_args"
	# shellcheck disable=SC2086 # the options are words
	mmbench integrity --kind "$kinds_list" $kinds_args > "$vm_tmp/kinds.out" 2>&1
	_rc=$?
	sed 's/^/    | /' "$vm_tmp/kinds.out"
	if [ "$_rc" = 77 ]; then
		# A kind the guest cannot run (no KSM merge within 10 s...): mmbench
		# says which and why; the others passed, or it would exit 1.
		vm_not_live "mmbench integrity --kind $kinds_list: every kind" \
			"exit 77: $(grep -i 'skip' "$vm_tmp/kinds.out" | head -n 1)"
	else
		vm_expect "mmbench integrity --kind $kinds_list exit status" 0 "$_rc"
	fi
}

# 3. Migration across the two nodes really moves pages (counted by the
#    kernel, not by mmbench).
step_migrate() {
	_before=$(vmstat_field pgmigrate_success)
	vm_run_expect "mmbench migrate --quick --size-mib $migrate_mib" 0 mmbench migrate --quick --size-mib "$migrate_mib"
	vm_expect_ge "pgmigrate_success delta during migrate (pages, >= one buffer)" $((migrate_mib * 256)) \
		"$(vmstat_delta "$_before" "$(vmstat_field pgmigrate_success)")"
}

# 4. Pages that writers and faulters keep locked and referenced still move
#    with move_pages(2), and no write is lost meanwhile (mmbench contention
#    exits 1 on a lost write or a corrupt byte; its moved fraction is a
#    figure here, compared with the vanilla kernel by `make bench-vm`
#    BENCH_SUITE=contention).
step_contention() {
	vm_run_expect "mmbench contention --quick" 0 mmbench contention --quick
}

# 5. The drain knob of the series: write-only, 1 drains, anything else EINVAL.
step_drain() {
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
}

# 6. The kernel's own mm selftests, built from this build's tree: the quick
#    set of its list (not on the debug guests, listed as a skip) (tools/peer/selftests-<base>.list; migration needs 2
#    nodes and at least 3 CPUs, or it skips itself), verdicts per test and
#    per TAP case (tests/vm/selftests_lib.sh); a skip is listed, never passed.
step_selftests() {
	if [ "${DEBUG_GUEST:-0}" = 1 ]; then
		# The time budget of `make check`: KASAN and lockdep make them about
		# 5x slower; `make peer-selftests-debug` runs the whole lists here.
		vm_not_live "mm selftests on the debug guest" "not in make check: make peer-selftests-debug runs them on the debug guests"
		return
	fi
	st_run_list "./${ST_LIST:?the guest command sets ST_LIST}" quick /usr/lib/kselftest/mm
}

# 7. (debug builds) The checkers ran: KASAN came up, and lockdep is still
#    validating after everything above (its first report turns it off).
step_debug() {
	vm_expect_ge "KASAN initialized (kernel log)" 1 "$(dmesg | grep -c 'KernelAddressSanitizer initialized')"
	vm_expect "lockdep still validating at the end (/proc/lockdep_stats debug_locks)" 1 \
		"$(awk '$1 == "debug_locks:" {print $2}' /proc/lockdep_stats 2>&1)"
}

for s in $steps; do
	"step_$s"
done
vm_dump_kernel_log
vm_summary
