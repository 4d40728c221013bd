#!/bin/sh
# Full-path checks, run inside a guest booted with systemd as PID 1 from a
# rootfs where our packages were installed with dpkg (tools/vmtest/mkrootfs.sh):
#   vmtest boot VMLINUZ --rootfs IMG --initramfs INITRD --add tests/vm/lib.sh \
#       --add tests/vm/full_test.sh -- sh full_test.sh KERNELRELEASE INITRD_SHA256
# KERNELRELEASE: the packaged kernel's release; INITRD_SHA256: checksum of the
# initramfs the host booted (must be the one postinst made in /boot, or on
# an RPM host the one kernel-install put where INITRD, a third word, says). The
# mmbatchd package is always installed (tests/vm/guest.sh fails before the
# boot when the build has none).
# Besides the daemon's job (values, drain, smoke, rollback) it proves the
# units' sandboxes: from inside mmbatchd.service's mount namespace (nsenter,
# util-linux) kernel.core_pattern, /proc/sysrq-trigger, sysctls outside the
# allowlist, sysfs files outside it (ksm/run, node uevents, HugeTLB counts)
# and binfmt_misc are out of reach, exactly the allowlists' files are
# writable, and
# mmbatch-canary.service records a verdict under its own sandbox.
# The knob values before mmbatchd started come from vmtest-baseline.service
# (`mmbatchd --plan` run Before=mmbatchd.service into /run/vmtest-baseline/).
# Reads: DRAIN_MIB (default 512), DRAIN_WAIT_S (default 20).
# shellcheck source=tests/vm/lib.sh
. ./lib.sh

[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: full_test.sh KERNELRELEASE INITRD_SHA256 [INITRD]"; exit 2; }
want_release=$1 want_initrd=$2
# INITRD: where the kernel's install put the initramfs; given, the host is
# an RPM host (tests/repo/dnf_test.sh: kernel-install's BLS entry dir, rpm).
initrd=${3:-/boot/initrd.img-$want_release}
pkgdb=dpkg
[ $# -eq 2 ] || pkgdb=rpm
drain_mib=${DRAIN_MIB:-512}
drain_wait=${DRAIN_WAIT_S:-20}
profile=/etc/mmbatch/mmbatchd.yaml
baseline=/run/vmtest-baseline/plan.txt

# 1. The packaged kernel came up through the initramfs its postinst made.
vm_expect "running kernel release" "$want_release" "$(uname -r)"
vm_expect "booted initramfs = $initrd (sha256)" "$want_initrd" "$(sha256sum "$initrd" 2>&1 | cut -d' ' -f1)"
if [ $pkgdb = dpkg ]; then
	vm_expect "dpkg status of the kernel's initramfs generator" "dracut install ok installed" \
		"$(dpkg-query -W -f='${Package} ${Status}' dracut 2>&1)"
else
	vm_expect "rpm: mmbatchd installed" mmbatchd "$(rpm -q --qf '%{NAME}' mmbatchd 2>&1)"
	vm_expect "rpm: the kernel package owns /lib/modules/$want_release" 1 \
		"$(rpm -qf "/lib/modules/$want_release/vmlinuz" 2>/dev/null | grep -c '^mmbatch-kernel-')"
fi
vm_expect_ge "initrd phase in this boot's journal ('Switching root.')" 1 \
	"$(journalctl -b -o cat --no-pager 2>/dev/null | grep -c '^Switching root\.$')"
vm_expect "root filesystem" "/dev/vda ext4" "$(awk '$2 == "/" && $1 != "rootfs" {print $1, $3}' /proc/mounts | tail -n 1)"
vm_expect "systemd is PID 1" systemd "$(cat /proc/1/comm)"
# (is-system-running says "starting" while this very unit runs: list failures.)
vm_expect_no_failed_units "failed units"

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

# 2b. The sandbox holds, seen from inside the running unit: nsenter into
#     mmbatchd's mount namespace only (root with every capability, the
#     unit's mounts). Read-only mounts stop even that root: files outside the
#     allowlist fail with EROFS; the profile's own keys stay writable. Each
#     forbidden write is also done from the host namespace with the value the
#     file already has, so a failure inside is the sandbox and nothing else.
main_pid=$(systemctl show -P MainPID mmbatchd.service 2>&1)
vm_expect_ge "mmbatchd.service MainPID" 2 "$main_pid"
vm_expect "mmbatchd's mount namespace differs from PID 1's" yes \
	"$([ "$(readlink "/proc/$main_pid/ns/mnt" 2>&1)" != "$(readlink /proc/1/ns/mnt)" ] && echo yes || echo no)"
in_unit() { nsenter -t "$main_pid" -m -- "$@"; }
# write_file PATH VALUE [in-unit]: "ok" or "failed: <the shell's message>".
write_file() {
	if [ "${3:-}" = in-unit ]; then
		_out=$(in_unit sh -c 'printf "%s\n" "$1" > "$2"' sh "$2" "$1" 2>&1)
	else
		_out=$(sh -c 'printf "%s\n" "$1" > "$2"' sh "$2" "$1" 2>&1)
	fi
	# shellcheck disable=SC2181 # $? of the assignment is the write's
	if [ $? -eq 0 ]; then echo ok; else echo "failed: $_out"; fi
}
# expect_forbidden NAME PATH VALUE: the write fails in the unit with EROFS,
# works from the host namespace, and the file reads the same afterwards.
expect_forbidden() {
	if [ ! -e "$2" ]; then
		vm_not_live "$1: write from inside mmbatchd.service fails" "$2 does not exist on this kernel"
		return
	fi
	_before=$(cat "$2" 2>/dev/null || echo "(write-only)")
	vm_expect_match "$1: write '$3' from inside mmbatchd.service" "failed:*Read-only file system*" \
		"$(write_file "$2" "$3" in-unit)"
	vm_expect "$1: the same write from the host namespace (control)" ok "$(write_file "$2" "$3")"
	vm_expect "$1: value read from the host namespace afterwards" "$_before" "$(cat "$2" 2>/dev/null || echo "(write-only)")"
}
echo "run      mounts under /proc/sys and /sys inside mmbatchd.service (nsenter -t $main_pid -m):"
in_unit awk '$5 ~ "^/(proc/sys|sys)(/|$)" { split($6, o, ","); print "    | " $5, o[1], "(id " $1 ", parent " $2 ")" }' \
	/proc/self/mountinfo 2>&1 | sort | head -n 80
if [ -e /proc/sys/kernel/core_pattern ]; then
	core_pattern=$(cat /proc/sys/kernel/core_pattern)
	expect_forbidden "kernel.core_pattern" /proc/sys/kernel/core_pattern "$core_pattern"
	# An attacker would write "|/path/to/prog"; the sandbox must refuse that too.
	vm_expect_match "kernel.core_pattern: write '|/bin/false' from inside mmbatchd.service" \
		"failed:*Read-only file system*" "$(write_file /proc/sys/kernel/core_pattern '|/bin/false' in-unit)"
	vm_expect "kernel.core_pattern after both (host namespace)" "$core_pattern" "$(cat /proc/sys/kernel/core_pattern)"
else
	vm_not_live "kernel.core_pattern: write from inside mmbatchd.service fails" \
		"this kernel has no /proc/sys/kernel/core_pattern (CONFIG_COREDUMP off; Debian's kernels have it)"
fi
# 'h' only prints the SysRq help to the kernel log.
expect_forbidden "/proc/sysrq-trigger" /proc/sysrq-trigger h
# A vm.* file outside the allowlist (the old unit opened all of /proc/sys/vm).
expect_forbidden "vm.mmap_min_addr" /proc/sys/vm/mmap_min_addr "$(cat /proc/sys/vm/mmap_min_addr 2>/dev/null)"
# sysfs outside the two mm trees (systemd 255-257 leave /sys itself
# writable unless the unit names its trees): a harmless printk flag.
expect_forbidden "/sys/module/printk/parameters/time" /sys/module/printk/parameters/time \
	"$(cat /sys/module/printk/parameters/time 2>/dev/null)"
# binfmt_misc (systemd 257 carries its autofs mount into the unit): a
# registered handler would run as root on every matching exec. The host
# side first (access(W_OK) there triggers the automount, whose mount then
# propagates into the unit), then a write of 'x' (no valid rule, so nothing
# could be registered even if it got through) from inside.
if [ -e /proc/sys/fs/binfmt_misc ]; then
	vm_expect "binfmt_misc/register writable from the host namespace (control, access W_OK)" yes \
		"$([ -w /proc/sys/fs/binfmt_misc/register ] && echo yes || echo no)"
	bm=$(write_file /proc/sys/fs/binfmt_misc/register x in-unit)
	case "$bm" in
	failed:*"Read-only file system"*|failed:*"Permission denied"*|failed:*"No such file"*|failed:*"Directory nonexistent"*) bm=refused ;;
	*) bm="reachable ($bm)" ;;
	esac
	vm_expect "binfmt_misc/register from inside mmbatchd.service (EROFS, EACCES or ENOENT)" refused "$bm"
else
	vm_not_live "binfmt_misc/register from inside mmbatchd.service" "this kernel has no /proc/sys/fs/binfmt_misc"
fi
# The profile's keys: writing the value each has now works from inside.
while read -r name orig target; do
	case "$name" in /*) f=$name ;; *) f=/proc/sys/$(echo "$name" | tr . /) ;; esac
	v=$(kernel_value "$name")
	vm_expect "'$name': write its value '$v' from inside mmbatchd.service" ok "$(write_file "$f" "$v" in-unit)"
	vm_expect "'$name' after that write, read from the kernel" "$target" "$(kernel_value "$name")"
done < "$vm_tmp/plan.baseline"
# Exactly the allowlists are writable: under /proc/sys the sysctl files of
# `mmbatchd --list-keys`, under /sys its sysfs files and nothing else (no
# tree, no node file: the unit opens single files): every file root can
# write from inside (find -writable: access(W_OK), which a read-only mount
# refuses and the file mode bits limit even for root).
if mmbatchd --list-keys > "$vm_tmp/list-keys" 2> "$vm_tmp/list-keys.err"; then
	cut -f2 "$vm_tmp/list-keys" | grep '^/proc/sys/' | while read -r f; do [ ! -e "$f" ] || echo "$f"; done | sort > "$vm_tmp/allow.present"
	in_unit find /proc/sys -type f -writable 2>/dev/null | sort > "$vm_tmp/rw.proc"
	vm_expect "files writable under /proc/sys inside mmbatchd.service = allowlist files present ($(wc -l < "$vm_tmp/allow.present") of $(grep -c '^/proc/sys/' "$vm_tmp/list-keys"))" \
		"$(paste -sd' ' "$vm_tmp/allow.present")" "$(paste -sd' ' "$vm_tmp/rw.proc")"
	# The sysfs files present and writable by their mode (a file the
	# kernel makes read-only, or write-only, counts by access(W_OK) alone).
	cut -f2 "$vm_tmp/list-keys" | grep '^/sys/' | while read -r f; do [ ! -w "$f" ] || echo "$f"; done | sort > "$vm_tmp/allow.sys"
	# (systemd 257 also binds the unit's own cgroup memory.pressure file
	# read-write for its PSI watch: a trigger on its own cgroup, not a tunable.)
	in_unit find /sys -type f -writable 2>/dev/null |
		grep -vE '^/sys/fs/cgroup/.*/mmbatchd\.service/memory\.pressure$' | sort > "$vm_tmp/rw.sys" || true
	vm_expect "files writable under /sys inside mmbatchd.service = sysfs allowlist files present ($(wc -l < "$vm_tmp/allow.sys") of $(grep -c '^/sys/' "$vm_tmp/list-keys"))" \
		"$(paste -sd' ' "$vm_tmp/allow.sys")" "$(paste -sd' ' "$vm_tmp/rw.sys")"
	vm_expect_ge "sysfs allowlist files writable inside mmbatchd.service (THP at least)" 1 "$(wc -l < "$vm_tmp/rw.sys")"
else
	vm_expect "mmbatchd --list-keys exit status" 0 "failed: $(head -n 3 "$vm_tmp/list-keys.err" | paste -sd' ')"
fi
vm_expect "/proc/sys itself in mmbatchd.service" ro \
	"$(in_unit awk '$5 == "/proc/sys" { split($6, o, ","); m = o[1] } END { print m }' /proc/self/mountinfo)"
# What the old prefix rule and the old unit's trees let through: refused by
# the sandbox now (each exists on Debian's 6.1 and 6.12 with their configs;
# a kernel without one says so).
expect_forbidden "node0/uevent" /sys/devices/system/node/node0/uevent change
expect_forbidden "ksm/run" /sys/kernel/mm/ksm/run "$(cat /sys/kernel/mm/ksm/run 2>/dev/null)"
for f in /sys/kernel/mm/hugepages/hugepages-*/nr_hugepages; do
	[ -e "$f" ] || continue
	expect_forbidden "$f" "$f" "$(cat "$f")"
done

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

# 4b. mmbatch-canary.service works inside its sandbox: armed for a kernel
#     that is not the running one (GRUB fell back), its verdict records the
#     failure in /var/lib/mmbatch/canary (its one writable state path); that
#     path reboots nothing and needs no GRUB (tests/canary covers those).
canary_dir=/var/lib/mmbatch/canary
mkdir -p "$canary_dir"
printf 'status=armed\nkernel=0.0-vmtest-never-booted\nprevious=%s\nreboot_on_failure=1\n' "$kver" > "$canary_dir/state"
vm_run_expect "systemctl start mmbatch-canary.service (armed for a kernel not running)" 0 \
	systemctl start mmbatch-canary.service
vm_expect "mmbatch-canary.service result" success "$(systemctl show -p Result --value mmbatch-canary.service 2>&1)"
vm_expect "canary state written by the unit" failed "$(sed -n 's/^status=//p' "$canary_dir/state" 2>&1)"
vm_expect_match "canary history written by the unit" "*failed 0.0-vmtest-never-booted: the canary boot never reached*" \
	"$(cat "$canary_dir/history" 2>&1)"
journalctl -b -u mmbatch-canary.service -o cat --no-pager 2>&1 | tail -n 3 | sed 's/^/    | /'
rm -rf "$canary_dir"

# 5. Stopping the daemon puts every original value back.
systemctl stop mmbatchd.service
vm_expect "mmbatchd.service after stop" inactive "$(systemctl is-active mmbatchd.service 2>&1)"
while read -r name orig target; do
	vm_expect "'$name' after stop, read by mmbatchd --plan (profile had set $target)" "$orig" "$(live_value "$name")"
	vm_expect "'$name' after stop, read from the kernel" "$orig" "$(kernel_value "$name")"
done < "$vm_tmp/plan.baseline"

# 5b. No write lost while dirty MAP_SHARED pages of an ext4 file (the
#     rootfs) migrate, many of them under writeback: an fsync/msync thread
#     runs beside the writers (mmbench integrity --kind file). Last, with
#     the daemon stopped, so its children's exits stay out of the drain
#     checks above.
vm_run_expect "mmbench integrity --kind file --dir /var/tmp (ext4)" 0 \
	mmbench integrity --kind file --dir /var/tmp --seconds 10 --pages 1024 --min-migrations 16

# 5c. Issue 41, from inside the running units: mmbatchd never holds
#     CAP_NET_ADMIN, not even in its bounding set (the unit's ExecStartPre=+
#     subscribes the exit watcher's socket and hands it over through the fd
#     store), reload included, and exits are still drained after both; the
#     documented textfile-collector path works; the smoke unit's sandbox
#     cannot write the journal's directory; the state tree is 0700.
#     prometheus-node-exporter is not installed: its directories are made as
#     Debian's package makes them (/var/lib/prometheus the collector's user's,
#     nobody here; node-exporter in it root's, 0755), before the start, since
#     ReadWritePaths= needs them then.
prom_dir=/var/lib/prometheus/node-exporter
install -d -m 0755 -o nobody /var/lib/prometheus
install -d -m 0755 "$prom_dir"
cp "$profile" "$vm_tmp/profile.orig"
grep -q '^metrics_file:' "$profile" || printf 'metrics_file: %s/mmbatchd.prom\n' "$prom_dir" >> "$profile"
chmod 0755 /var/lib/mmbatch
systemctl start mmbatchd.service
vm_expect "mmbatchd.service started again (5c)" active "$(systemctl is-active mmbatchd.service 2>&1)"
main_pid=$(systemctl show -P MainPID mmbatchd.service 2>&1)
# cap_bit FIELD: CAP_NET_ADMIN (bit 12) of FIELD in the daemon's status.
cap_bit() {
	_hex=$(awk -v f="$1:" '$1 == f { print $2 }' "/proc/$main_pid/status" 2>/dev/null)
	[ -n "$_hex" ] || { echo "no $1"; return; }
	echo $(( (0x$_hex >> 12) & 1 ))
}
grep -E '^(Cap(Eff|Prm|Bnd)|NoNewPrivs):' "/proc/$main_pid/status" | sed 's/^/    | /'
for when in "after start" "after reload"; do
	if [ "$when" = "after reload" ]; then
		systemctl reload mmbatchd.service
		vm_expect "mmbatchd.service after reload" active "$(systemctl is-active mmbatchd.service 2>&1)"
		vm_expect "MainPID after reload (the same process)" "$main_pid" "$(systemctl show -P MainPID mmbatchd.service 2>&1)"
		grep -E '^(Cap(Eff|Prm|Bnd)|NoNewPrivs):' "/proc/$main_pid/status" | sed 's/^/    | /'
	fi
	vm_expect "CAP_NET_ADMIN in mmbatchd's CapEff $when" 0 "$(cap_bit CapEff)"
	vm_expect "CAP_NET_ADMIN in mmbatchd's CapPrm $when" 0 "$(cap_bit CapPrm)"
	vm_expect "CAP_NET_ADMIN in mmbatchd's CapBnd $when" 0 "$(cap_bit CapBnd)"
	vm_expect "mmbatchd's NoNewPrivs $when" 1 "$(awk '$1 == "NoNewPrivs:" { print $2 }' "/proc/$main_pid/status")"
	vm_expect "mmbatchd's status $when: drain on exit" true \
		"$(mmbatchd --status | sed -n 's/.*"drain":{"on_exit":\([a-z]*\).*/\1/p')"
	vm_expect "the exit watcher's socket in the fd store $when" 1 \
		"$(systemctl show -P NFileDescriptorStore mmbatchd.service 2>&1)"
	vm_expect_match "mmbatchd's fd 3 $when: the passed socket" "socket:*" "$(readlink "/proc/$main_pid/fd/3" 2>&1)"
	# A large exit still drains (as in 3), now read from the passed socket.
	before=$(drain_lines | wc -l)
	mmbench fault --threads 2 --size-mib $((drain_mib / 2)) --loops 1 --reps 1 > "$vm_tmp/fault.out" 2>&1 &
	pid=$!
	wait $pid || true
	waited=0
	while [ "$(drain_lines | wc -l)" -eq "$before" ] && [ $waited -lt "$drain_wait" ]; do sleep 1; waited=$((waited + 1)); done
	vm_expect "pid of the drain after a large exit $when" "$pid" \
		"$(drain_lines | tail -n +$((before + 1)) | sed -n 's/^drain #[0-9]*: exit of pid \([0-9]*\) .*/\1/p' | head -n 1)"
done
vm_expect "the ExecStartPre that stored the socket" "0" \
	"$(systemctl show -P ExecStartPre mmbatchd.service | sed -n 's/.*--open-exit-watcher.*status=\([0-9]*\).*/\1/p' | head -n 1)"
vm_expect "state dir mode (StateDirectoryMode= and the daemon's own check)" 700 "$(stat -c %a /var/lib/mmbatch)"
vm_expect "journal dir mode" 700 "$(stat -c %a /var/lib/mmbatch/mmbatchd)"
vm_expect "journal in /var/lib/mmbatch/mmbatchd" yes "$([ -f /var/lib/mmbatch/mmbatchd/journal ] && echo yes || echo no)"
vm_expect "metrics file written in $prom_dir: owner, mode" "0 644" "$(stat -c '%u %a' "$prom_dir/mmbatchd.prom" 2>&1)"
vm_expect_match "metrics file content" "*mmbatchd_up 1*" "$(cat "$prom_dir/mmbatchd.prom" 2>&1)"
# What the daemon said of its metrics file, and the profile's last lines.
journalctl -b -u mmbatchd.service -o cat --no-pager 2>&1 | grep -iE 'metric|warn' | tail -n 5 | sed 's/^/    | /'
tail -n 3 "$profile" | sed 's/^/    | /'
vm_expect "write in $prom_dir from inside mmbatchd.service" ok \
	"$(in_unit sh -c ": > $prom_dir/.vmtest && rm $prom_dir/.vmtest" 2>&1 && echo ok)"
vm_expect_match "write in /var/lib/prometheus from inside mmbatchd.service" "*Read-only file system*" \
	"$(in_unit sh -c ': > /var/lib/prometheus/.vmtest' 2>&1)"
# The smoke unit's sandbox with another command: writes the state tree, not
# the journal's directory.
sed -e 's|^ExecStart=.*|ExecStart=/bin/sh -c "echo x > /var/lib/mmbatch/.vmtest-smoke \&\& echo x > /var/lib/mmbatch/mmbatchd/journal"|' \
	-e '/^ConditionPathExists=/d' /usr/lib/systemd/system/mmbatch-smoke.service > /run/systemd/system/vmtest-smoke-sandbox.service
systemctl daemon-reload
journal_sum=$(sha256sum /var/lib/mmbatch/mmbatchd/journal 2>&1)
systemctl start vmtest-smoke-sandbox.service 2>/dev/null
vm_expect "smoke sandbox: its write into the state tree (control)" x "$(cat /var/lib/mmbatch/.vmtest-smoke 2>&1)"
vm_expect "smoke sandbox: the journal after its write" "$journal_sum" "$(sha256sum /var/lib/mmbatch/mmbatchd/journal 2>&1)"
journalctl -b -u vmtest-smoke-sandbox.service -o cat --no-pager 2>&1 | tail -n 3 | sed 's/^/    | /'
systemctl reset-failed vmtest-smoke-sandbox.service 2>/dev/null
rm -f /run/systemd/system/vmtest-smoke-sandbox.service /var/lib/mmbatch/.vmtest-smoke
systemctl daemon-reload
systemctl stop mmbatchd.service
vm_expect "mmbatchd.service after the 5c stop" inactive "$(systemctl is-active mmbatchd.service 2>&1)"
cp "$vm_tmp/profile.orig" "$profile"

# 6. The kernel log, for the host's splat scan (tests/vm/host.sh).
vm_dump_kernel_log
vm_summary
