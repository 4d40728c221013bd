#!/bin/bash
# The verdicts of tools/peer/integrity-run.sh (one kind's boot, judged by
# its --verdict mode) on a recorded guest output, no VM boot
# (tests/vm/fixtures/integrity/: a clean shmem run on our 6.12 guest, its
# output and serial console; four runs on the canary's BAD kernel), and on
# the clean recording changed the ways a
# broken kernel shows: lost writes, corrupt or stray bytes (exit 1), a
# crash (killed by a signal, no result line), a hang (vmtest's 124, no
# kernel log dumped), a kernel splat with a clean exit, a failed guest
# check, a skip, and an exit 1 with no figure. Each is judged both ways:
# as the long run (--expect ok: only the clean run passes, a skip is a
# skip) and as the negative control (--expect fail: the clean run is
# NOT-DETECTED, only evidence counts as detected).
#   integrity_verdict_test.sh
# Reads: OUT (scratch space).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
# a copy: the splat scan writes the kernel log it cuts out beside each .out
cp -r "$TOP/tests/vm/fixtures/integrity" "$T/fx"
fx=$T/fx
run=$TOP/tools/peer/integrity-run.sh
out=$fx/guest-6.12-shmem.out con=$fx/guest-6.12-shmem.console

# judge NAME EXPECT RC OUT CONSOLE WANT_VERDICT [HOW_PATTERN]
judge() {
	local got
	got=$("$run" --verdict "$2" "$3" "$4" "$5" 195 2>&1)
	expect_eq "$1 (--expect $2): verdict" "$6" "${got%% *}"
	[ $# -lt 7 ] || expect_match "$1 (--expect $2): says how" "$7" "$got"
}

judge "a clean run" ok 0 "$out" "$con" pass '^pass 12183 0 0 0 exit 0: 0 lost writes, 0 corrupt bytes, 0 stray bytes$'
judge "a clean run" fail 0 "$out" "$con" NOT-DETECTED '^NOT-DETECTED 12183 '

# lost writes, corrupt and stray bytes: mmbench's exit 1 with its figures
for f in "3 0 0:lost writes" "0 41 0:corrupt bytes" "0 0 7:stray bytes"; do
	sed "s/^integrity-result shmem 0 12183 0 0 0$/integrity-result shmem 1 12183 ${f%%:*}/" "$out" > "$T/bad.out"
	judge "exit 1 with ${f#*:}" ok 1 "$T/bad.out" "$con" fail
	judge "exit 1 with ${f#*:}" fail 1 "$T/bad.out" "$con" detected "^detected 12183 ${f%%:*} exit 1: "
done

# a crash: the shell in the guest reports mmbench's signal, no figures
sed 's/^integrity-result shmem 0 12183 0 0 0$/integrity-result shmem 139 - - - -/' "$out" > "$T/crash.out"
judge "mmbench killed by SIGSEGV" ok 139 "$T/crash.out" "$con" fail
judge "mmbench killed by SIGSEGV" fail 139 "$T/crash.out" "$con" detected 'mmbench killed by signal 11'

# a hang: the output stops in the middle of mmbench's run, no kernel log
head -n 8 "$out" > "$T/hang.out"
head -n 200 "$con" > "$T/hang.console"
judge "a guest that hung" ok 124 "$T/hang.out" "$T/hang.console" fail
judge "a guest that hung" fail 124 "$T/hang.out" "$T/hang.console" detected 'the guest hung: killed at its bound of 195 s'

# a kernel splat in the dumped log, mmbench clean
awk '{ print } /^dmesg \| .*Freeing unused kernel image/ && !d { print "dmesg | [   30.000000] BUG: Bad page state in process mmbench  pfn:1234"; d = 1 }' "$out" |
	sed 's/lines=293@@/lines=294@@/' > "$T/splat.out"
expect_eq "the splat fixture has its BUG line" 1 "$(grep -c 'BUG: Bad page state' "$T/splat.out")"
judge "a BUG in the kernel log" ok 0 "$T/splat.out" "$con" fail 'kernel splat in .*BUG: Bad page state'
judge "a BUG in the kernel log" fail 0 "$T/splat.out" "$con" detected 'kernel splat in .*BUG: Bad page state'

# a guest check that failed (the wrong kernel booted): no evidence either way
sed 's/^ok       running kernel release: .*/FAIL     running kernel release: expected '"'"'6.1.192-mmbatch2-guest'"'"', actual '"'"'6.12.117-mmbatch2-guest'"'"'/' "$out" > "$T/wrong.out"
judge "the wrong kernel booted" ok 0 "$T/wrong.out" "$con" fail 'a guest check failed: FAIL     running kernel release'
judge "the wrong kernel booted" fail 0 "$T/wrong.out" "$con" fail 'a guest check failed'

# a kind that cannot run here: a skip, never a pass
sed 's/^integrity-result shmem 0 12183 0 0 0$/mmbench | integrity kind shmem: skipped: KSM merged no page within 10 s (pages_sharing 0)\nintegrity-result shmem 77 - - - -/' "$out" > "$T/skip.out"
judge "a kind skipped" ok 77 "$T/skip.out" "$con" skip 'skipped: KSM merged no page within 10 s'
judge "a kind skipped" fail 77 "$T/skip.out" "$con" skip

# the whole run skipped (one NUMA node), as mmbench says it
sed 's/^integrity-result shmem 0 12183 0 0 0$/mmbench | integrity: skipped: needs 2 NUMA nodes with memory, this machine has 1\nintegrity-result shmem 77 - - - -/' "$out" > "$T/skip1.out"
judge "the run skipped on one node" ok 77 "$T/skip1.out" "$con" skip 'skipped: needs 2 NUMA nodes with memory'

# exit 1 without a figure (mmbench could not set up): no evidence
sed 's/^integrity-result shmem 0 12183 0 0 0$/integrity-result shmem 1 - - - -/' "$out" > "$T/err.out"
judge "exit 1 without a figure" fail 1 "$T/err.out" "$con" fail 'no evidence either way'

# recorded on the canary's BAD kernel (6.1 without the TLB flush before the
# copy), as they happened: a lost write, a read-only fork-shared child
# killed by SIGSEGV, a guest that hung in the shmem kind, and the ksm kind
# that ended clean
b=$fx/bad-6.1
judge "BAD kernel, anon: a lost write" fail 1 "$b-anon.out" "$b-anon.console" detected \
	'^detected 21314 1 0 0 exit 1: 1 lost writes, 0 corrupt bytes, 0 stray bytes$'
judge "BAD kernel, anon: a lost write" ok 1 "$b-anon.out" "$b-anon.console" fail
judge "BAD kernel, fork-shared: a child killed" fail 1 "$b-fork-shared.out" "$b-fork-shared.console" detected \
	'1 children failed \(child [0-9]+ killed by signal 11 \(Segmentation fault\)\)$'
judge "BAD kernel, fork-shared: a child killed" ok 1 "$b-fork-shared.out" "$b-fork-shared.console" fail
judge "BAD kernel, shmem: the guest hung" fail 124 "$b-shmem.out" "$b-shmem.console" detected 'the guest hung'
judge "BAD kernel, ksm: ended clean" fail 0 "$b-ksm.out" "$b-ksm.console" NOT-DETECTED
# a child that failed without a signal is no evidence
sed 's/first: child \([0-9]*\) killed by signal 11 (Segmentation fault)/first: child \1 exited 1/' "$b-fork-shared.out" > "$T/child-exit.out"
judge "a child that exited 1" fail 1 "$T/child-exit.out" "$b-fork-shared.console" fail 'no evidence either way'

# bad calls of the verdict mode
rc=0; "$run" --verdict maybe 0 "$out" "$con" 195 > /dev/null 2> "$T/err" || rc=$?
expect_eq "--verdict with a bad expectation: exit" 2 "$rc"
expect_match "--verdict with a bad expectation: the message" "^ERROR: integrity-run: --expect 'maybe': expected ok or fail$" "@$T/err"
# the kinds are checked before anything boots; file-ext4 is one of them
rc=0; MMBENCH_STATIC=/bin/true OUT=$T/kinds-out "$run" --kinds anon,file-ext3 "$T/none.env" > /dev/null 2> "$T/err" || rc=$?
expect_eq "--kinds with an unknown kind: exit" 2 "$rc"
expect_match "--kinds with an unknown kind: names it and the kinds" "^ERROR: integrity-run: --kinds: unknown kind 'file-ext3' \(anon, anon-thp, fork-shared, shmem, file, file-ext4, ksm, mixed\)$" "@$T/err"
expect_absent "--kinds with an unknown kind: nothing written" "$T/kinds-out/peer"
test_summary
