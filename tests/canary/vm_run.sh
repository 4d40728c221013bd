#!/bin/bash
# The canary cycle on a booted machine (part of `make check-canary`): one
# qemu disk with GRUB, a Debian 12 rootfs and three dpkg-installed kernels,
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
#                boot's journal say why; `mmbatchctl canary --reboot NEW`
#   4 after-pass NEW booted once, passed, and is GRUB's default now
#   5 final      a plain reboot comes up in NEW
# Guest-side checks: tests/canary/guest_step.sh. Logs: $OUT/vm/canary/.
# Reads: MAKE, OUT, CANARY_BOOT_TIMEOUT (seconds per boot, default 900).
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
logs=$out/vm/canary
timeout=${CANARY_BOOT_TIMEOUT:-900}
vmtest=$top/tools/vmtest/vmtest
bad_patch=$top/patches/test/6.1-migrate-skip-flush.patch
mkdir -p "$logs"

make_q() { ${MAKE:-make} -C "$top" --no-print-directory -s "$@"; }
note() { echo "canary-vm: $*" >&2; }
passed=0 failed=0
ok() { echo "ok       $*"; passed=$((passed + 1)); }
bad() { echo "FAIL     $*"; failed=$((failed + 1)); }
manifest_value() { [ -f "$1" ] && sed -n "s/^$2=//p" "$1" | tail -n 1; }

# kernel_deb BASE [EXTRA_PATCHES]: builds the guest kernel and (when stale)
# its packages; prints "RELEASE IMAGE_DEB".
kernel_deb() {
	local bz dir rel man deb
	bz=$(make_q kernel BASE="$1" FLAVOR=guest ${2:+EXTRA_PATCHES="$2"} 2>>"$logs/build.log" | tail -n 1)
	[ -f "$bz" ] || { tail -n 20 "$logs/build.log" >&2; echo "canary-vm: make kernel BASE=$1 failed (log $logs/build.log)" >&2; return 1; }
	dir=${bz%/arch/x86/boot/bzImage}
	rel=$(cat "$dir/include/config/kernel.release")
	man=$out/packages/kernel-$rel.paths
	deb=$(manifest_value "$man" IMAGE_DEB || true)
	if [ -z "$deb" ] || [ ! -f "$deb" ] || [ "$bz" -nt "$deb" ]; then
		make_q packages BASE="$1" FLAVOR=guest ${2:+EXTRA_PATCHES="$2"} PKG_MMBATCHD=0 >/dev/null 2>>"$logs/build.log" ||
			{ tail -n 20 "$logs/build.log" >&2; echo "canary-vm: make packages BASE=$1 failed (log $logs/build.log)" >&2; return 1; }
		deb=$(manifest_value "$man" IMAGE_DEB)
	fi
	echo "$rel $deb"
}

t_all=$SECONDS
t=$SECONDS
: > "$logs/build.log"
rm -f "$logs"/[0-9]-*.out "$logs"/[0-9]-*.console
read -r good good_deb < <(kernel_deb 6.12)
read -r new new_deb < <(kernel_deb 6.1)
read -r badk bad_deb < <(kernel_deb 6.1 "$bad_patch")
for d in "$good_deb" "$new_deb" "$bad_deb"; do
	[ -n "$d" ] && [ -f "$d" ] || { echo "canary-vm: a kernel package is missing (GOOD '$good_deb', NEW '$new_deb', BAD '$bad_deb')" >&2; exit 1; }
done
# The daemon package carries mmbatchctl, the units and the smoke script:
# rebuilt whenever one of its sources is newer than the package.
ddeb=$(manifest_value "$out/packages/mmbatchd.paths" MMBATCHD_DEB || true)
if [ -z "$ddeb" ] || [ ! -f "$ddeb" ] || [ -n "$(find "$top/src/mmbatchctl" "$top/src/mmbench" "$top/src/mmbatchd" \
	"$top/systemd" "$top/specs/mmbatchd" "$top/specs/deb" "$top/configs/profiles" "$top/configs/mmbatchd.yaml" \
	-newer "$ddeb" -type f | head -n 1)" ]; then
	make_q packages BASE=6.12 FLAVOR=guest >/dev/null 2>>"$logs/build.log" ||
		{ tail -n 20 "$logs/build.log" >&2; echo "canary-vm: make packages (mmbatchd) failed (log $logs/build.log)" >&2; exit 1; }
	ddeb=$(manifest_value "$out/packages/mmbatchd.paths" MMBATCHD_DEB)
fi
note "kernels: GOOD $good, BAD $badk, NEW $new ($((SECONDS - t)) s)"

t=$SECONDS
rootdir=$(OUT=$out "$top/tools/vmtest/mkrootfs.sh" --grub "$ddeb" "$good_deb" "$bad_deb" "$new_deb" | tail -n 1)
[ -f "$rootdir/disk.img" ] || { echo "canary-vm: mkrootfs --grub made no disk.img in $rootdir" >&2; exit 1; }
disk=$logs/disk.img
cp --sparse=always "$rootdir/disk.img" "$disk"
note "disk: $rootdir ($((SECONDS - t)) s)"

# boot N STEP EXPECTED_RC KERNEL [vmtest options]: one power-on of the disk,
# running guest_step.sh STEP; checks the exit status; output in $logs/N-STEP.*
boot() {
	local n=$1 step=$2 want=$3 kernel=$4 rc=0 t0=$SECONDS
	shift 4
	note "boot $n: $step ($kernel) ..."
	"$vmtest" boot "$kernel" --disk "$disk" "$@" --timeout "$timeout" --log "$logs/$n-$step.console" \
		--add "$top/tests/vm/lib.sh" --add "$here/guest_step.sh" \
		-- sh guest_step.sh "$step" "$good" "$badk" "$new" > "$logs/$n-$step.out" 2>&1 || rc=$?
	sed "s/^/[boot $n $step] /" "$logs/$n-$step.out"
	if [ "$rc" = "$want" ]; then ok "boot $n ($step): exit $rc"; else bad "boot $n ($step): exit $rc, expected $want (console: $logs/$n-$step.console)"; fi
	note "boot $n: $((SECONDS - t0)) s"
}
# console_has N STEP WHAT PATTERN: a line of that boot's console matches.
console_has() {
	if grep -q -- "$4" "$logs/$1-$2.console"; then ok "boot $1 console: $3"; else bad "boot $1 console: $3 (no '$4' in $logs/$1-$2.console)"; fi
}

boot 1 provision 0 "$rootdir/vmlinuz" --initramfs "$rootdir/initrd.img"
boot 2 must-not-run 126 firmware
console_has 2 must-not-run "GRUB booted $badk" "Linux version $badk "
console_has 2 must-not-run "mmbatch-canary: the smoke's integrity benchmark failed" "kernel $badk FAILED: smoke run: FAILED: integrity: [1-9][0-9]* corrupt bytes"
console_has 2 must-not-run "mmbatch-canary reboots into $good" "canary: rebooting into $good"
console_has 2 must-not-run "reboot" "reboot: Restarting system"
boot 3 after-fail 126 firmware
console_has 3 after-fail "GRUB booted $good" "Linux version $good "
# (mmbatchctl prints both lines before it calls systemctl reboot; whatever
# the guest prints after that may be cut off by the shutdown.)
if grep -q "canary-step: after-fail checks done (0 failed)" "$logs/3-after-fail.out" &&
	grep -q "mmbatchctl: canary: armed: $new boots once" "$logs/3-after-fail.out" &&
	grep -q "mmbatchctl: canary: rebooting now" "$logs/3-after-fail.out"; then
	ok "boot 3: every after-fail check passed, then mmbatchctl canary --reboot $new rebooted the guest"
else
	bad "boot 3: after-fail checks or the --reboot arming failed (see above)"
fi
boot 4 after-pass 0 firmware
console_has 4 after-pass "GRUB booted $new" "Linux version $new "
boot 5 final 0 firmware
console_has 5 final "GRUB booted $new" "Linux version $new "

note "total $((SECONDS - t_all)) s"
echo "canary-vm: $passed passed, $failed failed"
[ "$failed" = 0 ]
