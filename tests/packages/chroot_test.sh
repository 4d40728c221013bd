#!/bin/bash
# Installs kernel image DEBs and the mmbatchd DEB into a fresh Debian 12
# chroot (tools/pkg/mkchroot.sh, /proc /sys /dev mounted) and checks:
#   - a failing /etc/kernel/postinst.d hook fails `dpkg -i` (not hidden);
#   - `dpkg -i` of each image runs dracut: /boot/initrd.img-<kver> exists;
#   - the mmbatchd units are enabled, and its kernel hook marked each new
#     kernel pending (/var/lib/mmbatch/pending/<kver>);
#   - `dpkg --purge` removes everything: initrd, /lib/modules/<kver>, and the
#     file list of the chroot is what it was before the installs.
#   chroot_test.sh MMBATCHD_DEB IMAGE_DEB...
# Reads: OUT. Needs root.
set -eu

usage() { echo "usage: chroot_test.sh MMBATCHD_DEB IMAGE_DEB..." >&2; exit 2; }
[ $# -ge 2 ] || usage
for f in "$@"; do [ -f "$f" ] || { echo "ERROR: chroot_test: no such package $f" >&2; exit 2; }; done
. "$(dirname "$0")/lib.sh"
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export OUT
mkchroot=$TOP/tools/pkg/mkchroot.sh

mmbatchd_deb=$1
shift
mkdir -p "$OUT/tmp"
work=$(mktemp -d "$OUT/tmp/chroot-test.XXXXXX")
root=$work/root
cleanup() {
	"$mkchroot" umount "$root"
	rm -rf --one-file-system "$work"
}
trap cleanup EXIT

t0=$SECONDS
"$mkchroot" unpack "$root"
"$mkchroot" mount "$root"
echo "$T_NAME: chroot unpacked and mounted in $((SECONDS - t0)) s"
# No service starts inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
# Where the packages sit inside the chroot (pruned from the snapshots below).
pkg_dir=/var/cache/mmbatch-test-debs
mkdir -p "$root$pkg_dir"
cp "$mmbatchd_deb" "$@" "$root$pkg_dir/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }
# The chroot's files, minus what dpkg and logs legitimately change.
snapshot() {
	in_root find / -xdev \( -path /var/lib/dpkg -o -path /var/log -o -path /var/cache -o -path /tmp \
		-o -path /var/tmp -o -path /var/lib/systemd/deb-systemd-helper-masked \) -prune -o -print | sort
}
before=$(snapshot)

kvers=() debs=()
for deb in "$@"; do
	kvers+=("$(dpkg-deb -f "$deb" Package | sed 's/^linux-image-//')")
	debs+=("$pkg_dir/$(basename "$deb")")
done

echo "- a failing postinst.d hook fails the install"
printf '#!/bin/sh\necho "test hook: refusing $1" >&2\nexit 3\n' >"$root/etc/kernel/postinst.d/00-mmbatch-test-fail"
chmod 0755 "$root/etc/kernel/postinst.d/00-mmbatch-test-fail"
rc=0
out=$(in_root dpkg -i "${debs[0]}" 2>&1) || rc=$?
t_eq "dpkg -i exit status with a failing hook is non-zero" 1 "$([ $rc -ne 0 ] && echo 1 || echo 0)"
t_match "dpkg -i output" "$out" "test hook: refusing ${kvers[0]}"
t_match "dpkg -i output" "$out" "run-parts: .*00-mmbatch-test-fail exited with return code 3"
t_match "package state after the failed hook" "$(in_root dpkg-query -W -f='${Status}\n' "linux-image-${kvers[0]}")" \
	'half-configured'
rm -f "$root/etc/kernel/postinst.d/00-mmbatch-test-fail"
in_root dpkg --purge "linux-image-${kvers[0]}" >/dev/null 2>&1 || true
t_nofile "purge after the failed install" "$root/lib/modules/${kvers[0]}"

echo "- install mmbatchd, then the kernel images (dracut runs from the postinst.d hook)"
t1=$SECONDS
if out=$(in_root dpkg -i "$pkg_dir/$(basename "$mmbatchd_deb")" 2>&1); then
	t_pass "dpkg -i mmbatchd"
else
	echo "$out"
	t_fail "dpkg -i mmbatchd failed"
fi
t_eq "systemctl is-enabled mmbatchd.service" enabled "$(in_root systemctl is-enabled mmbatchd.service 2>&1 || true)"
for unit in mmbatch-smoke.service mmbatch-canary.service; do
	t_eq "systemctl is-enabled $unit" enabled "$(in_root systemctl is-enabled "$unit" 2>&1 || true)"
done
for deb in "${debs[@]}"; do
	t2=$SECONDS
	if out=$(in_root dpkg -i "$deb" 2>&1); then
		t_pass "dpkg -i $(basename "$deb") ($((SECONDS - t2)) s)"
	else
		echo "$out" | tail -n 20
		t_fail "dpkg -i $(basename "$deb") failed"
	fi
done
for kver in "${kvers[@]}"; do
	t_file "dracut initramfs" "$root/boot/initrd.img-$kver"
	t_file "kernel image" "$root/boot/vmlinuz-$kver"
	t_eq "dpkg status of linux-image-$kver" "install ok installed" \
		"$(in_root dpkg-query -W -f='${Status}' "linux-image-$kver" 2>&1 || true)"
	if [ -e "$root/etc/kernel/postinst.d/zz-mmbatch-smoke" ]; then
		t_exists "mmbatch smoke mark (mmbatchd's postinst.d hook)" "$root/var/lib/mmbatch/pending/$kver"
	fi
done
echo "$T_NAME: installs took $((SECONDS - t1)) s"

echo "- purge"
pkgs=(mmbatchd)
for kver in "${kvers[@]}"; do pkgs+=("linux-image-$kver"); done
if out=$(in_root dpkg --purge "${pkgs[@]}" 2>&1); then
	t_pass "dpkg --purge ${pkgs[*]}"
else
	echo "$out" | tail -n 20
	t_fail "dpkg --purge failed"
fi
for kver in "${kvers[@]}"; do
	t_nofile "purge" "$root/boot/initrd.img-$kver"
	t_nofile "purge" "$root/boot/vmlinuz-$kver"
	t_nofile "purge" "$root/lib/modules/$kver"
done
t_nofile "purge" "$root/var/lib/mmbatch"
after=$(snapshot)
t_eq "files left or lost after purge (diff of the chroot's file list)" "" \
	"$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -n 20 | tr '\n' ' ')"
t_done
