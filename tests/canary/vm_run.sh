#!/bin/bash
# The canary cycle on a booted machine (part of `make check-canary`): one
# qemu disk with GRUB, a Debian rootfs (MKCHROOT_SUITE: bookworm, the
# default, or e.g. trixie) and three dpkg-installed kernels,
#   GOOD  6.12 guest, installed first and booted first,
#   BAD   6.1 guest with patches/test/6.1-migrate-skip-flush.patch: built to
#         fail the smoke gate (its migrations lose writes: the smoke's
#         integrity benchmark reports corrupt bytes),
#   NEW   6.1 guest, good,
# and five boots of it; the disk keeps GRUB's environment, /var/lib/mmbatch
# and the journal, and a reboot inside the guest ends qemu (-no-reboot) so
# the next boot here is the machine coming back:
#   1 provision  GOOD booted directly: grub-install, GRUB_DEFAULT=saved,
#                update-grub, refusals, `mmbatchctl canary BAD`
#   2 (BAD)      GRUB boots BAD once; its smoke run fails; mmbatch-canary
#                records why and reboots before any test command runs
#   3 after-fail GRUB's saved default is GOOD again; status and the previous
#                boot's journal say why; the crash guard is gone; BAD armed
#                again, with a unit that kills PID 1 on its boot
#   4 (BAD)      PID 1 crashes before the smoke run; the crash guard
#                (CrashReboot=yes, written by mmbatchctl canary) reboots it
#                instead of freezing
#   5 after-crash GOOD again: failed, "never reached its smoke verdict";
#                `mmbatchctl canary --reboot NEW`
#   6 after-pass NEW booted once, passed, and is GRUB's default now
#   7 final      a plain reboot comes up in NEW
# Guest-side checks: tests/canary/guest_step.sh, run by the guest's sh with
# tests/vm/lib.sh's one-line results (the POSIX sh vocabulary the busybox
# guests share; tests/lib/assert.sh is bash), each counted here as a pass,
# fail or skip (tests/vm/host.sh), and any kernel splat in the kernel log a
# boot of GOOD or NEW dumps or in its console fails (host.sh guest_splats).
# Boots 2 and 4 (BAD) run no command; their consoles' reports are listed,
# not judged (guest_splats --not-judged): BAD's lost flushes let writes land
# in freed pages that anyone may hold by then, so a report there is one of
# its symptoms. Logs: $OUT/vm/canary/.
# The three kernels are read by their identity files (tools/kbuild/
# identity.sh; `make check-canary` builds and packages them first, BAD with
# tools/vmtest/build-kernel.sh and EXTRA_PATCHES): KERNELRELEASE and
# IMAGE_DEB of each, MMBATCHD_DEB of GOOD's (the mmbatchd package carries
# mmbatchctl, the units and the smoke script), GOOD's IMAGE to probe KVM. A
# missing key fails the test, naming the file and the key.
# `vm_run.sh --rootfs` makes the disk's root alone (tools/vmtest/mkrootfs.sh
# caches it by its inputs), prints its directory and boots nothing: make
# check's prebuild stage makes it ahead, off the guests' lane.
# Reads: CANARY_GOOD, CANARY_BAD, CANARY_NEW (identity files), OUT,
# MKCHROOT_SUITE (the root's Debian suite, default bookworm; logs in
# $OUT/vm/canary-<suite> for another), CANARY_BOOT_TIMEOUT (seconds per
# boot, default 900).
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
suite=${MKCHROOT_SUITE:-bookworm}
logs=$out/vm/canary
[ "$suite" = bookworm ] || logs+=-$suite
timeout=${CANARY_BOOT_TIMEOUT:-900}
vmtest=$top/tools/vmtest/vmtest
mkdir -p "$logs"
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
note() { echo "canary-vm: $*" >&2; }

# The resolution step, before anything is built or booted.
# shellcheck source=tests/lib/canary_kernels.sh
. "$top/tests/lib/canary_kernels.sh"
canary_kernels canary-vm CANARY_GOOD CANARY_BAD CANARY_NEW
# make_rootfs: the disk's root, GRUB and the three kernels, in $logs/rootfs
# (a link into mkrootfs's cache; the boots run on a copy).
make_rootfs() { "$top/tools/vmtest/mkrootfs.sh" -o "$logs/rootfs" --grub "$ddeb" "$good_deb" "$bad_deb" "$new_deb"; }
case $#:${1:-} in
0:) ;;
1:--rootfs)
	# stdout is the directory alone (mkfs.ext4 prints to it)
	make_rootfs >&2 || { note "ERROR: the disk's root (Debian $suite) could not be made (tools/vmtest/mkrootfs.sh)"; exit 1; }
	echo "$logs/rootfs"
	exit 0 ;;
*) echo "usage: vm_run.sh [--rootfs]" >&2; exit 2 ;;
esac

TEST_NAME=vm
[ "$suite" = bookworm ] || TEST_NAME+=-$suite
# shellcheck source=tests/lib/assert.sh
. "$top/tests/lib/assert.sh"
# shellcheck source=tests/vm/host.sh
. "$top/tests/vm/host.sh"
t_all=$SECONDS
rm -f "$logs"/[0-9]-*.out "$logs"/[0-9]-*.console "$logs"/[0-9]-*.dmesg
note "kernels: GOOD $good, BAD $bad, NEW $new; root: Debian $suite"

t=$SECONDS
step rootfs make_rootfs
rootdir=$logs/rootfs
expect_file "mkrootfs --grub made a disk" "$rootdir/disk.img"
[ -f "$rootdir/disk.img" ] || exit 1
disk=$logs/disk.img
cp --sparse=always "$rootdir/disk.img" "$disk"
note "disk: $(readlink "$rootdir") ($((SECONDS - t)) s)"

# boot N STEP EXPECTED_RC KERNEL [vmtest options]: one power-on of the disk,
# running guest_step.sh STEP; checks the exit status; output in $logs/N-STEP.*
boot() {
	local n=$1 step=$2 want=$3 kernel=$4 rc=0 t0=$SECONDS
	shift 4
	note "boot $n: $step ($kernel) ..."
	"$vmtest" boot "$kernel" --disk "$disk" --probe-kernel "$probe" "$@" --timeout "$timeout" --log "$logs/$n-$step.console" \
		--add "$top/tests/vm/lib.sh" --add "$here/guest_step.sh" \
		-- sh guest_step.sh "$step" "$good" "$bad" "$new" > "$logs/$n-$step.out" 2>&1 || rc=$?
	echo "boot $n ($step):"
	guest_results "$logs/$n-$step.out"
	if [ "$step" = must-not-run ]; then
		guest_splats "$logs/$n-$step.out" "$logs/$n-$step.console" --not-judged "the canary boot of the BAD kernel, built to lose TLB flushes"
	else
		guest_splats "$logs/$n-$step.out" "$logs/$n-$step.console"
	fi
	expect_status "boot $n ($step): vmtest exit (console: $logs/$n-$step.console)" "$want" "$rc"
	note "boot $n: $((SECONDS - t0)) s"
}
# console_has N STEP WHAT ERE: a line of that boot's console matches.
console_has() { expect_match "boot $1 console: $3" "$4" "@$logs/$1-$2.console"; }

boot 1 provision 0 "$rootdir/vmlinuz" --initramfs "$rootdir/initrd.img"
boot 2 must-not-run 126 firmware
console_has 2 must-not-run "GRUB booted $bad" "Linux version $(re_quote "$bad") "
console_has 2 must-not-run "mmbatch-canary: the smoke's integrity benchmark failed" "kernel $(re_quote "$bad") FAILED: smoke run: FAILED: integrity: [1-9][0-9]* corrupt bytes"
console_has 2 must-not-run "mmbatch-canary reboots into $good" "canary: rebooting into $(re_quote "$good")"
console_has 2 must-not-run "reboot" "reboot: Restarting system"
boot 3 after-fail 126 firmware
console_has 3 after-fail "GRUB booted $good" "Linux version $(re_quote "$good") "
# (mmbatchctl prints both lines before it calls systemctl reboot; whatever
# the guest prints after that may be cut off by the shutdown.)
expect_contains "boot 3: every after-fail check passed" "canary-step: after-fail checks done (0 failed)" "@$logs/3-after-fail.out"
expect_contains "boot 3: mmbatchctl canary $bad armed it again" "mmbatchctl: canary: armed: $bad boots once" "@$logs/3-after-fail.out"
# Without the crash guard PID 1 freezes here ("Freezing execution.") and
# this boot ends only at its timeout.
boot 4 must-not-run 126 firmware
console_has 4 must-not-run "GRUB booted $bad" "Linux version $(re_quote "$bad") "
# PID 1 logs to the kernel log here (systemd.log_target=kmsg, set at
# provision), so its crash handler's line is on the console: the unit's
# SIGSEGV, or an earlier crash of PID 1 on the BAD kernel (Debian 13 once).
console_has 4 must-not-run "PID 1's crash handler caught the crash" "systemd\[1\]: Caught <[A-Z]+>"
expect_no_match "boot 4 console: PID 1 did not freeze (the crash guard)" "systemd\[1\]: Freezing execution" "@$logs/4-must-not-run.console"
console_has 4 must-not-run "the kernel restarts the machine" "reboot: Restarting system"
boot 5 after-crash 126 firmware
console_has 5 after-crash "GRUB booted $good" "Linux version $(re_quote "$good") "
expect_contains "boot 5: every after-crash check passed" "canary-step: after-crash checks done (0 failed)" "@$logs/5-after-crash.out"
expect_contains "boot 5: mmbatchctl canary --reboot $new armed it" "mmbatchctl: canary: armed: $new boots once" "@$logs/5-after-crash.out"
expect_contains "boot 5: mmbatchctl canary --reboot $new rebooted the guest" "mmbatchctl: canary: rebooting now" "@$logs/5-after-crash.out"
boot 6 after-pass 0 firmware
console_has 6 after-pass "GRUB booted $new" "Linux version $(re_quote "$new") "
boot 7 final 0 firmware
console_has 7 final "GRUB booted $new" "Linux version $(re_quote "$new") "

note "total $((SECONDS - t_all)) s"
test_summary
