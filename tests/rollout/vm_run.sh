#!/bin/bash
# The fleet rollout on booted machines (make check-rollout-vm): three qemu
# hosts from one GRUB disk (Debian 12, mmbatchd, the GOOD kernel), the
# mmbatch.fleet collection built with ansible-galaxy and installed into a
# scratch path, and the playbook run with the hosts as its inventory:
#   A  NEW (a good kernel), waves [1, 2]: every wave completes, each host
#      boots NEW as its GRUB default; run again: every host is skipped;
#      --check with GOOD as the target: every host would roll, none changes
#   B  BAD (built to fail the smoke gate), waves [1, 2]: the first wave's
#      host fails its canary and is back on NEW, the rollout stops, the
#      later hosts never install BAD
#   C  GOOD, waves [1, 1, 1], h2 powered off once the rollout started: h1
#      passes, h2 fails as unreachable, the rollout stops before h3
# The fleet report of each run is checked and kept in $OUT/rollout/.
#
# The test hosts have no network device (the guest kernels have none): each
# host's sshd speaks over a virtio-serial port that qemu joins to a TCP port
# on 127.0.0.1 (tests/rollout/guest/vm-ssh-port; ssh reaches it through
# tests/rollout/vm-ssh-proxy, which marks where each session starts), so the
# inventory is 127.0.0.1 with one port per host, and nothing else is
# reachable from the guests. apt reaches the repository (tools/repo/mkrepo.sh, signed with a
# throwaway key, served by python3 -m http.server on 127.0.0.1) through an
# ssh reverse tunnel on the same connection: the role adds the repository
# source http://127.0.0.1:8080 as it would any mirror's URL.
#
# Kernels by identity file (tools/kbuild/identity.sh), as check-canary's:
# ROLLOUT_GOOD (installed first; its MMBATCHD_DEB too), ROLLOUT_NEW,
# ROLLOUT_BAD (with EXTRA_PATCHES_HASH: the fault-patch build).
# Reads: OUT, ROLLOUT_BOOT_TIMEOUT (provisioning boot, default 900),
# ROLLOUT_HOST_MEM (MiB per host, default 1536).
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
vmtest=$top/tools/vmtest/vmtest
keep=$out/rollout
mkdir -p "$keep"
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
note() { echo "rollout-vm: $*" >&2; }

# shellcheck source=tests/lib/canary_kernels.sh
. "$top/tests/lib/canary_kernels.sh"
canary_kernels rollout-vm ROLLOUT_GOOD ROLLOUT_BAD ROLLOUT_NEW

TEST_NAME=vm
# shellcheck source=tests/lib/assert.sh
. "$top/tests/lib/assert.sh"
# shellcheck source=tests/vm/host.sh
. "$top/tests/vm/host.sh"
scratch
t_all=$SECONDS
note "kernels: GOOD $good, NEW $new, BAD $bad; scratch $T"

# --- the machines ------------------------------------------------------------

hosts=(h1 h2 h3)
declare -A port pid
http_pid=
stop_all() {
	local h
	for h in "${hosts[@]}"; do host_stop "$h"; done
	[ -z "$http_pid" ] || kill "$http_pid" 2>/dev/null || true
}
trap 'stop_all; cleanup' EXIT

# free_port: a TCP port of 127.0.0.1 nobody listens on now.
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# host_start NAME: powers the host's disk on. A reboot in the guest stays
# in this qemu (no -no-reboot): the machine reboots as a host does. Its
# serial console goes to $T/NAME.console, appended across reboots.
host_start() {
	local h=$1 mem=${ROLLOUT_HOST_MEM:-1536}
	"$qemu" -accel "$accel" -cpu "$cpu" -nodefaults -display none -monitor none \
		-smp 2 -m "${mem}M" \
		-object "memory-backend-ram,id=m0,size=$((mem / 2))M" -numa node,nodeid=0,cpus=0,memdev=m0 \
		-object "memory-backend-ram,id=m1,size=$((mem / 2))M" -numa node,nodeid=1,cpus=1,memdev=m1 \
		-drive "file=$T/$h.img,if=virtio,format=raw" \
		-device virtio-serial-pci \
		-chardev "socket,id=ssh,host=127.0.0.1,port=${port[$h]},server=on,wait=off" \
		-device virtserialport,chardev=ssh,name=org.mmbatch.ssh \
		-serial "file:$T/$h.console" </dev/null >"$T/$h.qemu" 2>&1 &
	pid[$h]=$!
	note "$h: qemu pid ${pid[$h]}, ssh on 127.0.0.1:${port[$h]}"
}
# host_stop NAME: pulls the plug.
host_stop() {
	local p=${pid[$1]:-}
	[ -n "$p" ] || return 0
	kill -KILL "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
	pid[$1]=
}
# on NAME CMD...: runs CMD on the host over its ssh port. qemu's end of
# the serial port takes one client at a time: while a closing connection
# (Ansible's persisted one, after its ControlPersist) still holds it, a new
# one is closed at once ("kex_exchange_identification: Connection closed by
# remote host", ssh exit 255; seen after scenario A of run 5). Such a
# connection failure is tried again, 6 times 5 s apart; the command's own
# status is returned as it is. The failed tries' ssh errors go to
# $T/ssh-retries.log, not to stderr: checks capture `on ... 2>&1`, and two
# retried-then-answered reads of `uname -r` once failed their checks on
# those lines alone (A: h2 runs NEW, B: h1 is back on NEW; seen in
# docs/results/2026-12-04-debug-both-bases.md).
on() {
	local h=$1 try rc err=$T/ssh-err.$1
	shift
	for try in 1 2 3 4 5 6; do
		rc=0
		ssh -F "$T/ssh/config" -p "${port[$h]}" root@127.0.0.1 "$@" 2>"$err" || rc=$?
		if [ "$rc" -eq 255 ] && [ "$try" -lt 6 ]; then
			sed "s/^/$h, try $try: /" "$err" >>"$T/ssh-retries.log"
			sleep 5
			continue
		fi
		cat "$err" >&2
		return "$rc"
	done
}
# wait_ssh NAME SECONDS: until the host answers over ssh.
wait_ssh() {
	local t0=$SECONDS
	until on "$1" true 2>/dev/null; do
		[ $((SECONDS - t0)) -lt "$2" ] || return 1
		sleep 5
	done
}
# grub_default NAME: the kernel of the host's GRUB saved_entry.
grub_default() { on "$1" grub-editenv /boot/grub/grubenv list | sed -n 's/^saved_entry=.*gnulinux-\(.*\)-advanced-.*/\1/p'; }

step disk "$vmtest" rootfs -o "$T/rootfs" --grub --apt openssh-server --apt python3 --apt python3-apt "$ddeb" "$good_deb"
[ -f "$T/rootfs/disk.img" ] || { fail "mkrootfs --grub made no disk"; exit 1; }
cp --sparse=always "$T/rootfs/disk.img" "$T/template.img"

install -d -m 0700 "$T/ssh"
ssh-keygen -q -t ed25519 -N '' -C rollout-test -f "$T/ssh/id" >/dev/null
cp "$T/ssh/id.pub" "$T/authorized_keys"

# Provisioning: GRUB, the smoke gate, sshd on the port (guest_provision.sh).
t=$SECONDS
rc=0
"$vmtest" boot "$T/rootfs/vmlinuz" --disk "$T/template.img" --initramfs "$T/rootfs/initrd.img" \
	--probe-kernel "$T/rootfs/vmlinuz" --timeout "${ROLLOUT_BOOT_TIMEOUT:-900}" --log "$T/provision.console" \
	--add "$top/tests/vm/lib.sh" --add "$here/guest_provision.sh" --add "$T/authorized_keys" \
	--add "$here/guest/vm-ssh-port" --add "$here/guest/vm-ssh-port.service" \
	-- sh guest_provision.sh "$good" >"$T/provision.out" 2>&1 || rc=$?
echo "provisioning boot:"
guest_results "$T/provision.out"
guest_splats "$T/provision.out" "$T/provision.console"
expect_status "provisioning boot: vmtest exit (console: $T/provision.console)" 0 "$rc"
note "provisioning: $((SECONDS - t)) s"
[ "$rc" = 0 ] || exit 1

# The repository and its server.
# The key where the role installs it (mkrepo refuses a key URL over http://).
step repo env REPO_KEY=generate REPO_OUT="$T/repo" REPO_URL=http://127.0.0.1:8080 OUT="$T/repo-out" \
	REPO_KEY_URL=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-mmbatch \
	"$top/tools/repo/mkrepo.sh" "$new_deb" "$bad_deb" "$good_deb"
http_port=$(free_port)
/usr/bin/python3 -m http.server --bind 127.0.0.1 --directory "$T/repo" "$http_port" >"$T/http.log" 2>&1 &
http_pid=$!
mkdir -p "$T/cp"
cat >"$T/ssh/config" <<EOF
Host *
	User root
	IdentityFile $T/ssh/id
	IdentitiesOnly yes
	UserKnownHostsFile $T/ssh/known_hosts
	StrictHostKeyChecking accept-new
	ConnectTimeout 60
	ServerAliveInterval 5
	ServerAliveCountMax 3
	BatchMode yes
	LogLevel ERROR
	ProxyCommand /usr/bin/python3 $here/vm-ssh-proxy %p
	# One connection per host: qemu's end of the serial port takes one
	# client at a time, so the test's own commands share Ansible's
	# connection (its ControlPath: control_path_dir/%C), and that carries
	# the tunnel to the repository whoever opened it.
	ControlMaster auto
	ControlPath $T/cp/%C
	ControlPersist 120s
	RemoteForward 127.0.0.1:8080 127.0.0.1:$http_port
EOF

# The collection as an operator gets it: built and installed by ansible-galaxy.
step collection ansible-galaxy collection build --force --output-path "$T" "$top/tools/rollout/collection"
step install ansible-galaxy collection install --force -p "$T/collections" "$T"/mmbatch-fleet-*.tar.gz
cat >"$T/ansible.cfg" <<EOF
[defaults]
collections_path = $T/collections
forks = 5
timeout = 60
retry_files_enabled = false
[ssh_connection]
pipelining = true
ssh_args = -F $T/ssh/config -o ControlMaster=auto -o ControlPersist=120s
control_path_dir = $T/cp
retries = 3
EOF
{
	echo "[fleet]"
	for h in "${hosts[@]}"; do
		port[$h]=$(free_port)
		echo "$h ansible_host=127.0.0.1 ansible_port=${port[$h]}"
	done
	echo "[fleet:vars]"
	echo "ansible_user=root"
	echo "ansible_python_interpreter=/usr/bin/python3"
} >"$T/hosts.ini"

qemu=${VMTEST_QEMU:-qemu-system-x86_64}
accel=$("$vmtest" accel "$T/rootfs/vmlinuz")
# As vmtest's guests: under TCG without ERMS/FSRM (byte-wise 'rep stosb').
cpu=max
[ "$accel" != tcg ] || cpu=max,-erms,-fsrm
for h in "${hosts[@]}"; do
	cp --sparse=always "$T/template.img" "$T/$h.img"
	host_start "$h"
done
for h in "${hosts[@]}"; do
	t=$SECONDS
	if wait_ssh "$h" 600; then pass "$h answers over ssh ($((SECONDS - t)) s)"; else fail "$h does not answer over ssh within 600 s (console: $T/$h.console)"; fi
done
for h in "${hosts[@]}"; do
	expect_eq "$h runs GOOD" "$good" "$(on "$h" uname -r 2>&1)"
done

# --- the rollouts ------------------------------------------------------------

# rollout NAME EXPECTED_RC KERNEL WAVES [ansible-playbook args]: one run of
# the playbook; its output in $keep/NAME.log, its report in $T/report-NAME
# (copied to $keep/NAME-fleet-report.{md,json}).
rollout() {
	local name=$1 want=$2 kernel=$3 waves=$4 rc=0 t0=$SECONDS
	shift 4
	note "rollout $name: $kernel, waves $waves ..."
	ANSIBLE_CONFIG=$T/ansible.cfg ansible-playbook -i "$T/hosts.ini" mmbatch.fleet.rollout \
		-e "mmbatch_rollout_kernel=$kernel" \
		-e "mmbatch_rollout_repo_url=http://127.0.0.1:8080" \
		-e "mmbatch_rollout_repo_key=$T/repo/mmbatch-archive-keyring.gpg" \
		-e "mmbatch_rollout_report_dir=$T/report-$name" \
		-e "{\"mmbatch_rollout_waves\": $waves}" \
		-e mmbatch_rollout_connect_timeout=90 \
		"$@" >"$keep/$name.log" 2>&1 || rc=$?
	expect_status "rollout $name: ansible-playbook exit (log: $keep/$name.log)" "$want" "$rc"
	cp "$T/report-$name/fleet-report.md" "$keep/$name-fleet-report.md" 2>/dev/null || true
	cp "$T/report-$name/fleet-report.json" "$keep/$name-fleet-report.json" 2>/dev/null || true
	note "rollout $name: $((SECONDS - t0)) s"
}
# outcome NAME HOST: the host's outcome in that run's fleet report.
outcome() { jq -r --arg h "$2" '[.hosts[] | select(.host == $h) | .outcome][0] // "absent"' "$T/report-$1/fleet-report.json" 2>/dev/null || echo "no report"; }
boot_id() { on "$1" cat /proc/sys/kernel/random/boot_id; }

# A: a good kernel through every wave.
rollout good 0 "$new" '[1, 2]'
for h in "${hosts[@]}"; do
	expect_eq "A: $h passed" passed "$(outcome good "$h")"
	expect_eq "A: $h runs NEW" "$new" "$(on "$h" uname -r 2>&1)"
	expect_eq "A: NEW is $h's GRUB default" "$new" "$(grub_default "$h")"
done
expect_eq "A: wave 1 is h1" '["h1"]' "$(jq -c .hosts "$T/report-good/waves/1.json")"
expect_eq "A: wave 2 is h2, h3" '["h2","h3"]' "$(jq -c .hosts "$T/report-good/waves/2.json")"
expect_match "A: the report's totals" '^fleet: 3 passed, 0 skipped, 0 failed, 0 unreachable, 0 not reached' "@$T/report-good/fleet-report.md"
expect_eq "A: h1's canary verdict" pass "$(jq -r '.hosts[] | select(.host == "h1") | .canary_verdict' "$T/report-good/fleet-report.json")"

declare -A boots
for h in "${hosts[@]}"; do boots[$h]=$(boot_id "$h"); done
rollout again 0 "$new" '[1, 2]'
for h in "${hosts[@]}"; do
	expect_eq "A again: $h skipped" skipped "$(outcome again "$h")"
	expect_eq "A again: $h did not reboot" "${boots[$h]}" "$(boot_id "$h")"
done

rollout check 0 "$good" '[1, 2]' --check
for h in "${hosts[@]}"; do
	expect_eq "A --check: $h would roll" would-roll "$(outcome check "$h")"
	expect_eq "A --check: $h did not reboot" "${boots[$h]}" "$(boot_id "$h")"
	expect_eq "A --check: $h still runs NEW" "$new" "$(on "$h" uname -r 2>&1)"
	expect_eq "A --check: no canary armed on $h (the last one is NEW's)" "canary:    $new (passed)" \
		"$(on "$h" mmbatchctl canary --status 2>&1 | head -n 1)"
done

# B: the negative-control kernel stops after the first wave.
rollout bad 2 "$bad" '[1, 2]'
expect_eq "B: h1 failed" failed "$(outcome bad h1)"
expect_contains "B: h1's reason is the smoke's integrity failure" "integrity" \
	"$(jq -r '.hosts[] | select(.host == "h1") | .reason' "$T/report-bad/fleet-report.json")"
expect_eq "B: h1 is back on NEW" "$new" "$(on h1 uname -r 2>&1)"
expect_eq "B: NEW is still h1's GRUB default" "$new" "$(grub_default h1)"
for h in h2 h3; do
	expect_eq "B: $h not reached" not-reached "$(outcome bad "$h")"
	# shellcheck disable=SC2016 # ${Status} is dpkg-query's
	expect_eq "B: $h never installed BAD" absent "$(on "$h" dpkg-query -W -f='${Status}' "linux-image-$bad" 2>/dev/null || echo absent)"
	expect_eq "B: $h did not reboot" "${boots[$h]}" "$(boot_id "$h")"
done
expect_absent "B: no wave 2" "$T/report-bad/waves/2.json"

# C: a host that goes away mid-rollout fails, and the rollout stops.
(
	until [ -f "$T/report-gone/waves/1.json" ]; do sleep 1; done
	kill -KILL "${pid[h2]}" 2>/dev/null
) &
killer=$!
rollout gone 2 "$good" '[1, 1, 1]'
wait "$killer" 2>/dev/null || true
pid[h2]=
expect_eq "C: h1 passed" passed "$(outcome gone h1)"
expect_eq "C: h1 runs GOOD" "$good" "$(on h1 uname -r 2>&1)"
expect_eq "C: h2 failed" failed "$(outcome gone h2)"
expect_contains "C: h2's reason: it did not answer" "Wait for the host to answer" \
	"$(jq -r '.hosts[] | select(.host == "h2") | .reason' "$T/report-gone/fleet-report.json")"
expect_eq "C: h3 not reached" not-reached "$(outcome gone h3)"
expect_eq "C: h3 still runs NEW" "$new" "$(on h3 uname -r 2>&1)"
expect_eq "C: h3 did not reboot" "${boots[h3]}" "$(boot_id h3)"

for h in "${hosts[@]}"; do
	[ ! -s "$T/$h.console" ] || splat_scan "$h's console (every boot)" "$T/$h.console"
	cp "$T/$h.console" "$keep/$h.console" 2>/dev/null || true
done
note "total $((SECONDS - t_all)) s"
test_summary
