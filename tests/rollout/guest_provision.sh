#!/bin/sh
# Guest side of tests/rollout/vm_run.sh: makes the fleet's template disk a
# host an operator would hand to Ansible. Booted directly (kernel GOOD), once
# per test run; the host copies the disk for each test host afterwards.
#   sh guest_provision.sh GOOD
# In /vmtest beside it: authorized_keys (the test's client key),
# vm-ssh-port and vm-ssh-port.service.
# shellcheck source=tests/vm/lib.sh
. ./lib.sh

[ $# -eq 1 ] || { echo "usage: guest_provision.sh GOOD"; exit 2; }
good=$1
state=/var/lib/mmbatch
vm_expect "running kernel (booted directly)" "$good" "$(uname -r)"

# GRUB on the disk, booting its saved entry (docs/operating/canary.md).
sed -i 's/^GRUB_DEFAULT=.*/GRUB_DEFAULT=saved/' /etc/default/grub
vm_expect "grub-install /dev/vda" 0 "$(grub-install --target=i386-pc /dev/vda >"$vm_tmp/gi.log" 2>&1; echo $?)"
vm_expect "update-grub" 0 "$(update-grub >"$vm_tmp/ug.log" 2>&1; echo $?)"

# The smoke gate the canary boots apply: the integrity benchmark (lost
# writes and corrupt bytes fail it). A 6.1 and a 6.12 TCG guest differ in
# speed beyond any threshold, which is not what the rollout test is about
# (tests/canary/guest_step.sh does the same).
sed -i '/^# vmtest: TCG guests are slow$/,$d' /etc/mmbatch/mmbatchd.yaml
printf '%s\n' '# rollout test: the integrity benchmark is the gate' 'smoke:' \
	'  benchmarks: [integrity]' '  threshold_pct: 100' '  timeout_s: 600' >> /etc/mmbatch/mmbatchd.yaml
err=$(mmbatchd --check /etc/mmbatch/mmbatchd.yaml 2>&1 >/dev/null); rc=$?
vm_expect "mmbatchd --check of the edited profile" 0 "$rc${err:+ ($err)}"
# GOOD's result with that list: the baseline of the first rollout.
: > "$state/pending/$good"
vm_expect "mmbatch-smoke.service on $good (the edited list)" 0 "$(systemctl start mmbatch-smoke.service 2>&1; echo $?)"
vm_expect "smoke verdict of $good" pass "$(sed -n 's/^result=//p' "$state/verdict/$good" 2>&1)"
# A first canary-free record of the running kernel (what last-booted names).
vm_expect "last-booted" "$good" "$(cat "$state/last-booted" 2>&1)"

# sshd for the test's client only: its key, fresh host keys, no passwords,
# and sshd on the virtio-serial port instead of a network socket.
install -d -m 0700 /root/.ssh
install -m 0600 authorized_keys /root/.ssh/authorized_keys
rm -f /etc/ssh/ssh_host_*
vm_expect "ssh-keygen -A (host keys of this test run)" 0 "$(ssh-keygen -A >/dev/null 2>&1; echo $?)"
cat > /etc/ssh/sshd_config.d/rollout-test.conf <<'CONF'
# tests/rollout: key login for root only; a vanished client is noticed soon.
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
ClientAliveInterval 5
ClientAliveCountMax 3
CONF
mkdir -p /run/sshd
vm_expect "sshd -t" 0 "$(sshd -t 2>&1; echo $?)"
install -m 0755 vm-ssh-port /usr/local/sbin/vm-ssh-port
install -m 0644 vm-ssh-port.service /etc/systemd/system/vm-ssh-port.service
vm_expect "enable vm-ssh-port.service" 0 "$(systemctl enable vm-ssh-port.service >/dev/null 2>&1; echo $?)"
# No network socket to listen on; and the host's command runner is for this
# boot only: from now on the machine boots like a fleet host.
systemctl disable ssh.service ssh.socket >/dev/null 2>&1
vm_expect "disable vmtest-run.service" 0 "$(systemctl disable vmtest-run.service >/dev/null 2>&1; echo $?)"
vm_dump_kernel_log
