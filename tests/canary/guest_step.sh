#!/bin/sh
# Guest side of the canary cycle (tests/canary/vm_run.sh boots the machine
# once per step; its disk keeps GRUB's environment, /var/lib/mmbatch and the
# journal between boots):
#   sh guest_step.sh provision GOOD BAD NEW   (booted directly, kernel GOOD)
#   sh guest_step.sh after-fail GOOD BAD NEW  (GRUB fell back to GOOD)
#   sh guest_step.sh after-crash GOOD BAD NEW (PID 1 crashed on BAD's
#                                              second canary boot; GOOD again)
#   sh guest_step.sh after-pass GOOD BAD NEW  (the canary boot of NEW)
#   sh guest_step.sh final GOOD BAD NEW       (NEW is now GRUB's default)
#   sh guest_step.sh must-not-run ...         (the BAD boot reboots before)
# GOOD is installed and booted first, BAD is the kernel built to fail the
# smoke gate (the 6.1 negative-control build whose migration skips a TLB
# flush: the smoke's integrity benchmark loses writes), NEW a good kernel.
# Prints one line per check (tests/vm/lib.sh); exits non-zero on a failure.
# Every step that runs ends by dumping the kernel log (lib.sh's
# vm_dump_kernel_log; after-fail before it reboots) for the host's splat scan.
# shellcheck source=tests/vm/lib.sh
. ./lib.sh

[ $# -eq 4 ] || { echo "usage: guest_step.sh STEP GOOD BAD NEW"; exit 2; }
step=$1 good=$2 bad=$3 new=$4
state=/var/lib/mmbatch
env_list() { grub-editenv /boot/grub/grubenv list 2>&1; }
env_get() { env_list | sed -n "s/^$1=//p"; }
# entry KVER: the menu path mmbatchctl must have picked for KVER.
entry() {
	awk -v k="$1" '
		/^submenu / { match($0, /gnulinux-advanced-[^'\'']*/); sub_id = substr($0, RSTART, RLENGTH) }
		/menuentry / && index($0, "gnulinux-" k "-advanced-") {
			match($0, /gnulinux-[^'\'']*-advanced-[^'\'']*/); print sub_id ">" substr($0, RSTART, RLENGTH); exit }' /boot/grub/grub.cfg
}
status_out() { mmbatchctl canary --status 2>&1; echo "exit=$?"; }
guard=/etc/systemd/system.conf.d/50-mmbatch-canary.conf
guard_state() { if [ -e "$guard" ]; then grep -x 'CrashReboot=yes' "$guard" 2>&1 || echo "present, without CrashReboot=yes"; else echo absent; fi; }
# The crash case: a unit that kills PID 1 with SIGSEGV on BAD's canary boot
# before its smoke run, the way the BAD kernel's corrupted memory crashed
# systemd in the rollout VM test (docs/results/2026-12-02-rollout.md). Armed
# by its marker file only, so BAD's first canary boot is the smoke failure.
crash_marker=/etc/mmbatch-test-crash-pid1
install_crash_unit() {
	cat > /etc/systemd/system/mmbatch-test-crash-pid1.service <<UNIT
[Unit]
Description=canary test: crash PID 1 on $bad's canary boot
ConditionKernelVersion=$bad
ConditionPathExists=$crash_marker
Before=mmbatch-smoke.service mmbatch-canary.service
[Service]
Type=oneshot
ExecStart=/bin/kill -SEGV 1
[Install]
WantedBy=multi-user.target
UNIT
	systemctl enable mmbatch-test-crash-pid1.service 2>&1
}

case "$step" in
provision)
	# What an operator does once per host (README "Canary boots"), and what
	# the image could not do from a chroot: GRUB on the disk, a menu that
	# lists every installed kernel, GRUB_DEFAULT=saved.
	vm_expect "running kernel (booted directly)" "$good" "$(uname -r)"
	sed -i 's/^GRUB_DEFAULT=.*/GRUB_DEFAULT=saved/' /etc/default/grub
	# PID 1 logs to the kernel log (test only): its crash handler's
	# "Caught <SIG>" line is at emergency priority, so the console shows
	# it even when the crash comes before journald flushed the runtime
	# journal to disk (boot 4 on Debian 13: the BAD kernel crashed PID 1
	# during the flush, and the line was lost with /run).
	# shellcheck disable=SC2016 # grub-mkconfig's shell expands it
	printf '%s\n' '# mmbatch canary test: PID 1 logs to the kernel log (its crash line on the console)' \
		'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX systemd.log_target=kmsg"' >/etc/default/grub.d/90-mmbatch-canary-test.cfg
	vm_expect "grub-install /dev/vda" 0 "$(grub-install --target=i386-pc /dev/vda >"$vm_tmp/gi.log" 2>&1; echo $?)"
	[ -s "$vm_tmp/gi.log" ] && sed 's/^/  grub-install: /' "$vm_tmp/gi.log"
	vm_expect "update-grub" 0 "$(update-grub >"$vm_tmp/ug.log" 2>&1; echo $?)"
	sed 's/^/  update-grub: /' "$vm_tmp/ug.log"
	vm_expect "grub.cfg: PID 1 logs to the kernel log" yes "$(grep -q 'systemd\.log_target=kmsg' /boot/grub/grub.cfg && echo yes || echo no)"
	for k in "$good" "$bad" "$new"; do
		vm_expect_match "grub.cfg has an entry for $k" "gnulinux-advanced-*>gnulinux-$k-advanced-*" "$(entry "$k")"
	done
	# The gate under test is the integrity check (corrupt bytes: judged,
	# and any change from 0 fails); speed differences between a 6.12 and a
	# 6.1 TCG guest are not what this cycle is about (ctl_test and the
	# smoke script test cover regressions).
	sed -i '/^# vmtest: TCG guests are slow$/,$d' /etc/mmbatch/mmbatchd.yaml
	printf '%s\n' '# canary test: the integrity benchmark is the gate' 'smoke:' \
		'  benchmarks: [integrity]' '  threshold_pct: 100' '  timeout_s: 600' >> /etc/mmbatch/mmbatchd.yaml
	err=$(mmbatchd --check /etc/mmbatch/mmbatchd.yaml 2>&1 >/dev/null); rc=$?
	vm_expect "mmbatchd --check of the edited profile" 0 "$rc${err:+ ($err)}"
	# GOOD's own first-boot smoke ran before this command, with the
	# shipped benchmark list; run it again with the edited one, so that
	# NEW's result has a comparable baseline.
	vm_expect "first-boot smoke verdict of $good" pass "$(sed -n 's/^result=//p' "$state/verdict/$good" 2>&1)"
	: > "$state/pending/$good"
	vm_expect "mmbatch-smoke.service again on $good (the edited list)" 0 "$(systemctl start mmbatch-smoke.service 2>&1; echo $?)"
	vm_expect "smoke verdict of $good with the edited list" pass "$(sed -n 's/^result=//p' "$state/verdict/$good" 2>&1)"
	# Refusals leave GRUB alone.
	before=$(env_list | sort | paste -sd' ')
	vm_expect_match "canary of the running kernel is refused" "*is the running kernel*" "$(mmbatchctl canary "$good" 2>&1; echo "exit=$?")"
	vm_expect_match "canary of a kernel that is not installed is refused" "*not installed*exit=2" "$(mmbatchctl canary 9.9.9-none 2>&1; echo "exit=$?")"
	vm_expect "grubenv unchanged by the refusals" "$before" "$(env_list | sort | paste -sd' ')"
	out=$(mmbatchctl canary "$bad" 2>&1; echo "exit=$?")
	echo "$out" | sed 's/^/  /'
	vm_expect_match "arm the canary of $bad" "*armed: $bad boots once*exit=0" "$out"
	vm_expect "GRUB next_entry (one-shot)" "$(entry "$bad")" "$(env_get next_entry)"
	vm_expect "GRUB saved_entry pinned to the running kernel" "$(entry "$good")" "$(env_get saved_entry)"
	vm_expect_match "status while armed" "*canary:*$bad (armed)*exit=3" "$(status_out)"
	vm_expect "smoke of $bad queued" yes "$([ -e "$state/pending/$bad" ] && echo yes || echo no)"
	vm_expect "crash guard written while armed" "CrashReboot=yes" "$(guard_state)"
	vm_expect "the crash test unit installed (unarmed: no $crash_marker)" 0 "$(install_crash_unit >"$vm_tmp/cu.log" 2>&1; echo $?)"
	;;
must-not-run)
	echo "FAIL     the canary boot of $bad reached vmtest-run: it should have rebooted into $good (running $(uname -r))"
	mmbatchctl canary --status
	exit 1
	;;
after-fail)
	vm_expect "running kernel after the failed canary (GRUB's saved default)" "$good" "$(uname -r)"
	vm_expect_match "status says failed, and why" "*$bad (failed)*why:*integrity*corrupt bytes*exit=1" "$(status_out)"
	status_out | sed 's/^/  /'
	vm_expect "$bad's smoke verdict file" fail "$(sed -n 's/^result=//p' "$state/verdict/$bad" 2>&1)"
	j=$(journalctl -b -1 -u mmbatch-canary.service -o cat --no-pager 2>&1)
	echo "$j" | sed 's/^/  journal -b -1: /'
	vm_expect_match "previous boot's journal: the verdict and the reboot" "*kernel $bad FAILED: smoke run: FAILED: integrity*rebooting into $good*" "$j"
	vm_expect_match "previous boot's journal: mmbatch-smoke failed there" "*FAILED: a smoke benchmark failed on kernel $bad*" \
		"$(journalctl -b -1 -u mmbatch-smoke.service -o cat --no-pager 2>&1)"
	vm_expect "GRUB next_entry consumed" "" "$(env_get next_entry)"
	vm_expect "GRUB saved_entry still $good" "$(entry "$good")" "$(env_get saved_entry)"
	vm_expect_no_failed_units "failed mmbatch units on $good (nothing armed now)" 'mmbatch*'
	vm_expect "crash guard removed at the canary boot" absent "$(guard_state)"
	# Next: BAD again, this time with PID 1 crashing before its smoke run.
	: > "$crash_marker"
	out=$(mmbatchctl canary "$bad" 2>&1; echo "exit=$?")
	vm_expect_match "arm the canary of $bad again (its PID 1 will crash)" "*armed: $bad boots once*exit=0" "$out"
	vm_expect "crash guard written again" "CrashReboot=yes" "$(guard_state)"
	echo "canary-step: after-fail checks done ($vm_failed failed); rebooting into $bad, whose PID 1 crashes"
	vm_dump_kernel_log
	[ "$vm_failed" = 0 ] || { vm_summary; exit 1; }
	systemctl reboot 2>&1
	echo "canary-step: systemctl reboot exit $?; waiting for the reboot"
	# systemctl reboot only queues the job: the host sees the guest go down.
	sleep 300
	exit 1
	;;
after-crash)
	vm_expect "running kernel after PID 1 crashed on $bad (GRUB's saved default)" "$good" "$(uname -r)"
	vm_expect_match "status says failed: never reached its verdict" "*$bad (failed)*why:*never reached its smoke verdict*exit=1" "$(status_out)"
	status_out | sed 's/^/  /'
	# PID 1's crash lines (the host checks them on boot 4's console, where
	# they always land; the journal keeps them only when the crash came
	# after journald's flush to /var/log/journal).
	j=$(journalctl -b -1 -o cat --no-pager _PID=1 2>&1 | grep -E 'Caught <|Rebooting|Freezing' | paste -sd' ')
	echo "  journal -b -1, PID 1: ${j:-(no crash line: the crash came before the flush)}"
	vm_expect "previous boot's journal: PID 1 did not freeze" no "$(case "$j" in *Freezing*) echo yes ;; *) echo no ;; esac)"
	vm_expect "GRUB next_entry consumed" "" "$(env_get next_entry)"
	vm_expect "GRUB saved_entry still $good" "$(entry "$good")" "$(env_get saved_entry)"
	vm_expect "crash guard removed by the fallback boot's verdict" absent "$(guard_state)"
	rm -f "$crash_marker"
	# Next: the good new kernel, armed with --reboot as an operator would.
	echo "canary-step: after-crash checks done ($vm_failed failed); arming $new with --reboot"
	vm_dump_kernel_log
	[ "$vm_failed" = 0 ] || { vm_summary; exit 1; }
	mmbatchctl canary --reboot "$new" 2>&1
	echo "canary-step: mmbatchctl exit $?; waiting for the reboot"
	sleep 300
	exit 1
	;;
after-pass)
	vm_expect "running kernel: the canary boot of $new" "$new" "$(uname -r)"
	vm_expect_match "status says passed" "*$new (passed)*why:*no regression*exit=0" "$(status_out)"
	status_out | sed 's/^/  /'
	vm_expect "GRUB saved_entry is now $new" "$(entry "$new")" "$(env_get saved_entry)"
	vm_expect "GRUB next_entry consumed" "" "$(env_get next_entry)"
	vm_expect "crash guard removed at the canary boot" absent "$(guard_state)"
	vm_expect_match "this boot's journal: the verdict" "*kernel $new PASSED*now the default boot entry*" \
		"$(journalctl -b -u mmbatch-canary.service -o cat --no-pager 2>&1)"
	;;
final)
	vm_expect "running kernel on a plain reboot (GRUB's saved default)" "$new" "$(uname -r)"
	vm_expect_match "status still passed" "*$new (passed)*exit=0" "$(status_out)"
	vm_expect_match "history: armed, failed, armed, failed, armed, passed" "*armed $bad*failed $bad*armed $bad*failed $bad*never reached*armed $new*passed $new*" \
		"$(paste -sd' ' "$state/canary/history" 2>&1)"
	;;
*) echo "guest_step.sh: unknown step '$step'"; exit 2 ;;
esac
vm_dump_kernel_log
vm_summary
