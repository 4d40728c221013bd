#!/bin/bash
# src/mmbatchctl/mmbatchctl on scratch trees with the real GRUB tools
# (grub-editenv, grub-reboot, grub-set-default from grub2-common) and a
# grub.cfg in the layout Debian's grub-mkconfig writes (top-level entry for
# the newest kernel, an "Advanced options" submenu with a normal and a
# recovery entry per kernel): arming, the verdict on every path (passed,
# failed with and without the reboot, fallback boot, no verdict), status
# exit codes, cancel, refusals that change nothing, and a deliberately broken
# mmbatchctl that these checks catch.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
CTL=${MMBATCHCTL:-$TOP/src/mmbatchctl/mmbatchctl}
scratch
K1=6.12.117-mmbatch1-cloud K2=6.12.118-mmbatch2-cloud K3=6.12.119-mmbatch2-cloud
UUID=0c5d3a3e-1f1e-4a52-9d4e-3d1a2b9c7e11
SUB=gnulinux-advanced-$UUID
entry() { echo "$SUB>gnulinux-$1-advanced-$UUID"; }

# grub_cfg DEFAULT KVER...: a grub.cfg as grub-mkconfig writes it, newest first.
grub_cfg() {
	local default=$1 k entries=
	shift
	for k in "$@"; do
		entries+="	menuentry 'Debian GNU/Linux, with Linux $k' --class debian --class gnu-linux --class gnu --class os \$menuentry_id_option 'gnulinux-$k-advanced-$UUID' {
		load_video
		insmod ext2
		echo	'Loading Linux $k ...'
		linux	/boot/vmlinuz-$k root=UUID=$UUID ro  console=ttyS0
		initrd	/boot/initrd.img-$k
	}
	menuentry 'Debian GNU/Linux, with Linux $k (recovery mode)' --class debian --class gnu-linux --class gnu --class os \$menuentry_id_option 'gnulinux-$k-recovery-$UUID' {
		load_video
		linux	/boot/vmlinuz-$k root=UUID=$UUID ro single console=ttyS0
		initrd	/boot/initrd.img-$k
	}
"
	done
	awk -v d="$default" -v k3="$1" -v e="$entries" '
		{ gsub(/@DEFAULT@/, d); gsub(/@K3@/, k3) }
		/^@ENTRIES@/ { printf "%s", e; sub(/^@ENTRIES@/, "") }
		{ print }' "$TOP/tests/canary/fixtures/grub.cfg.in"
}

# fresh [DEFAULT]: a new scratch host running K1, with K1..K3 installed.
fresh() {
	H=$T/host.$((++hosts))
	mkdir -p "$H/boot/grub" "$H/state"
	grub_cfg "${1:-\${saved_entry\}}" "$K3" "$K2" "$K1" > "$H/boot/grub/grub.cfg"
	grub-editenv "$H/boot/grub/grubenv" create
	for k in "$K1" "$K2" "$K3"; do : > "$H/boot/vmlinuz-$k"; done
	RUNNING=$K1
}
hosts=0
ctl() {
	local name=$1
	shift
	set +e
	# No EFI variables and no bootctl: the host's own (a test host booted
	# by systemd-boot) must not make these GRUB hosts look like one.
	MMBATCH_STATE_DIR=$H/state MMBATCH_BOOT_DIR=$H/boot MMBATCH_ETC_DIR=$H/etc MMBATCHCTL_KVER=$RUNNING \
		MMBATCH_EFIVARS_DIR=$H/efivars MMBATCHCTL_BOOTCTL=$H/no-bootctl \
		MMBATCHCTL_REBOOT="touch $H/rebooted" MMBATCHCTL_NOW=2026-11-30T12:00:00Z \
		${CTL_RUNNER:-} "$CTL" "$@" > "$T/$name.out" 2>&1
	RC=$?
	set -e
}
envval() { grub-editenv "$H/boot/grub/grubenv" list | sed -n "s/^$1=//p"; }
st() { sed -n "s/^$1=//p" "$H/state/canary/state" 2>/dev/null; }
# out NAME: the output of ctl NAME on one line (for expect_match).
out() { tr '\n' ' ' < "$T/$1.out"; }
rebooted() { [ -e "$H/rebooted" ] && echo yes || echo no; }
snapshot() { { cat "$H/boot/grub/grubenv"; find "$H/state" "$H/etc" -type f 2>/dev/null | sort; cat "$H/state/canary/state" 2>/dev/null; } | sha256sum; }
# guard: the crash guard's setting, or "absent".
GUARD_REL=etc/systemd/system.conf.d/50-mmbatch-canary.conf
guard() { if [ -e "$H/$GUARD_REL" ]; then sed -n '/^\[Manager\]$/,$p' "$H/$GUARD_REL" | paste -sd' '; else echo absent; fi; }

# The whole suite against one mmbatchctl; returns the number of failures.
suite() {
	# shellcheck disable=SC2154 # test_failures is tests/lib/assert.sh's
	local f0=$test_failures
	echo "== arming $K2 while $K1 runs"
	fresh
	ctl arm canary "$K2"
	expect_eq "arm: exit" 0 "$RC"
	expect_eq "arm: GRUB next_entry is $K2's own entry (not the top-level one, not recovery)" "$(entry "$K2")" "$(envval next_entry)"
	expect_eq "arm: GRUB saved_entry pinned to the running kernel" "$(entry "$K1")" "$(envval saved_entry)"
	expect_eq "arm: state" "armed $K2 $K1 1" "$(st status) $(st kernel) $(st previous) $(st reboot_on_failure)"
	expect_eq "arm: smoke queued" yes "$([ -e "$H/state/pending/$K2" ] && echo yes || echo no)"
	expect_eq "arm: no reboot without --reboot" no "$(rebooted)"
	expect_eq "arm: the crash guard makes a crashing PID 1 reboot" "[Manager] CrashReboot=yes" "$(guard)"
	expect_eq "arm: only the guard in its directory (no temporary left)" "50-mmbatch-canary.conf" "$(ls -A "$H/etc/systemd/system.conf.d" 2>&1)"
	ctl st1 canary --status
	expect_eq "status while armed: exit 3" 3 "$RC"
	expect_match "status while armed" "canary: +$K2 \(armed\).*next boot: $K2 once, then $K1" "$(out st1)"
	expect_line "status while armed: the default is still the running kernel" "default:   $K1" "@$T/st1.out"
	local snap
	snap=$(snapshot)
	ctl twice canary "$K3"
	expect_eq "second arm while armed: exit 2" 2 "$RC"
	expect_match "second arm: says why" "a canary of $K2 is armed since .*--cancel" "$(out twice)"
	expect_eq "second arm: nothing changed" "$snap" "$(snapshot)"

	echo "== the canary boot fails its smoke run"
	RUNNING=$K2
	printf 'result=fail\nreason=FAILED: integrity: 4096 corrupt bytes\n' > "$H/state/verdict/$K2"
	ctl v1 canary --verdict
	expect_eq "failed verdict: exit" 0 "$RC"
	expect_match "failed verdict: journal line" "kernel $K2 FAILED: smoke run: FAILED: integrity: 4096 corrupt bytes; the default boot entry stays $K1.*rebooting into $K1" "$(out v1)"
	expect_eq "failed verdict: rebooted" yes "$(rebooted)"
	expect_eq "failed verdict: saved_entry still the previous kernel" "$(entry "$K1")" "$(envval saved_entry)"
	RUNNING=$K1
	ctl st2 canary --status
	expect_eq "status after a failure: exit 1" 1 "$RC"
	expect_match "status after a failure: why" "$K2 \(failed\).*why: +smoke run: FAILED: integrity: 4096 corrupt bytes" "$(out st2)"
	ctl v1b canary --verdict
	expect_eq "verdict on the previous kernel afterwards: nothing armed" "0 mmbatchctl: canary: no canary armed (last: $K2 failed) " "$RC $(out v1b)"

	echo "== the canary boot never reaches its verdict (GRUB fell back)"
	fresh
	ctl arm2 canary "$K2"
	ctl v2 canary --verdict
	expect_eq "fallback: exit" 0 "$RC"
	expect_match "fallback: failed, and why" "kernel $K2 FAILED: the canary boot never reached its smoke verdict: this boot runs $K1" "$(out v2)"
	expect_eq "fallback: no reboot (already on the previous kernel)" no "$(rebooted)"
	expect_eq "fallback: state" failed "$(st status)"

	echo "== no smoke verdict on the canary kernel (smoke timed out or did not run)"
	fresh
	ctl arm3 canary --no-reboot-on-failure "$K2"
	RUNNING=$K2
	ctl v3 canary --verdict
	expect_match "no verdict: failed, and why" "kernel $K2 FAILED: no smoke verdict: mmbatch-smoke did not finish on $K2" "$(out v3)"
	expect_eq "no verdict: --no-reboot-on-failure keeps the machine up" no "$(rebooted)"

	echo "== the canary boot passes"
	fresh
	ctl arm4 canary --reboot "$K3"
	expect_eq "arm --reboot: exit" 0 "$RC"
	expect_eq "arm --reboot: rebooted" yes "$(rebooted)"
	rm -f "$H/rebooted"
	RUNNING=$K3
	printf 'result=pass\nreason=no regression beyond 5 %% against %s\n' "$K1" > "$H/state/verdict/$K3"
	ctl v4 canary --verdict
	expect_eq "passed verdict: exit" 0 "$RC"
	expect_match "passed verdict: journal line" "kernel $K3 PASSED: no regression beyond 5 % against $K1; it is now the default boot entry" "$(out v4)"
	expect_eq "passed verdict: saved_entry is the canary now" "$(entry "$K3")" "$(envval saved_entry)"
	expect_eq "passed verdict: no reboot" no "$(rebooted)"
	ctl st4 canary --status
	expect_eq "status after a pass: exit 0" 0 "$RC"
	expect_line "status after a pass: the default is the canary" "default:   $K3" "@$T/st4.out"
	expect_eq "history" "2026-11-30T12:00:00Z armed $K3 (previous $K1)|2026-11-30T12:00:00Z passed $K3: no regression beyond 5 % against $K1" \
		"$(paste -sd'|' "$H/state/canary/history")"

	echo "== cancel"
	fresh
	ctl arm5 canary "$K2"
	ctl c5 canary --cancel
	expect_eq "cancel: exit" 0 "$RC"
	expect_eq "cancel: next_entry gone" "" "$(envval next_entry)"
	expect_eq "cancel: state" cancelled "$(st status)"
	expect_eq "cancel: crash guard removed" absent "$(guard)"
	ctl c5b canary --cancel
	expect_eq "cancel with nothing armed: exit 2" 2 "$RC"

	echo "== refusals: one line, exit 2, nothing written"
	fresh
	: > "$H/boot/vmlinuz-9.9.9-nomenu"
	local args msg
	while IFS='|' read -r args msg; do
		snap=$(snapshot)
		# shellcheck disable=SC2086 # args is a word list
		ctl refuse canary $args
		expect_eq "refuse '$args': exit" 2 "$RC"
		expect_match "refuse '$args': message" "$msg" "$(out refuse)"
		expect_eq "refuse '$args': nothing written" "$snap" "$(snapshot)"
	done <<EOF
$K1|kernel $K1 is the running kernel
7.0.0-absent|kernel 7.0.0-absent is not installed \(.*/boot/vmlinuz-7.0.0-absent missing\)
../etc|bad kernel release '../etc'
9.9.9-nomenu|grub.cfg has no menu entry booting vmlinuz-9.9.9-nomenu: run update-grub
--frob $K2|unknown option '--frob'
--status $K2|--status takes no kernel release
--verdict --reboot|--reboot and --no-reboot-on-failure go with arming
$K2 $K3|one kernel release only
EOF
	fresh 0
	snap=$(snapshot)
	ctl nosaved canary "$K2"
	expect_eq "GRUB_DEFAULT not saved: exit" 2 "$RC"
	expect_match "GRUB_DEFAULT not saved: says what to do" "set GRUB_DEFAULT=saved in /etc/default/grub and run update-grub" "$(out nosaved)"
	expect_eq "GRUB_DEFAULT not saved: nothing written" "$snap" "$(snapshot)"
	# A BootLoaderSpec menu (blscfg) is a boot setup of its own
	# (bls_test.sh), with its entries in /boot/loader/entries.
	printf 'insmod blscfg\nblscfg\n' >> "$H/boot/grub/grub.cfg"
	# shellcheck disable=SC2016 # a literal ${saved_entry}
	sed -i 's/set default="0"/set default="${saved_entry}"/' "$H/boot/grub/grub.cfg"
	ctl bls canary "$K2"
	expect_match "BootLoaderSpec menu without entries: exit 2 and why" "^2 .*grub.cfg reads BootLoaderSpec entries \(blscfg\), but .*/boot/loader/entries is no directory" "$RC $(out bls)"
	expect_eq "BootLoaderSpec menu without entries: nothing written" "$snap" "$(snapshot)"
	rm -f "$H/boot/grub/grub.cfg"
	ctl nogrub canary "$K2"
	expect_match "no grub.cfg, no systemd-boot: exit 2 and why" "^2 .*no boot loader the canary supports: no GRUB configuration .*systemd-boot neither started this boot \(LoaderInfo: unset\) nor is installed" "$RC $(out nogrub)"
	expect_eq "no grub.cfg, no systemd-boot: nothing written" "$snap" "$(snapshot)"
	ctl nogrubst canary --status
	expect_eq "no grub.cfg: --status still answers" "0 mmbatchctl: canary: no canary has been armed on this host default:   unknown (no boot setup the canary supports) " "$RC $(out nogrubst)"

	echo "== the crash guard cannot be written: GRUB and the state stay as they were"
	fresh
	mkdir -p "$H/etc/systemd"
	: > "$H/etc/systemd/system.conf.d"
	snap=$(snapshot)
	ctl noguard canary "$K2"
	# (grub-probe's complaint about the scratch tree's missing disk aside)
	expect_eq "unwritable guard: one line of its own" 1 "$(grep -vc '^/usr/sbin/grub-probe: ' "$T/noguard.out")"
	expect_match "unwritable guard: exit 2 and why" "^2 .*cannot write the crash guard .*50-mmbatch-canary.conf; the GRUB environment is unchanged" "$RC $(out noguard)"
	expect_eq "unwritable guard: nothing written" "$snap" "$(snapshot)"
	expect_eq "unwritable guard: no next_entry" "" "$(envval next_entry)"
	return $((test_failures - f0))
}

suite

echo "== the grub.cfg update-grub wrote in the Debian 12 VM of vm_run.sh (fixtures/debian12-update-grub.cfg)"
H=$T/host.real
mkdir -p "$H/boot/grub" "$H/state"
cp "$TOP/tests/canary/fixtures/debian12-update-grub.cfg" "$H/boot/grub/grub.cfg"
for k in 6.12.117-mmbatch1-guest 6.1.192-mmbatch1-x6c119661-guest 6.1.192-mmbatch1-guest; do : > "$H/boot/vmlinuz-$k"; done
RUNNING=6.12.117-mmbatch1-guest
ctl real canary 6.1.192-mmbatch1-guest
real_uuid=624422fb-0cd3-4f98-a2c5-859ce3a5cf0f
expect_eq "real grub.cfg: arm exit" 0 "$RC"
expect_eq "real grub.cfg: next_entry (6.1.192-mmbatch1-guest, not the -x6c119661 one)" \
	"gnulinux-advanced-$real_uuid>gnulinux-6.1.192-mmbatch1-guest-advanced-$real_uuid" "$(envval next_entry)"
expect_eq "real grub.cfg: saved_entry" \
	"gnulinux-advanced-$real_uuid>gnulinux-6.12.117-mmbatch1-guest-advanced-$real_uuid" "$(envval saved_entry)"

# mmbatchctl(8) against the script: --help (stdout, exit 0) prints the
# SYNOPSIS of docs/man/mmbatchctl.8.scd, --version the package version.
echo "== --help and --version against mmbatchctl(8)"
# shellcheck source=../lib/man.sh
. "$TOP/tests/lib/man.sh"
expect_synopsis "mmbatchctl" "$TOP/docs/man/mmbatchctl.8.scd" "$(help_usage "$CTL")"
expect_version "mmbatchctl" "$CTL"
rc=0; "$CTL" --help >/dev/null 2>&1 || rc=$?
expect_eq "mmbatchctl --help exit status" 0 "$rc"
rc=0; "$CTL" --version extra >/dev/null 2>&1 || rc=$?
expect_eq "mmbatchctl --version extra: exit status (bad input)" 2 "$rc"

# shellcheck source=tests/canary/negative.sh
. "$TOP/tests/canary/negative.sh"
# shellcheck disable=SC2016 # the $ are mmbatchctl's
negative "no grub-set-default at arming" 's/^\tif ! "\$(grub_tool set-default)" --boot-directory="\$boot_dir" "\$prev_entry" ||$/\tif ! true ||/'
# shellcheck disable=SC2016 # the $ are mmbatchctl's
negative "no crash guard at arming" 's/^\tif ! guard_write "\$kver"; then$/\tif false; then/'
test_summary
