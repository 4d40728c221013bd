#!/bin/bash
# The verdicts of the stress-ng runs (tools/peer/stress-ng.sh, whose guest
# side is tests/vm/stress_ng_guest.sh) on recorded stress-ng output, no VM
# boot (tests/vm/fixtures/stress-ng/, README there says where each came from):
#   - the guest's verdict of one run (stress_ng_guest.sh --parse, the
#     function the guest runs after each stressor) on real logs: passes
#     (numa, vm-ksm, memhotplug with its extra metrics lines, in a guest on
#     Debian's 6.12; vm flip and memhotplug on our 6.12 guest); a real skip
#     (numa on our guest, whose kernel has no cpusets: stress-ng 0.15 finds
#     the nodes in /proc/self/status's Mems_allowed; exit 3); a
#     verification failure (a vm worker whose buffer was
#     overwritten while it ran: "detected 4 memory errors", exit 2); a
#     stressor that failed with exit 2 and no fail line (madvise); one
#     that ended "successful" with 0 bogo ops (mmap on our 6.1 guest); a skip
#     (apparmor as a user without CAP_SYS_ADMIN: "will be skipped", exit
#     0); an option stress-ng rejects (exit 1); and a recorded pass log
#     under every other exit status stress-ng documents (0-7), the hang
#     guard's 124/137, and with its last line, its metrics line or its log
#     missing; a skip is never a pass, every reason is free of ": " (the
#     host reads "NOT-LIVE NAME: WHY");
#   - the guest's stressor check against stress-ng 0.15.06's --help: it has
#     --numa --vm --mmap --madvise --memhotplug, not --ksm;
#   - tools/peer/stress-ng.sh --verdicts on a recorded guest output: one
#     line per planned stressor with the guest's verdict; the output cut off
#     in the middle fails the stressors that lost their line; no plan line
#     fails; and tests/vm/host.sh's guest_results counts the guest's ok,
#     FAIL and NOT-LIVE lines as passes, fails and skips;
#   - stress-ng.sh --splats (the kernel-log verdict): memory offlining's page
#     dumps (recorded on our 6.12 guests: "unmovable page", "isolation failed", "migration
#     failure") are counted and pass; a recorded RCU stall or lockdep report
#     right after them still fails (they open no report that would hide
#     it), as does a page dumped for another reason and a cut-off dump.
#   stress_ng_parse_test.sh
# Reads: OUT (scratch space).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
fx=$TOP/tests/vm/fixtures/stress-ng
guest=$TOP/tests/vm/stress_ng_guest.sh
peer=$TOP/tools/peer/stress-ng.sh
# The guest's shell: dash in the Debian rootfs.
gsh=$(command -v dash || echo sh)
r=0 r_out=

# verdict WHAT VERDICT REASON_ERE NAME STRESSOR RC SECONDS FILE...: the
# guest's result line for one recorded run is "stress-ng-result NAME
# VERDICT SECONDS REASON", REASON matching REASON_ERE and free of ": ".
verdict() {
	local what=$1 want=$2 ere=$3 line
	shift 3
	line=$("$gsh" "$guest" --parse "$@" 2>&1)
	echo "    | $line"
	expect_match "$what: verdict $want" "^stress-ng-result $(re_quote "$1") $want $4 ." "$line"
	# (an ERE anchored with ^ starts at the reason)
	case $ere in ^*) ere=${ere#^} ;; *) ere=".*$ere" ;; esac
	expect_match "$what: reason" "^stress-ng-result [^ ]+ [a-z]+ [0-9]+ $ere" "$line"
	expect_no_match "$what: no ': ' in the line" ': ' "$line"
	expect_lines "$what: one line" 1 "$line"
}

echo "recorded runs"
verdict "numa on 2 nodes (Debian 6.12 guest)" pass '^14 bogo ops$' numa numa 0 21 "$fx/stock-6.12-numa.log"
verdict "vm flip on our 6.12 guest" pass '^73728 bogo ops$' vm-flip vm 0 22 "$fx/guest-6.12-vm-flip.log"
verdict "memhotplug on our 6.12 guest" pass '^4 bogo ops$' memhotplug memhotplug 0 21 "$fx/guest-6.12-memhotplug.log"
verdict "numa on a kernel without cpusets (no Mems_allowed)" skip '^numa; no NUMA nodes found, skipping test \(exit 3\)$' \
	numa numa 3 1 "$fx/guest-6.12-numa-skip.log"
verdict "vm with --vm-madvise mergeable" pass '^12288 bogo ops$' vm-ksm vm 0 38 "$fx/stock-6.12-vm-ksm.log"
verdict "memhotplug (with its miscellaneous metrics lines)" pass '^308 bogo ops$' memhotplug memhotplug 0 22 "$fx/stock-6.12-memhotplug.log"
# the log and stress-ng's stdout hold the same lines: counted once
verdict "the log and stdout together" pass '^14 bogo ops$' numa numa 0 21 "$fx/stock-6.12-numa.log" "$fx/stock-6.12-numa.log"
verdict "vm buffer overwritten while it ran" fail 'zero-one; detected 4 memory errors \(exit 2\)$' \
	vm-zero-one vm 2 4 "$fx/host-vm-corrupted.log" "$fx/host-vm-corrupted.out"
verdict "madvise: exit 2, no fail line" fail '^one or more stressors failed \(exit 2\)$' madvise madvise 2 22 "$fx/stock-6.12-madvise.log"
verdict "apparmor without CAP_SYS_ADMIN" skip '^apparmor stressor will be skipped, need to be running with CAP_SYS_ADMIN rights for this stressor$' \
	apparmor apparmor 0 0 "$fx/host-apparmor-nonroot.log" "$fx/host-apparmor-nonroot.out"
verdict "an option stress-ng rejects" fail "^stress-ng exit 1; invalid vm-madvise advice 'sometimes'" vm vm 1 0 "$fx/host-bad-option.out"
verdict "mmap on our 6.1 guest: exit 0, successful, 0 bogo ops" fail '^no bogo ops counted for mmap$' mmap mmap 0 26 "$fx/guest-6.1-mmap-zero.log"
verdict "the metrics of another stressor" fail '^no bogo ops counted for mmap$' mmap mmap 0 21 "$fx/stock-6.12-numa.log"

echo "a recorded pass under other exit statuses and cut short"
p=$fx/stock-6.12-numa.log
verdict "exit 1" fail '^stress-ng exit 1$' numa numa 1 21 "$p"
verdict "exit 2" fail 'failed \(exit 2\)$' numa numa 2 21 "$p"
verdict "exit 3 (no resources)" skip '^no resources \(stress-ng exit 3\)$' numa numa 3 21 "$p"
verdict "exit 4 (not implemented)" skip '^not implemented here \(stress-ng exit 4\)$' numa numa 4 21 "$p"
verdict "exit 5" fail 'killed by an unexpected signal \(exit 5\)$' numa numa 5 21 "$p"
verdict "exit 6" fail 'exited unexpectedly, no timing metrics \(exit 6\)$' numa numa 6 21 "$p"
verdict "exit 7" fail '^bogo-ops metrics untrustworthy \(exit 7\)$' numa numa 7 21 "$p"
verdict "the hang guard (124)" fail '^did not end within 140 s \(killed by the hang guard, exit 124\)$' numa numa 124 140 "$p"
verdict "the hang guard's kill (137)" fail 'hang guard, exit 137\)$' numa numa 137 150 "$p"
head -n -1 "$p" > "$T/no-end.log"
verdict "no run completed line" fail '^no run completed line' numa numa 0 21 "$T/no-end.log"
sed 's/successful run completed/unsuccessful run completed/' "$p" > "$T/unsuccessful.log"
verdict "unsuccessful run completed, exit 0" fail '^unsuccessful run completed \(exit 0\)$' numa numa 0 21 "$T/unsuccessful.log"
grep -v '] numa  ' "$p" > "$T/no-metrics.log"
verdict "no metrics line" fail '^no bogo ops counted for numa$' numa numa 0 21 "$T/no-metrics.log"
sed 's/] numa                 14 /] numa                  0 /' "$p" > "$T/zero.log"
verdict "zero bogo ops" fail '^no bogo ops counted for numa$' numa numa 0 21 "$T/zero.log"
verdict "no log at all" fail '^no run completed line' numa numa 0 21 "$T/missing.log"
{ cat "$p"; echo 'stress-ng: error: [665] numa: mbind failed, errno=22 (Invalid argument)'; } > "$T/error.log"
verdict "an error line" fail '^stress-ng error; numa; mbind failed, errno=22 \(Invalid argument\) \(exit 0\)$' numa numa 0 21 "$T/error.log"
{ cat "$p"; echo 'stress-ng: info:  [666] numa: no NUMA nodes found, skipping test'; } > "$T/skipmsg.log"
verdict "a skip message beside counted ops" skip '^numa; no NUMA nodes found, skipping test$' numa numa 0 21 "$T/skipmsg.log"
{ cat "$fx/host-vm-corrupted.log"; echo 'stress-ng: info:  [1] vm: skipping stressor'; } > "$T/fail-and-skip.log"
verdict "a fail line beats a skip message" fail 'detected 4 memory errors' vm vm 2 4 "$T/fail-and-skip.log"

echo "stress-ng 0.15.06's stressors"
for opt in --numa --vm --mmap --madvise --memhotplug; do
	capture r "$gsh" "$guest" --has-option "$opt" "$fx/help-0.15.06.txt"
	expect_status "--help lists $opt" 0 "$r"
done
for opt in --ksm --vm-m --mmap-bytes-x; do
	capture r "$gsh" "$guest" --has-option "$opt" "$fx/help-0.15.06.txt"
	expect_status "--help lists no $opt stressor" 1 "$r"
done

echo "the host's verdict lines from a recorded guest output"
g=$fx/guest-6.12.out
capture r "$peer" --verdicts "$g"
printf '%s\n' "$r_out" | sed 's/^/    | /'
plan=$(sed -n 's/^    | stress-ng-plan: //p' "$g")
expect_lines "one verdict per planned stressor ($plan)" "$(wc -w <<< "$plan")" "$r_out"
results=$(sed -n 's/^    | stress-ng-result //p' "$g" | awk '{s = $4; for (i = 5; i <= NF; i++) s = s " " $i; print $1, $2, $3, s}')
expect_eq "the verdicts are the guest's result lines, in plan order" "$results" "$r_out"
want=0
grep -q '^    | stress-ng-result [^ ]* fail ' "$g" && want=1
expect_status "--verdicts: exit 1 exactly when a verdict is a fail" "$want" "$r"
# cut off before the second half of the plan
n=$(grep -n '^    | stress-ng-result ' "$g" | sed -n 4p | cut -d: -f1)
head -n "$n" "$g" > "$T/cut.out"
capture r "$peer" --verdicts "$T/cut.out"
expect_status "--verdicts of an output cut off after 4 results" 1 "$r"
expect_lines "  still one verdict per planned stressor" "$(wc -w <<< "$plan")" "$r_out"
expect_eq "  the stressors after the cut fail for want of a result line" "$(($(wc -w <<< "$plan") - 4))" \
	"$(grep -c ' fail 0 no result line from the guest' <<< "$r_out")"
grep -v 'stress-ng-plan' "$g" > "$T/noplan.out"
capture r "$peer" --verdicts "$T/noplan.out"
expect_fails "--verdicts without a plan line" '^plan fail 0 no stress-ng-plan line' "$r" "$r_out"

echo "the kernel-log scan, with memory offlining's page dumps"
# mkout OUT CONSOLE DMESG...: OUT a guest output whose dumped kernel log is
# the DMESG files' lines (tests/vm/lib.sh's format), CONSOLE those lines.
mkout() {
	local o=$1 c=$2
	shift 2
	cat "$@" > "$c"
	{ echo "@@DMESG-BEGIN@@"; sed 's/^/dmesg | /' "$c"; echo "@@DMESG-END rc=0 lines=$(wc -l < "$c")@@"; } > "$o"
}
off=$fx/guest-6.12-offline.dmesg
mkout "$T/off.out" "$T/off.console" "$off"
capture r "$peer" --splats "$T/off.out" "$T/off.console"
printf '%s\n' "$r_out" | sed 's/^/    | /'
expect_status "--splats: memhotplug's unmovable and unmigrated page dumps (recorded, our 6.12 guest)" 0 "$r"
expect_line "  counted, not taken for splats" "offline: memory offlining dumped 1 unmovable, 0 unisolated and 3 unmigrated pages (1 pfns), blanked for the scan" "$r_out"
# unmovable pages only (as on the 6.1 guest): no "migrating pfn" line
grep -v -e 'migrating pfn' -e 'migration failure' "$off" > "$T/unmovable.dmesg"
mkout "$T/unmovable.out" "$T/unmovable.console" "$T/unmovable.dmesg"
capture r "$peer" --splats "$T/unmovable.out" "$T/unmovable.console"
expect_status "--splats: unmovable-page dumps alone" 0 "$r"
expect_line "  counted" "offline: memory offlining dumped 1 unmovable, 0 unisolated and 0 unmigrated pages (0 pfns), blanked for the scan" "$r_out"
# pages offlining could not isolate (recorded, the vanilla 6.12 guest, whose
# scan failed that run on "isolation failed":
# docs/results/2026-12-05-peer-stress-ng.md)
iso=$fx/guest-6.12-isolation.dmesg
mkout "$T/iso.out" "$T/iso.console" "$iso"
capture r "$peer" --splats "$T/iso.out" "$T/iso.console"
expect_status "--splats: memhotplug's isolation-failed page dumps (recorded)" 0 "$r"
expect_line "  counted" "offline: memory offlining dumped 1 unmovable, 2 unisolated and 0 unmigrated pages (1 pfns), blanked for the scan" "$r_out"
mkout "$T/iso2.out" "$T/iso2.console" "$iso" "$fx/guest-6.12-rcu-stall.dmesg"
capture r "$peer" --splats "$T/iso2.out" "$T/iso2.console"
expect_fails "--splats: the recorded RCU stall right after them" "kernel splat in the guest's kernel log \(.*\) line 34: rcu: INFO: rcu_sched detected stalls" "$r" "$r_out"
# shellcheck disable=SC2016 # the child expands them
capture r env TEST_NAME=inner bash -c '. "$1/tests/lib/assert.sh"; . "$1/tests/vm/host.sh"; splat_scan raw "$2"' sh "$TOP" "$off"
expect_fails "  the same log through host.sh's splat_scan alone fails" "kernel splat in raw line [0-9]+: page dumped because" "$r" "$r_out"
mkout "$T/stall.out" "$T/stall.console" "$off" "$fx/guest-6.12-rcu-stall.dmesg"
capture r "$peer" --splats "$T/stall.out" "$T/stall.console"
expect_fails "--splats: the recorded RCU stall right after those dumps" \
	"kernel splat in the guest's kernel log \(.*\) line 34: rcu: INFO: rcu_sched detected stalls on CPUs/tasks:" "$r" "$r_out"
expect_match "  and on the console" "kernel splat in the serial console \(.*\) line 34: rcu: INFO: rcu_sched detected stalls" "$r_out"
mkout "$T/lockdep.out" "$T/lockdep.console" "$off" "$TOP/tests/vm/fixtures/splat/lockdep-circular.log"
capture r "$peer" --splats "$T/lockdep.out" "$T/lockdep.console"
expect_fails "--splats: a recorded lockdep report right after those dumps" "kernel splat in the guest's kernel log \(.*\) line 3[4-9]: .*(circular locking|WARNING)" "$r" "$r_out"
sed 's/page dumped because: migration failure$/page dumped because: nonzero mapcount/' "$off" > "$T/mapcount.dmesg"
mkout "$T/mapcount.out" "$T/mapcount.console" "$T/mapcount.dmesg"
capture r "$peer" --splats "$T/mapcount.out" "$T/mapcount.console"
expect_fails "--splats: a page dumped for another reason" "kernel splat in the guest's kernel log \(.*\) line [0-9]+: page dumped because: nonzero mapcount" "$r" "$r_out"
head -n -2 "$T/off.out" > "$T/cut.out"
capture r "$peer" --splats "$T/cut.out" "$T/off.console"
expect_fails "--splats: a dump cut off" "the guest's kernel log could not be read" "$r" "$r_out"

# guest_results counts the guest's lines (tests/vm/host.sh) like any other.
# shellcheck disable=SC2016 # the child expands them
capture r env TEST_NAME=inner bash -c '. "$1/tests/lib/assert.sh"; . "$1/tests/vm/host.sh"; guest_results "$2"' sh "$TOP" "$g"
want="inner: $(grep -c '^ok       ' "$g") passed, $(grep -c '^FAIL     ' "$g") failed, $(grep -c '^NOT-LIVE ' "$g") skipped"
expect_line "guest_results counts ok, FAIL and NOT-LIVE lines" "$want" "$r_out"
expect_contains "the ksm skip is counted as a skip, with its reason" \
	"SKIP: stress-ng ksm: not live on this guest: stress-ng 0.15.06 has no --ksm stressor (stress-ng --help)" "$r_out"
test_summary
