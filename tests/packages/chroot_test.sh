#!/bin/bash
# shellcheck disable=SC2154 # rc_out is set by capture (printf -v)
# Installs kernel image DEBs and the mmbatchd DEB into a fresh Debian chroot
# (tools/pkg/mkchroot.sh, /proc /sys /dev mounted): Debian 12 (bookworm), or
# with --suite the one named, e.g. trixie (Debian 13: dracut 106, systemd
# 257, merged /usr), the same packages and checks. It checks:
#   - a failing /etc/kernel/postinst.d hook fails `dpkg -i` (not hidden);
#   - `dpkg -i` of each image runs dracut: /boot/initrd.img-<kver> exists;
#     all images are then installed side by side (a +debug kernel beside
#     the normal one of its base);
#   - the mmbatchd units are enabled, and its kernel hook marked each new
#     kernel pending (/var/lib/mmbatch/pending/<kver>); that state tree is
#     0700 root:root;
#   - `dpkg --purge` removes everything: initrd, /lib/modules/<kver>, and the
#     file list of the chroot is what it was before the installs;
#   - no install or purge prints a dpkg warning.
#   chroot_test.sh [--suite SUITE] BUILD...
# BUILD: a packaged build's identity file (tools/kbuild/identity.sh): its
# IMAGE_DEB is installed, and the first one's MMBATCHD_DEB.
# Reads: OUT. Needs root.
set -eu

usage() { echo "usage: chroot_test.sh [--suite SUITE] out/build/<name>/mmbatch-build.env..." >&2; exit 2; }
suite=bookworm
if [ "${1:-}" = --suite ]; then
	[ $# -ge 2 ] || usage
	suite=$2
	shift 2
fi
[ $# -ge 1 ] || usage
# The suite names the summary line and the scratch dir.
TEST_NAME=chroot_test-$suite
export MKCHROOT_SUITE=$suite
. "$(dirname "$0")/lib.sh"
mkchroot=$TOP/tools/pkg/mkchroot.sh

mmbatchd_deb=$(pk_get "$1" MMBATCHD_DEB)
images=()
for b in "$@"; do images+=("$(pk_get "$b" IMAGE_DEB)"); done
for f in "$mmbatchd_deb" "${images[@]}"; do [ -f "$f" ] || { echo "ERROR: chroot_test: no such package $f" >&2; exit 2; }; done
set -- "${images[@]}"
scratch
root=$T/root
# The chroot's mounts go first; then nothing below them can be removed.
unmount_root() {
	"$mkchroot" umount "$root"
	rm -rf --one-file-system "$T"
	T=
}
# shellcheck disable=SC2034 # run by tests/lib/assert.sh's EXIT trap
cleanup_hook=unmount_root

t0=$SECONDS
tarball=$("$mkchroot" tarball)
echo "$TEST_NAME: chroot tarball $(basename "$tarball") ready in $((SECONDS - t0)) s (built when its recipe changed, else cached)"
t0=$SECONDS
"$mkchroot" unpack "$root"
"$mkchroot" mount "$root"
echo "$TEST_NAME: Debian $(cat "$root/etc/debian_version") ($suite) chroot unpacked and mounted in $((SECONDS - t0)) s"
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
capture rc in_root dpkg -i "${debs[0]}"
expect_status "dpkg -i with a failing hook" nonzero "$rc"
expect_match "dpkg -i output" "test hook: refusing $(re_quote "${kvers[0]}")" "$rc_out"
expect_match "dpkg -i output" "run-parts: .*00-mmbatch-test-fail exited with return code 3" "$rc_out"
expect_match "package state after the failed hook" 'half-configured' \
	"$(in_root dpkg-query -W -f='${Status}\n' "linux-image-${kvers[0]}")"
rm -f "$root/etc/kernel/postinst.d/00-mmbatch-test-fail"
in_root dpkg --purge "linux-image-${kvers[0]}" >/dev/null 2>&1 || true
expect_absent "purge after the failed install" "$root/lib/modules/${kvers[0]}"

echo "- install mmbatchd, then the kernel images (dracut runs from the postinst.d hook)"
t1=$SECONDS
capture rc in_root dpkg -i "$pkg_dir/$(basename "$mmbatchd_deb")"
expect_ok "dpkg -i mmbatchd" "$rc" "$rc_out"
expect_no_match "dpkg -i mmbatchd: dpkg warnings" '^dpkg: warning' "$rc_out"
expect_eq "systemctl is-enabled mmbatchd.service" enabled "$(in_root systemctl is-enabled mmbatchd.service 2>&1 || true)"
for unit in mmbatch-smoke.service mmbatch-canary.service; do
	expect_eq "systemctl is-enabled $unit" enabled "$(in_root systemctl is-enabled "$unit" 2>&1 || true)"
done
# The canary's verdict is the health check of systemd-boot's boot counting.
expect_exists "mmbatch-canary.service required by boot-complete.target (its [Install] RequiredBy=)" \
	"$root/etc/systemd/system/boot-complete.target.requires/mmbatch-canary.service"
for deb in "${debs[@]}"; do
	t2=$SECONDS
	capture rc in_root dpkg -i "$deb"
	expect_ok "dpkg -i $(basename "$deb") ($((SECONDS - t2)) s)" "$rc" "$rc_out"
	expect_no_match "dpkg -i $(basename "$deb"): dpkg warnings" '^dpkg: warning' "$rc_out"
done
for kver in "${kvers[@]}"; do
	expect_file "dracut initramfs" "$root/boot/initrd.img-$kver"
	expect_file "kernel image" "$root/boot/vmlinuz-$kver"
	expect_eq "dpkg status of linux-image-$kver" "install ok installed" \
		"$(in_root dpkg-query -W -f='${Status}' "linux-image-$kver" 2>&1 || true)"
	if [ -e "$root/etc/kernel/postinst.d/zz-mmbatch-smoke" ]; then
		expect_exists "mmbatch smoke mark (mmbatchd's postinst.d hook)" "$root/var/lib/mmbatch/pending/$kver"
	fi
done
# The state tree is root's alone (issue 41), made so by mmbatchd's postinst
# and kept so by the kernel hooks.
for d in /var/lib/mmbatch /var/lib/mmbatch/pending; do
	expect_eq "mode and owner of $d" "700 root:root" "$(stat -c '%a %U:%G' "$root$d" 2>&1)"
done
# All of them at once, side by side (e.g. a debug kernel, +debug, beside
# the normal one of its base).
expect_eq "kernel images installed side by side" "$(printf 'linux-image-%s install ok installed\n' "${kvers[@]}" | LC_ALL=C sort)" \
	"$(in_root dpkg-query -W -f='${Package} ${Status}\n' 'linux-image-*' 2>&1 | grep 'install ok installed' | LC_ALL=C sort)"
echo "$TEST_NAME: installs took $((SECONDS - t1)) s"

echo "- purge"
pkgs=(mmbatchd)
for kver in "${kvers[@]}"; do pkgs+=("linux-image-$kver"); done
capture rc in_root dpkg --purge "${pkgs[@]}"
expect_ok "dpkg --purge ${pkgs[*]}" "$rc" "$rc_out"
# e.g. a directory under a merged-/usr alias that no package of this suite
# owns: dpkg tries to remove it (the real one behind it).
expect_no_match "dpkg --purge: dpkg warnings" '^dpkg: warning' "$rc_out"
for kver in "${kvers[@]}"; do
	expect_absent "purge" "$root/boot/initrd.img-$kver"
	expect_absent "purge" "$root/boot/vmlinuz-$kver"
	expect_absent "purge" "$root/lib/modules/$kver"
done
expect_absent "purge" "$root/var/lib/mmbatch"
after=$(snapshot)
expect_eq "files left or lost after purge (diff of the chroot's file list)" "" \
	"$(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -n 20 | tr '\n' ' ')"
