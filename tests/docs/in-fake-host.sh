#!/bin/bash
# Runs one doc block on the fake host of tests/docs/run.sh, inside a private
# mount namespace (run as `unshare -m --propagation private in-fake-host.sh
# FAKE BLOCK`): /etc, /var/lib, /usr/share and /boot become overlays whose
# upper layers are FAKE/<name>.u (so /etc/mmbatch, /var/lib/mmbatch,
# /usr/share/mmbatch and /boot/grub exist there and nowhere else), and
# /proc/sys, /sys/kernel/mm and /sys/devices/system/node are FAKE's own
# trees. Nothing the block does reaches the real host's files or knobs.
# BLOCK runs with `bash -e`, in FAKE/work, HOME=FAKE/home.
# Reads: DOC_PATH (PATH for the block), and passes on the MMBATCH* overrides
# run.sh sets.
set -eu

usage() { echo "usage: in-fake-host.sh FAKE BLOCK" >&2; exit 2; }
[ $# -eq 2 ] || usage
fake=$1 block=$2

for d in etc var/lib usr/share boot; do
	n=${d//\//_}
	mount -t overlay overlay -o "lowerdir=/$d,upperdir=$fake/$n.u,workdir=$fake/$n.w" "/$d"
done
mount --bind "$fake/proc/sys" /proc/sys
mount --bind "$fake/sys/kernel/mm" /sys/kernel/mm
mount --bind "$fake/sys/devices/system/node" /sys/devices/system/node

cd "$fake/work"
unset INVOCATION_ID NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID
export HOME=$fake/home PATH=$DOC_PATH
exec bash -e "$block"
