#!/bin/bash
# src/mmbatchctl/mmbatchctl's canary on BootLoaderSpec hosts, on scratch
# trees:
#   - systemd-boot with boot counting: type #1 entries as kernel-install
#     writes them (TOKEN-KVER.conf, TOKEN-KVER+3.conf with
#     /etc/kernel/tries) on a scratch ESP, the loader's EFI variables as
#     efivarfs files (fixtures/efivar.sh), a stub bootctl and a stub
#     systemd-bless-boot (fixtures/bootctl-stub, fixtures/bless-boot-stub),
#     and sdboot_start, a model of what systemd-boot does as it boots:
#     LoaderEntryOneShot (consumed), else LoaderEntryDefault, else the first
#     entry with tries left, newest first; the counter of the entry it
#     starts decremented first, and LoaderBootCountPath set. Every scenario
#     runs with either rule for entry ids (systemd 257: the file name,
#     counter included; 258 on: without the counter).
#   - GRUB with blscfg: the real grub-editenv, grub-set-default and
#     grub-reboot, a Fedora-style grub.cfg (fixtures/grub-bls.cfg), entries
#     in /boot/loader/entries named by BLS id.
# Checked: arming (the +1 rename, both variables, read back), every verdict
# path (pass: blessed, then the default; fail: marked bad, exit 1, the
# default still the previous kernel; a fallback boot; no verdict), cancel
# (everything as before), --status's default line, refusals that change
# nothing (no entry, two entries, an id that would also match another
# entry, a boot that systemd-boot did not start, missing tools), a loader
# variable that does not read back (everything undone), and, at the end,
# a deliberately broken mmbatchctl per promise that these checks must
# catch.
# Reads: MMBATCHCTL (default src/mmbatchctl/mmbatchctl), OUT, TEST_TMPDIR.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
FIX=$TOP/tests/canary/fixtures
# shellcheck source=fixtures/efivar.sh
. "$FIX/efivar.sh"
CTL=${MMBATCHCTL:-$TOP/src/mmbatchctl/mmbatchctl}
scratch
# K1 runs (the good kernel); K2 is the canary that fails, older than K1 as
# the VM test's BAD is (so a default left to systemd-boot's newest-first
# choice would not come back to K1); K3 is the one that passes.
K1=6.12.117-mmbatch1-cloud K2=6.1.192-mmbatch1-cloud K3=6.12.119-mmbatch2-cloud
TOKEN=0c5d3a3e1f1e4a529d4e3d1a2b9c7e11
NOW=2026-11-30T12:00:00Z
hosts=0

# entry FILE KVER: a type #1 entry as kernel-install's 90-loaderentry writes it.
entry() {
	printf '%s\n' "title      Debian GNU/Linux 13 (trixie)" "version    $2" "machine-id $TOKEN" \
		"sort-key   debian" "options    root=UUID=0c5d3a3e-1f1e-4a52-9d4e-3d1a2b9c7e11 ro console=ttyS0" \
		"linux      /$TOKEN/$2/linux" "initrd     /$TOKEN/$2/initrd.img-$2" > "$E/$1"
}

# sd_host: a scratch systemd-boot host running K1, booted through
# systemd-boot (LoaderInfo): K1 blessed (and K1+debug beside it), K2
# installed with /etc/kernel/tries 3, K3 without.
sd_host() {
	H=$T/host.$((++hosts)) E=$T/host.$hosts/esp/loader/entries
	mkdir -p "$E" "$H/esp/EFI/systemd" "$H/state" "$H/efivars" "$H/boot"
	entry "$TOKEN-$K1.conf" "$K1"
	entry "$TOKEN-$K1+debug.conf" "$K1+debug"
	entry "$TOKEN-$K2+3.conf" "$K2"
	entry "$TOKEN-$K3.conf" "$K3"
	for k in "$K1" "$K1+debug" "$K2" "$K3"; do : > "$H/boot/vmlinuz-$k"; done
	efivar_write "$H/efivars" LoaderInfo "systemd-boot $SD_STYLE.1"
	efivar_write "$H/efivars" LoaderEntrySelected "$TOKEN-$K1.conf"
	RUNNING=$K1 BOOTCTL=$FIX/bootctl-stub BLESS=$FIX/bless-boot-stub BREAK=''
}

# gb_host: a scratch GRUB + blscfg host running K1 (Debian's grub.cfg
# layout, /boot/grub, as Debian's grub-* tools write it; Fedora's is
# /boot/grub2), entries as in sd_host under /boot/loader/entries.
MID=5e2c0e1b6a3d4f7c9b8a1d2e3f4a5b6c
gb_host() {
	H=$T/host.$((++hosts)) E=$T/host.$hosts/boot/loader/entries
	mkdir -p "$E" "$H/boot/grub" "$H/state"
	cp "$FIX/grub-bls.cfg" "$H/boot/grub/grub.cfg"
	grub-editenv "$H/boot/grub/grubenv" create
	TOKEN=$MID
	entry "$MID-$K1.conf" "$K1"
	entry "$MID-$K2+3.conf" "$K2"
	entry "$MID-$K3.conf" "$K3"
	TOKEN=0c5d3a3e1f1e4a529d4e3d1a2b9c7e11
	for k in "$K1" "$K2" "$K3"; do : > "$H/boot/vmlinuz-$k"; done
	RUNNING=$K1 BOOTCTL=$H/no-bootctl BLESS=$H/no-bless BREAK=''
}

# ctl NAME ARGS...: mmbatchctl ARGS on host H; output in $T/NAME.out, exit
# status in RC. PATH_FIRST (a directory) goes in front of PATH.
ctl() {
	local name=$1
	shift
	set +e
	STUB_ROOT=$H STUB_BOOTCTL_BREAK=$BREAK PATH=${PATH_FIRST:+$PATH_FIRST:}$PATH \
		MMBATCH_STATE_DIR=$H/state MMBATCH_BOOT_DIR=$H/boot MMBATCH_ETC_DIR=$H/etc MMBATCHCTL_KVER=$RUNNING \
		MMBATCH_EFIVARS_DIR=$H/efivars MMBATCHCTL_BOOTCTL=$BOOTCTL MMBATCHCTL_BLESS=$BLESS \
		MMBATCHCTL_REBOOT="touch $H/rebooted" MMBATCHCTL_NOW=$NOW \
		"$CTL" "$@" > "$T/$name.out" 2>&1
	RC=$?
	set -e
}
ev() { efivar_read "$H/efivars" "$1"; }
entries() { (cd "$E" && printf '%s\n' * | LC_ALL=C sort | paste -sd' '); }
st() { sed -n "s/^$1=//p" "$H/state/canary/state" 2>/dev/null; }
out() { tr '\n' ' ' < "$T/$1.out"; }
rebooted() { if [ -e "$H/rebooted" ]; then rm -f "$H/rebooted"; echo yes; else echo no; fi; }
guard() { if [ -e "$H/etc/systemd/system.conf.d/50-mmbatch-canary.conf" ]; then echo present; else echo absent; fi; }
# The bootctl calls that write (not --print-boot-path), one line.
writes() { grep '^set-' "$H/bootctl.log" 2>/dev/null | paste -sd'|' || true; }
# snapshot [DIR...]: names and contents of the host's boot and state
# files (default: all of them); loader: the ESP and the EFI variables only.
snapshot() {
	[ $# -gt 0 ] || set -- esp efivars boot state etc
	(cd "$H" && find "$@" -type f 2>/dev/null | LC_ALL=C sort |
		while read -r f; do echo "$f"; sha256sum < "$f"; done) | sha256sum | cut -c1-16
}
loader_snapshot() { snapshot esp efivars; }
pat() { echo "$1[+.][0-9c]*"; }
envval() { grub-editenv "$H/boot/grub/grubenv" list | sed -n "s/^$1=//p"; }
verdict() { printf 'result=%s\nreason=%s\n' "$1" "$2" > "$H/state/verdict/$3"; }

# --- the systemd-boot model --------------------------------------------------

# model_id NAME: systemd-boot's id of the entry file NAME (SD_STYLE 257:
# the name in lower case; 258: without the counter).
model_id() {
	local n=${1,,}
	if [ "$SD_STYLE" -ge 258 ] && [[ $n =~ ^(.*)\+[0-9]+(-[0-9]+)?\.conf$ ]]; then n=${BASH_REMATCH[1]}.conf; fi
	echo "$n"
}
# tries_left NAME: the counter's LEFT, or -1 (none).
tries_left() { if [[ $1 =~ \+([0-9]+)(-[0-9]+)?\.conf$ ]]; then echo "${BASH_REMATCH[1]}"; else echo -1; fi; }

# sdboot_start: systemd-boot picks an entry and starts it: RUNNING is its
# kernel; its counter is decremented (LEFT-1, DONE+1) and LoaderBootCountPath
# names it; LoaderEntryOneShot is consumed.
sdboot_start() {
	local oneshot default list n id chosen='' pattern left done_
	oneshot=$(ev LoaderEntryOneShot)
	rm -f "$(efivar_file "$H/efivars" LoaderEntryOneShot)" "$(efivar_file "$H/efivars" LoaderBootCountPath)"
	default=$(ev LoaderEntryDefault)
	# Entries with tries left first, then the newest version first.
	list=$(for n in $(entries); do
		printf '%s %s %s\n' "$([ "$(tries_left "$n")" = 0 ] && echo 1 || echo 0)" "$(sed -n 's/^version *//p' "$E/$n")" "$n"
	done | sort -k1,1n -k2,2Vr | awk '{ print $3 }')
	for pattern in "$oneshot" "$default"; do
		[ -n "$pattern" ] || continue
		for n in $list; do
			id=$(model_id "$n")
			# shellcheck disable=SC2053 # a glob, as systemd-boot matches it
			if [[ $id == ${pattern,,} ]]; then chosen=$n; break 2; fi
		done
	done
	[ -n "$chosen" ] || chosen=$(head -n 1 <<< "$list")
	left=$(tries_left "$chosen")
	if [ "$left" -ge 0 ]; then
		[[ $chosen =~ \+[0-9]+-([0-9]+)\.conf$ ]] && done_=${BASH_REMATCH[1]} || done_=0
		n=${chosen%+*}+$((left > 0 ? left - 1 : 0))-$((done_ + 1)).conf
		mv "$E/$chosen" "$E/$n"
		efivar_write "$H/efivars" LoaderBootCountPath "\\loader\\entries\\$n"
		chosen=$n
	fi
	efivar_write "$H/efivars" LoaderEntrySelected "$(model_id "$chosen")"
	RUNNING=$(sed -n 's/^version *//p' "$E/$chosen")
}

# --- the suites --------------------------------------------------------------

# Sections, each a scenario on fresh hosts; S names the setup in every
# check.
sd_arm_fail() {
	local S="systemd-boot $SD_STYLE"
	echo "== $S: arming $K2 while $K1 runs"
	sd_host
	ctl arm canary "$K2"
	expect_eq "$S arm: exit" 0 "$RC"
	expect_eq "$S arm: $K2's entry has one try (+3 from /etc/kernel/tries made +1)" \
		"$TOKEN-$K2+1.conf $TOKEN-$K1+debug.conf $TOKEN-$K1.conf $TOKEN-$K3.conf" "$(entries)"
	expect_eq "$S arm: LoaderEntryOneShot is $K2's entry by either id rule" "$(pat "$TOKEN-$K2")" "$(ev LoaderEntryOneShot)"
	expect_eq "$S arm: LoaderEntryDefault pinned to the running kernel's entry" "$(pat "$TOKEN-$K1")" "$(ev LoaderEntryDefault)"
	expect_eq "$S arm: through bootctl, default first" "set-default $(pat "$TOKEN-$K1")|set-oneshot $(pat "$TOKEN-$K2")" "$(writes)"
	expect_eq "$S arm: state" "armed $K2 sd-boot $TOKEN-$K2+3.conf $K1" "$(st status) $(st kernel) $(st loader) $(st entry_file) $(st previous)"
	expect_eq "$S arm: crash guard" present "$(guard)"
	expect_eq "$S arm: smoke queued" yes "$([ -e "$H/state/pending/$K2" ] && echo yes || echo no)"
	expect_match "$S arm: says what it did" "armed: $K2 boots once at the next reboot \(LoaderEntryOneShot .*$TOKEN-$K2\+1.conf with one try\); the default stays $K1" "$(out arm)"
	ctl st1 canary --status
	expect_eq "$S status while armed: exit 3" 3 "$RC"
	expect_line "$S status while armed: the default" "default:   $K1" "@$T/st1.out"

	echo "== $S: the canary boot fails its smoke run"
	sdboot_start
	expect_eq "$S canary boot: systemd-boot starts $K2 (the one-shot entry)" "$K2" "$RUNNING"
	expect_eq "$S canary boot: its try is used" "$TOKEN-$K2+0-1.conf" "$(cd "$E" && ls -- *"$K2"*)"
	verdict fail "FAILED: integrity: 4096 corrupt bytes" "$K2"
	ctl v1 canary --verdict
	expect_eq "$S failed verdict: exit 1 (boot-complete.target fails, nothing blesses $K2)" 1 "$RC"
	expect_eq "$S failed verdict: systemd-bless-boot bad" bad "$(paste -sd' ' "$H/bless.log" 2>/dev/null)"
	expect_eq "$S failed verdict: $K2's entry is bad (no tries left)" "$TOKEN-$K2+0-1.conf" "$(cd "$E" && ls -- *"$K2"*)"
	expect_eq "$S failed verdict: LoaderEntryDefault still $K1's" "$(pat "$TOKEN-$K1")" "$(ev LoaderEntryDefault)"
	expect_eq "$S failed verdict: rebooted" yes "$(rebooted)"
	expect_match "$S failed verdict: journal line" "kernel $K2 FAILED: smoke run: FAILED: integrity: 4096 corrupt bytes; the default boot entry stays $K1.*rebooting into $K1" "$(out v1)"
	sdboot_start
	expect_eq "$S after the failure: systemd-boot starts $K1 (the pinned default)" "$K1" "$RUNNING"
	ctl st2 canary --status
	expect_eq "$S status after a failure: exit 1, default" "1 $K1" "$RC $(sed -n 's/^default: *//p' "$T/st2.out")"
	rm -f "$(efivar_file "$H/efivars" LoaderEntryDefault)"
	sdboot_start
	expect_eq "$S EFI variables lost: the bad $K2 is never picked by itself (the newest good one is)" "$K3" "$RUNNING"

}

sd_fallback() {
	local S="systemd-boot $SD_STYLE"
	echo "== $S: the canary boot crashes (no verdict), systemd-boot falls back"
	sd_host
	ctl arm2 canary "$K2"
	sdboot_start
	sdboot_start
	expect_eq "$S fallback: the boot after the crash is $K1" "$K1" "$RUNNING"
	ctl v2 canary --verdict
	expect_eq "$S fallback: exit 0" 0 "$RC"
	expect_match "$S fallback: failed, and why" "kernel $K2 FAILED: the canary boot never reached its smoke verdict: this boot runs $K1" "$(out v2)"
	expect_eq "$S fallback: state, no reboot" "failed no" "$(st status) $(rebooted)"
	expect_eq "$S fallback: $K2's entry stays bad" "$TOKEN-$K2+0-1.conf" "$(cd "$E" && ls -- *"$K2"*)"

	echo "== $S: the firmware loses LoaderEntryOneShot: $K2 never starts"
	sd_host
	ctl arm3 canary "$K2"
	rm -f "$(efivar_file "$H/efivars" LoaderEntryOneShot)"
	sdboot_start
	ctl v3 canary --verdict
	expect_eq "$S never started: exit 0, on $K1" "0 $K1" "$RC $RUNNING"
	expect_match "$S never started: says so" "kernel $K2 FAILED: systemd-boot did not start $K2: .*$TOKEN-$K2\+1.conf was never tried.*now $TOKEN-$K2\+0.conf" "$(out v3)"
	expect_eq "$S never started: no tries left for $K2" "$TOKEN-$K2+0.conf" "$(cd "$E" && ls -- *"$K2"*)"

	echo "== $S: no smoke verdict on the canary kernel"
	sd_host
	ctl arm4 canary --no-reboot-on-failure "$K2"
	sdboot_start
	ctl v4 canary --verdict
	expect_eq "$S no verdict: exit 1, bad, no reboot" "1 bad no" "$RC $(paste -sd' ' "$H/bless.log") $(rebooted)"
	expect_match "$S no verdict: why" "kernel $K2 FAILED: no smoke verdict" "$(out v4)"

}

sd_pass() {
	local S="systemd-boot $SD_STYLE"
	echo "== $S: the canary boot passes"
	sd_host
	ctl arm5 canary --reboot "$K3"
	expect_eq "$S arm --reboot: exit, rebooted" "0 yes" "$RC $(rebooted)"
	expect_eq "$S arm: an uncounted entry gets +1 too" "$TOKEN-$K3+1.conf" "$(cd "$E" && ls -- *"$K3"*)"
	sdboot_start
	expect_eq "$S canary boot: $K3" "$K3" "$RUNNING"
	verdict pass "no regression beyond 5 % against $K1" "$K3"
	ctl v5 canary --verdict
	expect_eq "$S passed verdict: exit 0, no reboot" "0 no" "$RC $(rebooted)"
	expect_eq "$S passed verdict: systemd-bless-boot good" good "$(paste -sd' ' "$H/bless.log" 2>/dev/null)"
	expect_eq "$S passed verdict: $K3's entry is blessed (no counter)" "$TOKEN-$K3.conf" "$(cd "$E" && ls -- *"$K3"*)"
	expect_eq "$S passed verdict: LoaderEntryDefault is $K3's" "$(pat "$TOKEN-$K3")" "$(ev LoaderEntryDefault)"
	expect_match "$S passed verdict: journal line" "kernel $K3 PASSED: no regression beyond 5 % against $K1; it is now the default boot entry" "$(out v5)"
	ctl st5 canary --status
	expect_eq "$S status after a pass: exit 0, default" "0 $K3" "$RC $(sed -n 's/^default: *//p' "$T/st5.out")"
	sdboot_start
	expect_eq "$S the next boot: $K3 (the default now)" "$K3" "$RUNNING"

	echo "== $S: passed, but systemd-bless-boot has nothing to bless (no LoaderBootCountPath)"
	sd_host
	ctl arm6 canary "$K3"
	sdboot_start
	rm -f "$(efivar_file "$H/efivars" LoaderBootCountPath)"
	verdict pass "no regression" "$K3"
	ctl v6 canary --verdict
	expect_eq "$S unblessed: exit 2" 2 "$RC"
	expect_match "$S unblessed: failed, and why" "kernel $K3 FAILED: smoke passed but .*/$TOKEN-$K3.conf is not there after systemd-bless-boot good" "$(out v6)"
	expect_eq "$S unblessed: LoaderEntryDefault still $K1's" "$(pat "$TOKEN-$K1")" "$(ev LoaderEntryDefault)"

}

sd_cancel() {
	local S="systemd-boot $SD_STYLE" snap_loader old
	echo "== $S: cancel puts everything back"
	for old in "$TOKEN-$K1.conf" ''; do
		sd_host
		[ -z "$old" ] || efivar_write "$H/efivars" LoaderEntryDefault "$old"
		snap_loader=$(loader_snapshot)
		ctl arm7 canary "$K2"
		ctl c7 canary --cancel
		expect_eq "$S cancel (default '$old'): exit" 0 "$RC"
		expect_eq "$S cancel (default '$old'): ESP and EFI variables as before arming" "$snap_loader" "$(loader_snapshot)"
		expect_eq "$S cancel (default '$old'): state, guard" "cancelled absent" "$(st status) $(guard)"
		expect_match "$S cancel (default '$old'): says so" "cancelled: $K2 will not boot; LoaderEntryDefault is back to ${old:+'$old'}${old:-unset}" "$(out c7)"
	done

}

sd_refusals() {
	local S="systemd-boot $SD_STYLE" snap args msg setup
	echo "== $S: refusals: one line, exit 2, nothing written"
	while IFS='|' read -r setup args msg; do
		sd_host
		eval "$setup"
		snap=$(snapshot)
		# shellcheck disable=SC2086 # args is a word list
		ctl refuse canary $args
		expect_eq "$S refuse ($setup): exit 2, one line" "2 1" "$RC $(wc -l < "$T/refuse.out")"
		expect_match "$S refuse ($setup): message" "$msg" "$(out refuse)"
		expect_eq "$S refuse ($setup): nothing written" "$snap" "$(snapshot)"
	done <<EOF
: > "\$H/boot/vmlinuz-7.0.0-noentry"|7.0.0-noentry|ERROR: .*/esp/loader/entries has no boot entry for kernel 7.0.0-noentry \(TOKEN-7.0.0-noentry.conf with 'version 7.0.0-noentry'
entry "debian-$K3.conf" "$K3"|$K3|ERROR: .*/esp/loader/entries has 2 boot entries for kernel $K3: .*debian-$K3.conf.*; the canary needs exactly one
entry "$TOKEN-$K3+0-2.conf" "$K3"|$K3|has 2 boot entries for kernel $K3: .*$TOKEN-$K3\+0-2.conf
rm "\$E/$TOKEN-$K1.conf"|$K2|has no boot entry for kernel $K1 \(
entry "$TOKEN-$K3.1.conf" "$K3.1"|$K3|the systemd-boot id '$TOKEN-$K3\[\+\.\]\[0-9c\]\*' for $TOKEN-$K3 would also match .*/$TOKEN-$K3.1.conf; nothing changed
rm "\$(efivar_file "\$H/efivars" LoaderInfo)"|$K2|systemd-boot is installed, but it did not start this boot \(no LoaderInfo EFI variable
BLESS=\$H/none|$K2|systemd-bless-boot not found at '.*/none'
BOOTCTL=\$H/none|$K2|bootctl not found
rm -r "\$H/esp/EFI" "\$(efivar_file "\$H/efivars" LoaderInfo)"|$K2|no boot loader the canary supports
EOF

}

sd_undo() {
	local S="systemd-boot $SD_STYLE" snap BREAK_
	echo "== $S: a loader variable that does not read back: everything undone"
	for BREAK_ in set-default:fail set-oneshot:fail set-oneshot:garble set-default:garble; do
		sd_host
		efivar_write "$H/efivars" LoaderEntryDefault "$TOKEN-$K3.conf"
		efivar_write "$H/efivars" LoaderEntryOneShot "$TOKEN-$K1+debug.conf"
		snap=$(snapshot)
		BREAK=$BREAK_
		ctl undo canary "$K2"
		expect_eq "$S $BREAK_: exit 2, one line" "2 1" "$RC $(wc -l < "$T/undo.out")"
		expect_match "$S $BREAK_: says what did not take, and that nothing changed" \
			"bootctl ${BREAK_%%:*} '.*' did not take \(.* reads '.*'\).*; the loader variables and .*/esp/loader/entries are unchanged" "$(out undo)"
		expect_eq "$S $BREAK_: ESP, EFI variables and state as before" "$snap" "$(snapshot)"
	done
}

gb_cycle() {
	local S="GRUB+BLS"
	echo "== $S: arming $K2 while $K1 runs"
	gb_host
	ctl arm canary "$K2"
	expect_eq "$S arm: exit" 0 "$RC"
	expect_eq "$S arm: next_entry is $K2's BLS id" "$MID-$K2" "$(envval next_entry)"
	expect_eq "$S arm: saved_entry pinned to $K1's BLS id" "$MID-$K1" "$(envval saved_entry)"
	expect_eq "$S arm: the counted name normalised (GRUB never counts)" "$MID-$K2.conf" "$(cd "$E" && ls -- *"$K2"*)"
	expect_eq "$S arm: state" "armed grub-bls $MID-$K2+3.conf" "$(st status) $(st loader) $(st entry_file)"
	ctl st1 canary --status
	expect_eq "$S status while armed: exit 3, default" "3 $K1" "$RC $(sed -n 's/^default: *//p' "$T/st1.out")"

	echo "== $S: the canary boot fails its smoke run"
	RUNNING=$K2
	verdict fail "FAILED: integrity" "$K2"
	ctl v1 canary --verdict
	expect_eq "$S failed verdict: exit 0 (no boot-complete.target on GRUB), rebooted" "0 yes" "$RC $(rebooted)"
	expect_eq "$S failed verdict: saved_entry still $K1's" "$MID-$K1" "$(envval saved_entry)"

	echo "== $S: fallback boot"
	gb_host
	ctl arm2 canary "$K2"
	ctl v2 canary --verdict
	expect_match "$S fallback: exit 0, failed" "^0 .*kernel $K2 FAILED: the canary boot never reached its smoke verdict: this boot runs $K1" "$RC $(out v2)"

	echo "== $S: the canary boot passes"
	gb_host
	ctl arm3 canary "$K3"
	RUNNING=$K3
	verdict pass "no regression" "$K3"
	ctl v3 canary --verdict
	expect_eq "$S passed verdict: exit 0" 0 "$RC"
	expect_eq "$S passed verdict: saved_entry is $K3's BLS id" "$MID-$K3" "$(envval saved_entry)"
	ctl st3 canary --status
	expect_eq "$S status after a pass: exit 0, default" "0 $K3" "$RC $(sed -n 's/^default: *//p' "$T/st3.out")"

	echo "== $S: cancel"
	gb_host
	ctl arm4 canary "$K2"
	ctl c4 canary --cancel
	expect_eq "$S cancel: exit, next_entry gone" "0 " "$RC $(envval next_entry)"
	expect_eq "$S cancel: $K2's entry has its name back" "$MID-$K2+3.conf" "$(cd "$E" && ls -- *"$K2"*)"
}

gb_refusals() {
	local snap S="GRUB+BLS"
	echo "== $S: refusals and a next_entry that does not read back"
	gb_host
	: > "$H/boot/vmlinuz-7.0.0-noentry"
	entry "fedora-$K3.conf" "$K3"
	snap=$(snapshot)
	ctl r1 canary 7.0.0-noentry
	expect_match "$S no entry: exit 2, why" "^2 .*/boot/loader/entries has no boot entry for kernel 7.0.0-noentry" "$RC $(out r1)"
	ctl r2 canary "$K3"
	expect_match "$S two entries: exit 2, why" "^2 .*/boot/loader/entries has 2 boot entries for kernel $K3: .*fedora-$K3.conf" "$RC $(out r2)"
	expect_eq "$S refusals: nothing written" "$snap" "$(snapshot)"
	mkdir -p "$H/bin"
	printf '#!/bin/sh\n# grub-reboot that sets the wrong entry\ngrub-editenv "${1#--boot-directory=}/grub/grubenv" set "next_entry=$2-garbled"\n' > "$H/bin/grub-reboot"
	chmod +x "$H/bin/grub-reboot"
	PATH_FIRST=$H/bin ctl r3 canary "$K2"
	expect_match "$S next_entry does not read back: exit 2, why" "^2 .*grubenv does not read back next_entry='$MID-$K2', saved_entry='$MID-$K1'; it and .*/boot/loader/entries are unchanged" "$RC $(out r3)"
	expect_eq "$S next_entry does not read back: grubenv and entries as before" "$snap" "$(snapshot)"
}

# suite [SECTION[:STYLE]...]: the sections (default: all; those that boot
# through sdboot_start with either id rule) against one mmbatchctl; returns
# the number of failures. STYLE: the systemd version of the id rule
# (default 257).
ALL=(sd_arm_fail:257 sd_fallback:257 sd_pass:257 sd_cancel:257 sd_refusals:257 sd_undo:257
	sd_arm_fail:258 sd_fallback:258 sd_pass:258 gb_cycle gb_refusals)
suite() {
	# shellcheck disable=SC2154 # test_failures is tests/lib/assert.sh's
	local f0=$test_failures w
	[ $# -gt 0 ] || set -- "${ALL[@]}"
	for w; do
		SD_STYLE=257
		[ "${w#*:}" = "$w" ] || SD_STYLE=${w#*:}
		"${w%%:*}"
	done
	return $((test_failures - f0))
}
suite

# shellcheck source=tests/canary/negative.sh
. "$TOP/tests/canary/negative.sh"
# shellcheck disable=SC2016 # the $ are mmbatchctl's
{
negative "no +1 rename (no boot counting)" 's/^\trename_entry "\$stem+1.conf"$/\t:/' sd_arm_fail
negative "no set-oneshot" 's/for var in LoaderEntryDefault LoaderEntryOneShot; do/for var in LoaderEntryDefault; do/' sd_arm_fail
negative "no pinned default" 's/for var in LoaderEntryDefault LoaderEntryOneShot; do/for var in LoaderEntryOneShot; do/' sd_arm_fail
negative "ids without the counter rule (exact TOKEN-KVER+1.conf)" 's/^sd_id() { printf .%s\[+\.\]\[0-9c\]\*\\n. "\$1"/sd_id() { printf "%s+1.conf\\n" "$1"/' sd_arm_fail:258
negative "exit 0 on a failed sd-boot verdict" 's/^\t\[ "\$loader" != sd-boot \] || return 1$/\t:/' sd_arm_fail
negative "systemd-bless-boot good for bad" 's/^\t\t"\$bless" bad ||/\t\t"$bless" good ||/' sd_arm_fail
negative "no systemd-bless-boot good before the default" 's/^\t\t"\$bless" good ||/\t\ttrue ||/' sd_pass
negative "no blessed-file check" 's/^\t\t\[ -f "\$entry_dir\/\$stem.conf" \] ||$/\t\ttrue ||/' sd_pass
negative "no read-back of the loader variables" 's/^\t\[ "\$(efivar_get "\$1")" = "\$2" \]$/\ttrue/' sd_undo
negative "no undo when a variable does not take" 's/^\t\tsd_undo$/\t\t:/' sd_undo
negative "cancel leaves the +1 name" 's/^\t\t\tmv "\$entry_dir\/\$stem+1.conf" "\$entry_dir\/\$entry_file" ||/\t\t\ttrue ||/' sd_cancel
negative "fallback leaves a never-tried +1 entry" 's/^\t\t\tmv "\$entry_dir\/\$stem+1.conf" "\$entry_dir\/\$stem+0.conf" ||$/\t\t\ttrue ||/' sd_fallback
negative "grub-bls with grub_entry (menu paths) instead of BLS ids" 's/^\tentry=\$stem prev_entry=\${prev_file%.conf}$/\tentry=$(grub_entry "$kver") prev_entry=$(grub_entry "$running")/' gb_cycle
negative "grub-bls without normalising the counted name" 's/^\trename_entry "\$stem.conf"$/\t:/' gb_cycle
negative "a second entry not refused" 's/^\t\*) die "\$entry_dir has \$n boot entries/\t*) echo "${hits##* }"; return 0; die "/' sd_refusals
}
test_summary
