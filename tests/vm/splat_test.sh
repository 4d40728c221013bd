#!/bin/bash
# The kernel-splat scan of the guest checks (tests/vm/host.sh: splat_scan,
# guest_splats and the kernel-log dump of tests/vm/lib.sh) on recorded logs,
# no VM boot (tests/vm/run.sh runs it as `splat_test`). Each case runs the
# scanner in a child with its own counters and checks what it counted:
#   - a clean recorded boot log (the 6.12 guest's console, with the smpboot
#     topology WARN every guest prints here) and the kernel log the 6.12
#     debug guest dumped (lockdep, KASAN on) pass with one pass line, the
#     WARN listed as known; with dmesg's "[ seconds]" stamps as well; with
#     the known line changed by one character the WARN fails;
#   - a lockdep report, a KASAN report, a WARN() with its message, an oops
#     followed by its panic, and three reports in a row (sleeping in atomic
#     context, suspicious RCU usage, an RCU stall) fail once per report,
#     each fail line naming the log, the line and the report's first line;
#   - every opener pattern, each alone in a log, fails once (and every
#     pattern of splat_patterns has such a sample);
#   - the dump: a guest output holding the dumped log is read back whole;
#     a report in it fails naming the .dmesg file while the console scan
#     (without the dump and the guest's result lines, which quote anything)
#     passes; a dump cut off, with dmesg's exit status
#     not 0, with lines missing, never started or wrapped (no 'Linux
#     version' line) fails; a missing console fails; --no-dump scans the
#     console alone; guest_results counts no line of the dump.
#   splat_test.sh
# Reads: OUT (scratch space).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
fx=$TOP/tests/vm/fixtures/splat
r=0 r_out=

# inner VAR CMD...: CMD (a host.sh function and its arguments) in a child
# with its own assert.sh counters; VAR = its status, VAR_out = its output
# (shown indented, so its summary is not this test's).
inner() {
	local var=$1
	shift
	# shellcheck disable=SC2016 # the child expands them
	capture "$var" env TEST_NAME=inner bash -c '. "$1/tests/lib/assert.sh"; . "$1/tests/vm/host.sh"; shift; "$@"' sh "$TOP" "$@"
	printf '%s\n' "$(eval "printf '%s' \"\$${var}_out\"")" | sed 's/^/    | /'
}
# counts WHAT OUT PASSES FAILS: the child's summary line.
counts() { expect_line "$1: the scan's counts" "inner: $3 passed, $4 failed, 0 skipped" "$2"; }

echo "clean logs"
inner r splat_scan clean "$fx/clean-6.12-boot.log"
expect_status "clean recorded boot log" 0 "$r"
counts "clean recorded boot log" "$r_out" 1 0
expect_match "clean log: the pass line names it, the lines and the known smpboot WARN" \
	"^  ok: no kernel splat in clean \(200 lines scanned; known: line 133 'WARNING: CPU: 1 PID: 0 at [^']*/arch/x86/kernel/smpboot\.c:350 [^']*'\)$" "$r_out"
inner r splat_scan clean-debug "$fx/clean-6.12-debug.dmesg"
counts "clean recorded kernel log of the 6.12 debug guest (lockdep, KASAN)" "$r_out" 1 0
expect_match "clean debug log: its smpboot WARN (with symbols) known" \
	"^  ok: no kernel splat in clean-debug \([0-9]+ lines scanned; known: line 160 'WARNING: CPU: 1 PID: 0 at [^']*/smpboot\.c:350 topology_sane[^']*'\)$" "$r_out"
awk '{ printf "[%5d.%06d] %s\n", NR / 10, NR * 7919 % 1000000, $0 }' "$fx/clean-6.12-boot.log" > "$T/stamped.log"
inner r splat_scan stamped "$T/stamped.log"
counts "the same log with dmesg's [ seconds] stamps" "$r_out" 1 0
expect_contains "stamped log: the known WARN still known" "known: line 133 'WARNING: CPU: 1 PID: 0 at" "$r_out"
sed 's/\[node: 1 != 0\]/[node: 0 != 1]/' "$fx/clean-6.12-boot.log" > "$T/near-miss.log"
inner r splat_scan near-miss "$T/near-miss.log"
expect_status "known line changed by one character: exact match only" 1 "$r"
counts "near-miss known line" "$r_out" 0 1
expect_match "near-miss: the WARN fails, named" '^  FAIL: kernel splat in near-miss line 133: WARNING: CPU: 1 PID: 0 at ' "$r_out"

echo "recorded reports"
# report NAME FAILS LINE-ERE...: the sample NAME fails FAILS times, with
# these fail lines (in order).
report() {
	local name=$1 nfail=$2 i=0 want
	shift 2
	inner r splat_scan "$name" "$fx/$name.log"
	expect_status "$name: the scan fails" 1 "$r"
	counts "$name" "$r_out" 0 "$nfail"
	for want in "$@"; do
		i=$((i + 1))
		expect_eq "$name: fail line $i of $nfail" "$want" "$(printf '%s\n' "$r_out" | grep '^  FAIL: ' | sed -n "${i}p")"
	done
}
report lockdep-circular 1 "  FAIL: kernel splat in lockdep-circular line 4: WARNING: possible circular locking dependency detected"
report kasan-uaf 1 "  FAIL: kernel splat in kasan-uaf line 3: BUG: KASAN: slab-use-after-free in folio_batch_move_lru+0x2c1/0x4a0"
report list-corruption 1 "  FAIL: kernel splat in list-corruption line 3: list_add corruption. prev->next should be next (ff1100003fc1d1e8), but was ff11000004a1c328. (prev=ff11000004a1c328)."
report oops-panic 2 "  FAIL: kernel splat in oops-panic line 1: BUG: unable to handle page fault for address: ffffffffffffff8c" \
	"  FAIL: kernel splat in oops-panic line 13: Kernel panic - not syncing: Fatal exception"
report sleep-in-atomic 3 "  FAIL: kernel splat in sleep-in-atomic line 1: BUG: sleeping function called from invalid context at mm/migrate.c:1712" \
	"  FAIL: kernel splat in sleep-in-atomic line 16: WARNING: suspicious RCU usage" \
	"  FAIL: kernel splat in sleep-in-atomic line 29: rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"

echo "every opener"
cat > "$T/openers" <<'LINES'
BUG: Bad page state in process mmbench  pfn:06b3f
BUG: unable to handle page fault for address: ffffffffffffff8c
watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [mmbench:203]
WARNING: CPU: 0 PID: 1 at mm/page_alloc.c:4581 __alloc_pages_noprof+0x3c1/0x430
Oops: general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN NOPTI
general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI
Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b
kernel BUG at mm/swap.c:205!
invalid opcode: 0000 [#1] PREEMPT SMP NOPTI
Unable to handle kernel paging request at virtual address dead000000000108
WARNING: possible circular locking dependency detected
WARNING: possible recursive locking detected
WARNING: inconsistent lock state
WARNING: possible irq lock inversion dependency detected
WARNING: suspicious RCU usage
INFO: lockdep is turned off.
INFO: trying to register non-static key.
DEBUG_LOCKS_WARN_ON(1)
BUG: KASAN: slab-out-of-bounds in folio_batch_add+0x3a/0x60
UBSAN: array-index-out-of-bounds in mm/page_alloc.c:2420:19
rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
INFO: rcu_sched detected stalls on CPUs/tasks:
rcu: INFO: rcu_preempt self-detected stall on CPU
INFO: task mmbench:203 blocked for more than 122 seconds.
BUG: sleeping function called from invalid context at mm/gup.c:1200
list_add corruption. next->prev should be prev (ff1100003fc1d1e8), but was 0000000000000000. (next=ff11000004a1c328).
list_del corruption, ff11000004a1c328->next is LIST_POISON1 (dead000000000100)
ODEBUG: free active (active state 0) object: ff11000004a1c328 object type: timer_list hint: 0x0
page dumped because: VM_BUG_ON_FOLIO(!folio_test_locked(folio))
LINES
i=0
while IFS= read -r line; do
	i=$((i + 1))
	printf 'Linux version 6.12.117-mmbatch1-guest+debug\n%s\nafter\n' "$line" > "$T/one.log"
	inner r splat_scan "opener-$i" "$T/one.log" > /dev/null
	expect_eq "opener '$line': one fail line, naming it" "  FAIL: kernel splat in opener-$i line 2: $line" "$(printf '%s\n' "$r_out" | grep '^  FAIL: ')"
done < "$T/openers"
# shellcheck source=tests/vm/host.sh
. "$TOP/tests/vm/host.sh"
for p in "${splat_patterns[@]}"; do
	expect_match "pattern /$p/ has a sample above" "$p" "@$T/openers"
done
printf 'boot\n---[ end Kernel panic - not syncing: Fatal exception ]---\n' > "$T/closer.log"
inner r splat_scan closer "$T/closer.log"
counts "an end marker alone opens no report" "$r_out" 1 0

echo "the dump"
# guest_out FILE LOG [END-LINE]: a guest output with LOG dumped as
# lib.sh's vm_dump_kernel_log does (END-LINE: "-" none, else replaces it).
guest_out() {
	{
		echo "ok       running kernel release: expected 'x', actual 'x'"
		echo "@@DMESG-BEGIN@@"
		sed 's/^/dmesg | /' "$2"
		echo "dmesg | FAIL     a dumped line shaped like a result"
		if [ "${3:-}" = - ]; then :
		elif [ -n "${3:-}" ]; then echo "$3"
		else echo "@@DMESG-END rc=0 lines=$(($(wc -l < "$2") + 1))@@"; fi
		echo "summary: 1 ok, 0 failed, 0 not live"
	} > "$1"
}
# The console as the guest's serial port saw it: boot messages, then the output.
cp "$fx/clean-6.12-boot.log" "$T/clean.log"
cat "$fx/clean-6.12-boot.log" "$fx/lockdep-circular.log" > "$T/splat.log"
guest_out "$T/g.out" "$T/splat.log"
{ cat "$fx/clean-6.12-boot.log"; echo "@@VMTEST-BEGIN@@"; cat "$T/g.out"
	echo "ok       a result line quoting 'WARNING: x': expected 'WARNING: x', actual 'WARNING: x'"
	echo "    | an indented line quoting BUG: y"; echo "@@VMTEST-END rc=0@@"; } > "$T/g.console"
inner r guest_splats "$T/g.out" "$T/g.console"
expect_status "a lockdep report in the dumped log" 1 "$r"
counts "dumped log with a lockdep report" "$r_out" 3 1
expect_contains "the dump read back whole" "ok: the guest's kernel log dumped in whole ($(($(wc -l < "$T/splat.log") + 1)) lines, $T/g.dmesg)" "$r_out"
expect_eq "the .dmesg file: the dumped lines" "$(cat "$T/splat.log"; echo "FAIL     a dumped line shaped like a result")" "$(cat "$T/g.dmesg")"
expect_line "the fail names the .dmesg file and the report" \
	"  FAIL: kernel splat in the guest's kernel log ($T/g.dmesg) line 204: WARNING: possible circular locking dependency detected" "$r_out"
expect_match "the console scan leaves the dump and the guest's result lines out" "^  ok: no kernel splat in the serial console \($(re_quote "$T")/g\.console\) \([0-9]+ lines scanned; known: line 133 " "$r_out"
guest_out "$T/c.out" "$T/clean.log"
{ cat "$fx/clean-6.12-boot.log"; cat "$T/c.out"; } > "$T/c.console"
inner r guest_splats "$T/c.out" "$T/c.console"
expect_status "a clean dump and console" 0 "$r"
counts "clean dump and console" "$r_out" 4 0
# broken NAME END-LINE ERE [LOG]: a dump that must fail, with that reason.
broken() {
	guest_out "$T/b.out" "${4:-$T/clean.log}" "$2"
	inner r guest_splats "$T/b.out" "$T/c.console"
	expect_fails "$1" "$3" "$r" "$r_out"
}
broken "dump cut off (no end marker)" - "FAIL: the guest's kernel log could not be read, so it cannot be scanned: no @@DMESG-END line"
broken "dmesg failed in the guest" "@@DMESG-END rc=1 lines=0@@" "FAIL: .*: dmesg exited 1 in the guest"
broken "lines lost on the way" "@@DMESG-END rc=0 lines=999@@" "FAIL: .*: the guest dumped 999 lines, 201 arrived"
grep -v '^Linux version' "$fx/clean-6.12-boot.log" > "$T/wrapped.log"
broken "a wrapped log (no 'Linux version' line)" '' "FAIL: the dumped kernel log starts at boot" "$T/wrapped.log"
grep -v '^@@DMESG-\|^dmesg | ' "$T/c.out" > "$T/n.out"
inner r guest_splats "$T/n.out" "$T/c.console"
expect_fails "no dump at all" "FAIL: .*: no @@DMESG-BEGIN@@ line in $(re_quote "$T")/n\.out \(the guest never dumped" "$r" "$r_out"
inner r guest_splats "$T/c.out" "$T/no-such.console"
expect_fails "no console log" "FAIL: the serial console log $(re_quote "$T")/no-such\.console is missing or empty" "$r" "$r_out"
cat "$fx/clean-6.12-boot.log" "$fx/kasan-uaf.log" > "$T/k.console"
inner r guest_splats "$T/n.out" "$T/k.console" --no-dump "it reboots before its command"
expect_status "--no-dump: the console alone, with a KASAN report" 1 "$r"
counts "--no-dump" "$r_out" 0 1
expect_line "--no-dump: the KASAN report named in the console" \
	"  FAIL: kernel splat in the serial console ($T/k.console) line 203: BUG: KASAN: slab-use-after-free in folio_batch_move_lru+0x2c1/0x4a0" "$r_out"
inner r guest_splats "$T/n.out" "$T/k.console" --not-judged "a kernel built to corrupt memory"
expect_status "--not-judged: the console's KASAN report" 0 "$r"
expect_no_match "--not-judged: nothing counted (no pass, no fail: no summary line)" '^inner: ' "$r_out"
expect_line "--not-judged: the report listed, with the reason" \
	"    | not judged (a kernel built to corrupt memory): report in the serial console ($T/k.console) line 203: BUG: KASAN: slab-use-after-free in folio_batch_move_lru+0x2c1/0x4a0" "$r_out"
expect_match "--not-judged: how many, in how many lines" "^    \| the serial console \($(re_quote "$T")/k\.console\): 1 new report\(s\) in [0-9]+ lines, not judged: a kernel built to corrupt memory$" "$r_out"
inner r guest_splats "$T/n.out" "$T/no-such.console" --not-judged "a kernel built to corrupt memory"
expect_fails "--not-judged: no console log still fails" "FAIL: the serial console log $(re_quote "$T")/no-such\.console is missing or empty" "$r" "$r_out"
inner r guest_results "$T/g.out"
counts "guest_results counts the result lines, none of the dump" "$r_out" 1 0
test_summary
