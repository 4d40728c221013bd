#!/bin/bash
# Builds a full-path VM disk: a fresh Debian chroot (tools/pkg/mkchroot.sh,
# shared with the package install tests; 12/bookworm, or the suite
# MKCHROOT_SUITE names, e.g. trixie) into
# which the given .deb packages are installed with `dpkg -i`, as a fleet host
# would (a kernel package's postinst runs /etc/kernel/postinst.d/dracut and
# makes /boot/initrd.img-<kver>; the mmbatchd package enables its unit), plus
# vmtest-run.service (runs the host's command) and vmtest-baseline.service
# (records knob values before mmbatchd starts), then `mkfs.ext4 -d` into an
# image. Cached under $OUT/vm/rootfs/<hash>/ (hash of the base recipe, every
# .deb, and these scripts); the DIR that -o names becomes a symlink to that
# entry, which holds rootfs.img (disk.img with --grub), vmlinuz, initrd.img
# (the dracut one from the package install), kernelrelease and packages.txt.
# Nothing goes to stdout: the caller reads DIR/<file>.
#   mkrootfs.sh -o DIR [--size MIB] [--grub] [--apt PKG]... DEB...
#       DEBs are installed in this order; at least one is a kernel image, and
#       the first kernel given is the one exported as vmlinuz/initrd.img.
#   --apt PKG  also install Debian's package PKG (repeatable; e.g. stress-ng
#           for tools/peer/stress-ng.sh): its .deb is fetched on the host with
#           `apt-get download` into $OUT/cache/debs/ (once; the cached file is
#           used after that) and installed with `dpkg -i` after the DEBs, its
#           dependencies before them. The fetched .deb is hashed into the
#           cache key like a DEB, so an image with PKG is its own entry.
# Dependencies of the DEBs and PKGs that the base chroot lacks are fetched the
# same way, with theirs, until nothing is missing, and installed first, in one
# `dpkg -i` (which orders their configuration).
#   --grub  a bootable disk instead of a bare filesystem: grub-pc from the
#           Debian archive is installed before the DEBs (so its kernel hooks
#           run update-grub once grub.cfg exists), the filesystem goes into
#           partition 1 of disk.img (MBR, 1 MiB gap for GRUB's core image;
#           fstab names /dev/vda1), and /etc/default/grub.d/vmtest.cfg puts
#           the console on ttyS0 and vmtest.run=1 on every kernel command
#           line. GRUB itself is installed by the first boot (grub-install
#           /dev/vda; update-grub), as on a real host; see tests/canary.
# Reads: OUT (default out/ of this repo), VM_SMOKE_TIMEOUT (smoke timeout_s
#        in the guest profile, default 300), VMTEST_ROOTFS_KEEP (images kept in
#        the cache, newest first, default 6: make check boots four, and
#        check-vm-all or a second canary suite more), plus what tools/pkg/mkchroot.sh reads.
set -eu

usage() { echo "usage: mkrootfs.sh -o DIR [--size MIB] [--grub] [--apt PKG]... DEB..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
size=2048
grub=0
result=
apt_pkgs=()
while [ $# -gt 0 ]; do
	case "$1" in
	-o) [ $# -ge 2 ] || usage; result=$2; shift 2 ;;
	--size) [ $# -ge 2 ] || usage; size=$2; shift 2 ;;
	--grub) grub=1; shift ;;
	--apt) [ $# -ge 2 ] || usage; apt_pkgs+=("$2"); shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "ERROR: mkrootfs: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
[ -n "$result" ] || { echo "ERROR: mkrootfs: -o DIR is required (where the result appears)" >&2; exit 2; }
[ ! -e "$result" ] || [ -L "$result" ] || { echo "ERROR: mkrootfs: -o $result exists and is not a symlink (left alone)" >&2; exit 2; }
case "$size" in ''|*[!0-9]*) echo "ERROR: mkrootfs: --size wants MiB (got '$size')" >&2; exit 2 ;; esac
for deb in "$@"; do
	[ -f "$deb" ] || { echo "ERROR: mkrootfs: no such package '$deb'" >&2; exit 1; }
	dpkg-deb -f "$deb" Package >/dev/null 2>&1 || { echo "ERROR: mkrootfs: '$deb' is not a .deb" >&2; exit 1; }
done

# cached_deb PKG: the archive's .deb of PKG in $out/cache/debs (fetched with
# `apt-get download` the first time), its path printed.
cached_deb() {
	local pkg=$1 f
	case "$pkg" in ''|*[!a-z0-9.+-]*) echo "ERROR: mkrootfs: '$pkg' is not a Debian package name" >&2; return 1 ;; esac
	mkdir -p "$out/cache/debs"
	if ! ls "$out/cache/debs/${pkg}"_*.deb >/dev/null 2>&1; then
		(cd "$out/cache/debs" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null) ||
			{ echo "ERROR: mkrootfs: cannot fetch '$pkg' (apt-get download)" >&2; return 1; }
	fi
	f=$(ls "$out/cache/debs/${pkg}"_*.deb 2>/dev/null | tail -n 1)
	[ -n "$f" ] || { echo "ERROR: mkrootfs: apt-get download '$pkg' left no ${pkg}_*.deb" >&2; return 1; }
	echo "$f"
}
apt_debs=()
for pkg in ${apt_pkgs[@]+"${apt_pkgs[@]}"}; do
	f=$(cached_deb "$pkg") || exit 1
	apt_debs+=("$f")
done

mkchroot=$top/tools/pkg/mkchroot.sh
[ -x "$mkchroot" ] || { echo "ERROR: mkrootfs: needs $mkchroot (the shared chroot builder)" >&2; exit 1; }
export OUT=$out
base=$("$mkchroot" tarball)
# --apt adds its package names and .debs (nothing without it).
key=$( { echo "$base $size ${VM_SMOKE_TIMEOUT:-300} grub=$grub"; sha256sum "$0" "$here/rootfs-finish.sh" "$here/vmtest-run" "$here"/vmtest-*.service | cut -d' ' -f1;
	for deb in "$@"; do sha256sum < "$deb"; done
	[ ${#apt_debs[@]} -eq 0 ] || { echo "apt: ${apt_pkgs[*]}"; for deb in "${apt_debs[@]}"; do sha256sum < "$deb"; done; }; } |
	sha256sum | cut -c1-16)
dest=$out/vm/rootfs/$key
# publish: $result names the cache entry (touched: newest use first for the
# pruning below).
publish() {
	touch "$dest/done"
	mkdir -p "$(dirname "$result")"
	ln -sfn "$dest" "$result.tmp"
	mv -Tf "$result.tmp" "$result"
}
# One build of an entry at a time: make check's prebuild stage makes the
# roots ahead while the guests' lane may ask for the same one; the second
# waits and finds it made (a second build would replace the entry under the
# first one's boot).
mkdir -p "$out/vm/rootfs"
exec {entry_lock}>"$dest.lock"
flock "$entry_lock"
if [ -f "$dest/done" ]; then
	publish
	exit 0
fi

t0=$SECONDS
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
# The dependency closure: fetch what is missing, then what those need, until
# nothing is (a package that cannot be fetched fails the build).
dep_debs=()
fetched=' '
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	deps=$(missing_deps "$@" ${apt_debs[@]+"${apt_debs[@]}"} ${dep_debs[@]+"${dep_debs[@]}"})
	[ -n "$deps" ] || break
	echo "mkrootfs: dependencies not in the base chroot, fetched from the registry: $(echo $deps)" >&2
	for dep in $deps; do
		case "$fetched" in *" $dep "*)
			echo "ERROR: mkrootfs: dependency '$dep' is still missing after fetching it (a virtual package? versions are not compared)" >&2
			exit 1 ;;
		esac
		fetched+="$dep "
		f=$(cached_deb "$dep") || { echo "ERROR: mkrootfs: cannot fetch dependency '$dep'" >&2; exit 1; }
		dep_debs+=("$f")
	done
done
[ -z "$deps" ] || { echo "ERROR: mkrootfs: dependencies still missing after 20 rounds: $(echo $deps)" >&2; exit 1; }
# The dependencies first, in one dpkg -i (deps/); then one dpkg -i per
# package: the given ones in their order, then the --apt ones; the index
# prefix keeps that order in the glob.
n=10
if [ ${#dep_debs[@]} -gt 0 ]; then
	mkdir -p "$root/vmtest-debs/deps"
	for deb in "${dep_debs[@]}"; do cp "$deb" "$root/vmtest-debs/deps/"; done
	echo "mkrootfs: dpkg -i (the dependencies, together): $(cd "$root/vmtest-debs/deps" && echo *.deb)" >&2
fi
for deb in "$@" ${apt_debs[@]+"${apt_debs[@]}"}; do cp "$deb" "$root/vmtest-debs/$n-$(basename "$deb")"; n=$((n + 1)); done
echo "mkrootfs: dpkg -i, in this order: $(cd "$root/vmtest-debs" && echo *.deb)" >&2
# Not a running system: maintainer scripts may enable units, not start them.
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
"$mkchroot" mount "$root"
if [ $grub = 1 ]; then
	# The package only: no boot sector is written from here (no install
	# device is chosen), and no grub.cfg exists yet, so neither grub-pc nor
	# the kernel hooks run update-grub inside the chroot.
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	echo "mkrootfs: apt-get install grub-pc (from the archive)" >&2
	if ! chroot "$root" sh -c 'printf "%s\n" "grub-pc grub-pc/install_devices multiselect" \
			"grub-pc grub-pc/install_devices_empty boolean true" | debconf-set-selections &&
		apt-get -q update && apt-get -q -y --no-install-recommends install grub-pc' \
		> "$work/apt.log" 2>&1 </dev/null; then
		tail -n 30 "$work/apt.log" >&2
		echo "ERROR: mkrootfs: apt-get install grub-pc failed (log above)" >&2
		exit 1
	fi
	chroot "$root" apt-get -q clean >/dev/null
	rm -rf "$root/var/lib/apt/lists/"*_Packages
fi
# dpkg unpacks the dependencies in file-name order and does not reorder for
# Pre-Depends (python3-minimal sorts before the python3.11-minimal it
# pre-depends on): a second pass installs what the first refused.
if ! PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C DEBIAN_FRONTEND=noninteractive \
	chroot "$root" sh -c 'if [ -d /vmtest-debs/deps ]; then dpkg -i /vmtest-debs/deps/*.deb || dpkg -i /vmtest-debs/deps/*.deb || exit 1; fi
		for deb in /vmtest-debs/*.deb; do dpkg -i "$deb" || exit 1; done' > "$work/dpkg.log" 2>&1; then
	tail -n 30 "$work/dpkg.log" >&2
	echo "ERROR: mkrootfs: dpkg -i failed (log above)" >&2
	exit 1
fi
rm -rf "$root/vmtest-debs" "$root/usr/sbin/policy-rc.d"

# Every kernel's postinst must have made its initramfs; the first kernel
# package given is the exported one.
kver=
for deb in "$@"; do
	k=$(dpkg-deb -c "$deb" | sed -n 's|.* \./boot/vmlinuz-\(.*\)$|\1|p' | head -n 1)
	[ -n "$k" ] || continue
	[ -n "$kver" ] || kver=$k
	[ -s "$root/boot/initrd.img-$k" ] || {
		tail -n 30 "$work/dpkg.log" >&2
		echo "ERROR: mkrootfs: installing $(basename "$deb") did not make /boot/initrd.img-$k (no dracut run?)" >&2; exit 1; }
done
[ -n "$kver" ] || { echo "ERROR: mkrootfs: no kernel image package (./boot/vmlinuz-*) among the .debs" >&2; exit 1; }

rootdev=/dev/vda
[ $grub = 0 ] || rootdev=/dev/vda1
"$here/rootfs-finish.sh" "$root" "$rootdev"
if [ $grub = 1 ]; then
	mkdir -p "$root/etc/default/grub.d"
	cat > "$root/etc/default/grub.d/vmtest.cfg" <<'GRUBCFG'
# vmtest: GRUB and the kernels talk on the serial console; every boot runs the
# host's command (vmtest-run.service). No menu delay, no other OS probed.
# RCU's stall timeout as tools/vmtest/vmtest sets it for TCG (60 s).
GRUB_TIMEOUT=0
GRUB_TERMINAL=serial
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
GRUB_CMDLINE_LINUX_DEFAULT="console=ttyS0 panic=10 systemd.show_status=0 vmtest.run=1 rcupdate.rcu_cpu_stall_timeout=60"
GRUB_DISABLE_OS_PROBER=true
GRUBCFG
fi

cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$work/initrd.img"
echo "$kver" > "$work/kernelrelease"
chroot "$root" dpkg-query -W -f='${Package} ${Version} ${Status}\n' > "$work/packages.txt"
"$mkchroot" umount "$root"
mkfs.ext4 -q -L vmroot -d "$root" "$work/rootfs.img" "${size}M"
if [ $grub = 1 ]; then
	# MBR with one bootable Linux partition from 1 MiB; the gap before it
	# holds GRUB's core image once grub-install ran in the guest.
	truncate -s $((size + 1))M "$work/disk.img"
	printf 'label: dos\nstart=2048, type=83, bootable\n' | sfdisk -q "$work/disk.img"
	dd if="$work/rootfs.img" of="$work/disk.img" bs=1M seek=1 conv=notrunc,sparse status=none
	rm -f "$work/rootfs.img"
fi
remove_root=$root
awk -v w="$remove_root/" 'index($2, w) == 1 {found = 1} END {exit found}' /proc/mounts || { echo "ERROR: mkrootfs: mounts left under $remove_root" >&2; exit 1; }
rm -rf "$remove_root"
rm -f "$work/dpkg.log" "$work/apt.log"
touch "$work/done"
rm -rf "$dest"
mv "$work" "$dest"
# Each image takes up to --size on disk: keep the newest few.
# An entry being built or published (its lock held) stays.
{ ls -dt "$out"/vm/rootfs/*/done 2>/dev/null || true; } | tail -n +$((${VMTEST_ROOTFS_KEEP:-6} + 1)) |
	while read -r stale; do
		stale=$(dirname "$stale")
		(flock -n 9 && rm -rf "$stale") 9>"$stale.lock" || true
	done
echo "mkrootfs: built $dest (kernel $kver, initrd $(du -m "$dest/initrd.img" | cut -f1) MiB, $((SECONDS - t0)) s)" >&2
publish
