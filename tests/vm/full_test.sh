#!/bin/sh
# Full-path checks, run inside a guest booted with systemd as PID 1 from a
# rootfs where our packages were installed with dpkg (tools/vmtest/mkrootfs.sh):
#   vmtest boot VMLINUZ --rootfs IMG --initramfs INITRD --add tests/vm/lib.sh \
#       --add tests/vm/full_test.sh -- sh full_test.sh KERNELRELEASE INITRD_SHA256 DAEMON
# KERNELRELEASE: the packaged kernel's release; INITRD_SHA256: checksum of the
# initramfs the host booted (must be the one postinst made in /boot);
# DAEMON: yes when the mmbatchd package is installed, no when it does not
# exist yet (its checks are then listed as not live).
# The knob values before mmbatchd started come from vmtest-baseline.service
# (`mmbatchd --plan` run Before=mmbatchd.service into /run/vmtest-baseline/).
# Reads: DRAIN_MIB (default 512), DRAIN_WAIT_S (default 20).
# shellcheck source=tests/vm/lib.sh
. ./lib.sh

[ $# -eq 3 ] || { echo "usage: full_test.sh KERNELRELEASE INITRD_SHA256 yes|no"; exit 2; }
want_release=$1 want_initrd=$2 daemon=$3
drain_mib=${DRAIN_MIB:-512}
drain_wait=${DRAIN_WAIT_S:-20}
profile=/etc/mmbatch/mmbatchd.yaml
baseline=/run/vmtest-baseline/plan.txt

# 1. The packaged kernel came up through the initramfs its postinst made.
vm_expect "running kernel release" "$want_release" "$(uname -r)"
vm_expect "booted initramfs = /boot/initrd.img-$want_release (sha256)" "$want_initrd" \
	"$(sha256sum "/boot/initrd.img-$want_release" 2>&1 | cut -d' ' -f1)"
vm_expect "dpkg status of the kernel's initramfs generator" "dracut install ok installed" \
	"$(dpkg-query -W -f='${Package} ${Status}' dracut 2>&1)"
vm_expect_ge "initrd phase in this boot's journal ('Switching root.')" 1 \
	"$(journalctl -b -o cat --no-pager 2>/dev/null | grep -c '^Switching root\.$')"
vm_expect "root filesystem" "/dev/vda ext4" "$(awk '$2 == "/" && $1 != "rootfs" {print $1, $3}' /proc/mounts | tail -n 1)"
vm_expect "systemd is PID 1" systemd "$(cat /proc/1/comm)"
# (is-system-running says "starting" while this very unit runs: list failures.)
vm_expect "failed units" "" "$(systemctl list-units --state=failed --plain --no-legend 2>&1 | awk '{print $1}' | paste -sd' ')"

if [ "$daemon" != yes ]; then
	vm_not_live "mmbatchd.service active with the default profile" "no mmbatchd .deb in out/packages yet"
	vm_not_live "sysctls read back as the profile says" "no mmbatchd .deb yet"
	vm_not_live "one drain after a ${drain_mib} MiB multi-threaded exit" "no mmbatchd .deb yet"
	vm_not_live "mmbatch-smoke.service ran on first boot and stored its result" "no mmbatchd .deb yet"
	vm_not_live "systemctl stop mmbatchd restores the original values" "no mmbatchd .deb yet"
	vm_summary
	exit
fi

# plan_values FILE: "name current target" per key of an `mmbatchd --plan`
# output ('k' (cur) -> (new), or 'k' (cur) unchanged: target = cur).
plan_values() {
	sed -n "s/^'\([^']*\)' (\(.*\)) -> (\(.*\))\$/\1 \2 \3/p; s/^'\([^']*\)' (\(.*\)) unchanged\$/\1 \2 \2/p" "$1"
}
# live_value NAME: what the daemon's reader sees now for one key.
live_value() {
	mmbatchd --plan "$profile" 2>&1 | awk -v k="'$1' (" 'index($0, k) == 1 {
		s = substr($0, length(k) + 1); sub(/\) (->|unchanged).*$/, "", s); print s }'
}
# kernel_value NAME: the same key read straight from the kernel: a sysctl
# (dotted name) from /proc/sys, a sysfs path as is; of a choice list like
# "always [madvise] never" the selected word.
kernel_value() {
	case "$1" in
	/*) f=$1 ;;
	*) f=/proc/sys/$(echo "$1" | tr . /) ;;
	esac
	v=$(cat "$f" 2>&1 | tr -s ' \t\n' '   ' | sed 's/ $//')
	case "$v" in
	*\[*\]*) echo "$v" | sed 's/.*\[\(.*\)\].*/\1/' ;;
	*) echo "$v" ;;
	esac
}

# 2. The daemon runs the default profile and the values took.
vm_expect "mmbatchd.service" active "$(systemctl is-active mmbatchd.service 2>&1)"
vm_expect_match "mmbatchd.service ExecStart" "*/usr/sbin/mmbatchd --profile $profile --foreground*" \
	"$(systemctl show -p ExecStart --value mmbatchd.service 2>&1)"
vm_expect_match "$profile includes the default profile" "*default.yaml*" "$(grep -E '^include:' "$profile" 2>&1)"
vm_expect "vmtest-baseline.service (plan before mmbatchd started)" success \
	"$(systemctl show -p Result --value vmtest-baseline.service 2>&1)"
sed 's/^/    | baseline: /' "$baseline"
plan_values "$baseline" > "$vm_tmp/plan.baseline"
vm_expect_ge "keys in the default profile's plan" 1 "$(wc -l < "$vm_tmp/plan.baseline")"
while read -r name orig target; do
	vm_expect "'$name' while mmbatchd runs, read by mmbatchd --plan (was $orig)" "$target" "$(live_value "$name")"
	vm_expect "'$name' while mmbatchd runs, read from the kernel" "$target" "$(kernel_value "$name")"
done < "$vm_tmp/plan.baseline"

# 3. One drain for one large multi-threaded exit: one process, two threads
#    faulting DRAIN_MIB together; the drain line must name its pid.
drain_lines() { journalctl -b -u mmbatchd.service -o cat --no-pager 2>/dev/null | grep -E '^drain #[0-9]+: '; }
before=$(drain_lines | wc -l)
echo "run      a ${drain_mib} MiB 2-thread process: mmbench fault --threads 2 --size-mib $((drain_mib / 2)) --loops 1 --reps 1"
mmbench fault --threads 2 --size-mib $((drain_mib / 2)) --loops 1 --reps 1 > "$vm_tmp/fault.out" 2>&1 &
pid=$!
wait $pid
rc=$?
sed 's/^/    | /' "$vm_tmp/fault.out"
vm_expect "the ${drain_mib} MiB process (pid $pid) exit status" 0 "$rc"
waited=0
while [ "$(drain_lines | wc -l)" -eq "$before" ] && [ $waited -lt "$drain_wait" ]; do sleep 1; waited=$((waited + 1)); done
sleep 3  # a second drain for the same exit would show up by now
drain_lines | tail -n +$((before + 1)) > "$vm_tmp/drains.new"
sed 's/^/    | /' "$vm_tmp/drains.new"
vm_expect "drains logged by mmbatchd after that exit" 1 "$(wc -l < "$vm_tmp/drains.new")"
vm_expect "pid the drain names" "$pid" "$(sed -n 's/^drain #[0-9]*: exit of pid \([0-9]*\) .*/\1/p' "$vm_tmp/drains.new" | head -n 1)"

# 4. The first-boot smoke run happened and stored its result.
kver=$(uname -r)
vm_expect "mmbatch-smoke.service result" success "$(systemctl show -p Result --value mmbatch-smoke.service 2>&1)"
journalctl -b -u mmbatch-smoke.service -o cat --no-pager 2>&1 | grep -v '^[a-z]* [a-z0-9_]* *median' | tail -n 8 | sed 's/^/    | /'
vm_expect "mmbatch-smoke.service ran in this boot" yes \
	"$([ "$(systemctl show -p ExecMainStartTimestampMonotonic --value mmbatch-smoke.service)" -gt 0 ] 2>/dev/null && echo yes || echo no)"
vm_expect_ge "files under /var/lib/mmbatch/results/$kver/" 1 "$(ls "/var/lib/mmbatch/results/$kver" 2>/dev/null | wc -l)"
ls -l "/var/lib/mmbatch/results/$kver" 2>&1 | sed 's/^/    | /'
vm_expect "/var/lib/mmbatch/pending/$kver consumed" absent "$([ -e "/var/lib/mmbatch/pending/$kver" ] && echo present || echo absent)"

# 5. Stopping the daemon puts every original value back.
systemctl stop mmbatchd.service
vm_expect "mmbatchd.service after stop" inactive "$(systemctl is-active mmbatchd.service 2>&1)"
while read -r name orig target; do
	vm_expect "'$name' after stop, read by mmbatchd --plan (profile had set $target)" "$orig" "$(live_value "$name")"
	vm_expect "'$name' after stop, read from the kernel" "$orig" "$(kernel_value "$name")"
done < "$vm_tmp/plan.baseline"

vm_summary
