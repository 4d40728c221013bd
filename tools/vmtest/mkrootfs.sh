#!/bin/bash
# Builds a full-path VM disk: a fresh Debian 12 chroot (tools/pkg/mkchroot.sh,
# shared with the package install tests) into
# which the given .deb packages are installed with `dpkg -i`, as a fleet host
# would (a kernel package's postinst runs /etc/kernel/postinst.d/dracut and
# makes /boot/initrd.img-<kver>; the mmbatchd package enables its unit), plus
# vmtest-run.service (runs the host's command) and vmtest-baseline.service
# (records knob values before mmbatchd starts), then `mkfs.ext4 -d` into an image. Cached under
# $OUT/vm/rootfs/<hash>/ (hash of the base recipe, every .deb, and these
# scripts); prints that directory, which holds rootfs.img, vmlinuz,
# initrd.img (the dracut one from the package install), kernelrelease and
# packages.txt.
#   mkrootfs.sh [--size MIB] DEB...    (exactly one of them a kernel image;
#                                       installed in this order)
# Reads: OUT (default out/ of this repo), VM_SMOKE_TIMEOUT (smoke timeout_s
#        in the guest profile, default 300), VMTEST_ROOTFS_KEEP (images kept in
#        the cache, newest first, default 4), plus what tools/pkg/mkchroot.sh reads.
set -eu

usage() { echo "usage: mkrootfs.sh [--size MIB] DEB..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
size=2048
while [ $# -gt 0 ]; do
	case "$1" in
	--size) [ $# -ge 2 ] || usage; size=$2; shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "ERROR: mkrootfs: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
case "$size" in ''|*[!0-9]*) echo "ERROR: mkrootfs: --size wants MiB (got '$size')" >&2; exit 2 ;; esac
for deb in "$@"; do
	[ -f "$deb" ] || { echo "ERROR: mkrootfs: no such package '$deb'" >&2; exit 1; }
	dpkg-deb -f "$deb" Package >/dev/null 2>&1 || { echo "ERROR: mkrootfs: '$deb' is not a .deb" >&2; exit 1; }
done

mkchroot=$top/tools/pkg/mkchroot.sh
[ -x "$mkchroot" ] || { echo "ERROR: mkrootfs: needs $mkchroot (the shared chroot builder)" >&2; exit 1; }
export OUT=$out
base=$("$mkchroot" tarball | tail -n 1)
key=$( { echo "$base $size ${VM_SMOKE_TIMEOUT:-300}"; sha256sum "$0" "$here/vmtest-run" "$here"/vmtest-*.service | cut -d' ' -f1;
	for deb in "$@"; do sha256sum < "$deb"; done; } | sha256sum | cut -c1-16)
dest=$out/vm/rootfs/$key
if [ -f "$dest/done" ]; then
	echo "$dest"
	exit 0
fi

t0=$SECONDS
mkdir -p "$out/vm/rootfs"
work=$(mktemp -d "$out/vm/rootfs/build.XXXXXX")
# Never rm -rf a tree with /dev or /proc still mounted in it.
remove_work() {
	[ -d "$work/root" ] && "$mkchroot" umount "$work/root"
	if awk -v w="$work/" 'index($2, w) == 1 {found = 1} END {exit !found}' /proc/mounts; then
		echo "ERROR: mkrootfs: mounts left under $work, not removing it" >&2
		return
	fi
	rm -rf "$work"
}
trap remove_work EXIT
root=$work/root
"$mkchroot" unpack "$root"
mkdir -p "$root/vmtest-debs"

# missing_deps DEB...: (Pre-)Depends of the given packages that neither the
# chroot nor the given packages satisfy (any alternative counts, versions are
# not compared), one name a line: the first alternative, which a fleet host's
# apt would fetch.
missing_deps() {
	local have deb
	have=$( { chroot "$root" dpkg-query -W -f='${Package}\n${Provides}\n';
		for deb in "$@"; do dpkg-deb -f "$deb" Package; dpkg-deb -f "$deb" Provides; done; } |
		tr ',' '\n' | sed 's/(.*)//; s/ //g' | sort -u)
	for deb in "$@"; do dpkg-deb -f "$deb" Pre-Depends; dpkg-deb -f "$deb" Depends; done | tr ',' '\n' |
		awk -v have="$have" '
			BEGIN { n = split(have, h, "\n"); for (i = 1; i <= n; i++) ok[h[i]] = 1 }
			{
				gsub(/\([^)]*\)|:any| /, "")
				m = split($0, alt, "|"); sat = 0
				for (i = 1; i <= m; i++) if (alt[i] in ok) sat = 1
				if (!sat && alt[1] != "") print alt[1]
			}' | sort -u
}
deps=$(missing_deps "$@")
dep_debs=()
if [ -n "$deps" ]; then
	echo "mkrootfs: dependencies not in the base chroot, fetched from the registry: $(echo $deps)" >&2
	mkdir -p "$out/cache/debs"
	for dep in $deps; do
		if ! ls "$out/cache/debs/${dep}"_*.deb >/dev/null 2>&1; then
			(cd "$out/cache/debs" && apt-get download -q -o APT::Sandbox::User=root "$dep" >/dev/null) ||
				{ echo "ERROR: mkrootfs: cannot fetch dependency '$dep'" >&2; exit 1; }
		fi
		dep_debs+=("$(ls "$out/cache/debs/${dep}"_*.deb | tail -n 1)")
	done
fi
# One dpkg -i per package: the dependencies first, then the given ones in
# their order; the index prefix keeps that order in the glob.
n=10
for deb in ${dep_debs[@]+"${dep_debs[@]}"} "$@"; do cp "$deb" "$root/vmtest-debs/$n-$(basename "$deb")"; n=$((n + 1)); done
echo "mkrootfs: dpkg -i, in this order: $(cd "$root/vmtest-debs" && echo *.deb)" >&2
# Not a running system: maintainer scripts may enable units, not start them.
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
"$mkchroot" mount "$root"
if ! PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C DEBIAN_FRONTEND=noninteractive \
	chroot "$root" sh -c 'for deb in /vmtest-debs/*.deb; do dpkg -i "$deb" || exit 1; done' > "$work/dpkg.log" 2>&1; then
	tail -n 30 "$work/dpkg.log" >&2
	echo "ERROR: mkrootfs: dpkg -i failed (log above)" >&2
	exit 1
fi
rm -rf "$root/vmtest-debs" "$root/usr/sbin/policy-rc.d"

# Exactly one kernel, and its postinst must have made the initramfs.
kernels=$(cd "$root/boot" && ls vmlinuz-* 2>/dev/null || true)
[ "$(echo "$kernels" | wc -w)" = 1 ] || { echo "ERROR: mkrootfs: want exactly one kernel package among the .debs, /boot has: ${kernels:-nothing}" >&2; exit 1; }
kver=${kernels#vmlinuz-}
[ -s "$root/boot/initrd.img-$kver" ] || {
	tail -n 30 "$work/dpkg.log" >&2
	echo "ERROR: mkrootfs: installing the kernel package did not make /boot/initrd.img-$kver (no dracut run?)" >&2; exit 1; }

# The operator's profile as the package left it, plus one local key as an
# operator would add it: the smoke subset's 60 s budget is sized for real
# hardware, and an emulated (TCG) guest on a busy host runs it several times
# slower. Everything else stays the shipped default.
profile=$root/etc/mmbatch/mmbatchd.yaml
[ -f "$profile" ] && printf '\n# vmtest: TCG guests are slow\nsmoke:\n  timeout_s: %s\n' \
	"${VM_SMOKE_TIMEOUT:-300}" >> "$profile"

install -m 0755 "$here/vmtest-run" "$root/usr/local/sbin/vmtest-run"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
for unit in vmtest-run.service vmtest-baseline.service; do
	install -m 0644 "$here/$unit" "$root/etc/systemd/system/$unit"
	ln -sf "/etc/systemd/system/$unit" "$root/etc/systemd/system/multi-user.target.wants/$unit"
done
# A login prompt on ttyS0 would interleave with the command's output.
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
echo vmtest > "$root/etc/hostname"
printf '/dev/vda / ext4 rw 0 1\n' > "$root/etc/fstab"

cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$work/initrd.img"
echo "$kver" > "$work/kernelrelease"
chroot "$root" dpkg-query -W -f='${Package} ${Version} ${Status}\n' > "$work/packages.txt"
"$mkchroot" umount "$root"
mkfs.ext4 -q -L vmroot -d "$root" "$work/rootfs.img" "${size}M"
remove_root=$root
awk -v w="$remove_root/" 'index($2, w) == 1 {found = 1} END {exit found}' /proc/mounts || { echo "ERROR: mkrootfs: mounts left under $remove_root" >&2; exit 1; }
rm -rf "$remove_root"
rm -f "$work/dpkg.log"
touch "$work/done"
rm -rf "$dest"
mv "$work" "$dest"
# Each image takes up to --size on disk: keep the newest few.
ls -dt "$out"/vm/rootfs/*/done 2>/dev/null | tail -n +$((${VMTEST_ROOTFS_KEEP:-4} + 1)) |
	while read -r stale; do rm -rf "$(dirname "$stale")"; done
echo "mkrootfs: built $dest (kernel $kver, initrd $(du -m "$dest/initrd.img" | cut -f1) MiB, $((SECONDS - t0)) s)" >&2
echo "$dest"
