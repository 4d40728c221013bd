#!/bin/bash
# Makes a root tree where our packages are installed bootable by
# `vmtest boot --rootfs` (the last step of mkrootfs.sh before the image, and
# of the RPM-host test's image, tests/repo/dnf_test.sh): vmtest-run.service
# (runs the host's command) and vmtest-baseline.service (records knob
# values before mmbatchd starts), no login prompt on the serial console,
# the hostname, /etc/fstab, and the smoke timeout for TCG in the profile.
#   rootfs-finish.sh ROOT ROOTDEV    ROOTDEV: the root's device in fstab
#                                    (/dev/vda, or /dev/vda1 on a GRUB disk)
# Reads: VM_SMOKE_TIMEOUT (smoke timeout_s in the guest profile, default 300).
set -eu

usage() { echo "usage: rootfs-finish.sh ROOT ROOTDEV" >&2; exit 2; }
[ $# -eq 2 ] && [ -d "$1/etc" ] || usage
here=$(cd "$(dirname "$0")" && pwd)
root=$1 rootdev=$2
case "$rootdev" in /dev/[a-z]*) ;; *) echo "ERROR: rootfs-finish: ROOTDEV '$rootdev' is not a /dev path" >&2; exit 2 ;; esac

# The operator's profile as the package left it, plus one local key as an
# operator would add it: the smoke subset's 60 s budget is sized for real
# hardware, and an emulated (TCG) guest on a busy host runs it several times
# slower. Everything else stays the shipped default.
profile=$root/etc/mmbatch/mmbatchd.yaml
[ -f "$profile" ] && printf '\n# vmtest: TCG guests are slow\nsmoke:\n  timeout_s: %s\n' \
	"${VM_SMOKE_TIMEOUT:-300}" >> "$profile"

install -D -m 0755 "$here/vmtest-run" "$root/usr/local/sbin/vmtest-run"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
for unit in vmtest-run.service vmtest-baseline.service; do
	install -m 0644 "$here/$unit" "$root/etc/systemd/system/$unit"
	ln -sf "/etc/systemd/system/$unit" "$root/etc/systemd/system/multi-user.target.wants/$unit"
done
# A login prompt on ttyS0 would interleave with the command's output.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
echo vmtest > "$root/etc/hostname"
printf '%s / ext4 rw 0 1\n' "$rootdev" > "$root/etc/fstab"
