#!/bin/bash
# Builds (once) and unpacks a Debian chroot (12/bookworm unless
# MKCHROOT_SUITE says otherwise) for package install tests and the VM
# harness: `mmdebstrap --variant=minbase` with systemd-sysv, dracut, udev,
# kmod and the runtime libraries our packages depend on.
#
# The chroot is cached as a tarball $MKCHROOT_CACHE/<kind>-<key>.tar.zst
# where <kind> is the suite (plus -x<hash> of MKCHROOT_EXTRA when set) and
# <key> hashes this script, the package list and the mirror: change the
# recipe and the next call rebuilds it; older tarballs of that kind are
# removed. The cache is the machine's, outside the clone (as ccache's), so
# a fresh clone (CI's) does not bootstrap the same three chroots again
# (measured: docs/results/2026-12-04-debug-both-bases.md); a tarball older than
# MKCHROOT_MAX_AGE_DAYS is rebuilt, so the archive's updates still come in.
#
#   mkchroot.sh tarball       ensure the cached tarball, print its path
#   mkchroot.sh unpack DIR    ensure it, unpack into the empty/new DIR
#   mkchroot.sh mount DIR     mount /proc, /sys, /dev, /dev/pts, /run into DIR
#   mkchroot.sh umount DIR    undo `mount` (lazy, deepest first; idempotent)
#
# Reads: OUT (default ./out), MKCHROOT_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/mmbatch/chroot), MKCHROOT_MAX_AGE_DAYS (default 7;
# 0: always rebuild),
# MKCHROOT_SUITE (default bookworm; e.g. trixie for Debian 13 with systemd
# 257), MKCHROOT_MIRROR (default: the URI serving that suite in the
# machine's apt sources; for a suite they do not list, the one serving
# bookworm, the same archive), MKCHROOT_EXTRA (extra packages,
# comma-separated; part of the key).
# Needs root (mmdebstrap, chroot, mount).
set -eu

usage() {
	echo "usage: mkchroot.sh tarball | unpack DIR | mount DIR | umount DIR" >&2
	exit 2
}

SUITE=${MKCHROOT_SUITE:-bookworm}
case "$SUITE" in ''|*[!a-z0-9-]*) echo "ERROR: mkchroot: bad MKCHROOT_SUITE '$SUITE'" >&2; exit 2 ;; esac
# libyaml-0-2, libjansson4, libsystemd0: mmbatchd's and mmbench's runtime
# libraries, so their .deb installs offline; procps, e2fsprogs, linux-base
# for the VM harness (tools/vmtest) that boots this chroot.
PACKAGES=systemd-sysv,udev,dracut,kmod,linux-base,procps,e2fsprogs,libyaml-0-2,libjansson4,libsystemd0
OUT=${OUT:-$PWD/out}
MKCHROOT_CACHE=${MKCHROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mmbatch/chroot}
MKCHROOT_MAX_AGE_DAYS=${MKCHROOT_MAX_AGE_DAYS:-7}
[[ "$MKCHROOT_MAX_AGE_DAYS" =~ ^[0-9]+$ ]] ||
	{ echo "ERROR: mkchroot: MKCHROOT_MAX_AGE_DAYS='$MKCHROOT_MAX_AGE_DAYS': expected whole days (0: always rebuild)" >&2; exit 2; }
MKCHROOT_EXTRA=${MKCHROOT_EXTRA:-}

# find_mirror SUITE: the first deb URI serving the plain SUITE (not
# -security/-updates), from deb822 .sources files or one-line .list files.
find_mirror() {
	local f suite=$1
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v suite="$suite" '
			function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") && uri != "") { print uri; found = 1; exit } types = suites = uri = "" }
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { sub(/^Types:[ \t]*/, ""); types = $0 }
			/^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
			/^URIs:/ { uri = $2 }
			END { if (!found) flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk -v suite="$suite" '
			$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } if ($(i + 1) == suite) { print $i; exit } }' "$f"
	done
}

mirror() {
	if [ -n "${MKCHROOT_MIRROR:-}" ]; then
		echo "$MKCHROOT_MIRROR"
		return
	fi
	local m
	m=$(find_mirror "$SUITE" | head -n1)
	if [ -z "$m" ] && [ "$SUITE" != bookworm ]; then
		m=$(find_mirror bookworm | head -n1)
		[ -z "$m" ] || echo "mkchroot: no '$SUITE' in the apt sources; using the archive that serves bookworm ($m)" >&2
	fi
	if [ -z "$m" ]; then
		echo "ERROR: mkchroot: no '$SUITE' deb URI in /etc/apt/sources.list(.d); set MKCHROOT_MIRROR" >&2
		exit 1
	fi
	echo "$m"
}

ensure_tarball() {
	local mirror key tarball tmp pkgs kind
	mirror=$(mirror)
	pkgs=$PACKAGES${MKCHROOT_EXTRA:+,$MKCHROOT_EXTRA}
	key=$({ cat "$0"; echo "$pkgs $mirror"; } | sha256sum | cut -c1-12)
	# One cached tarball per suite and set of extra packages: a chroot with
	# extras does not evict the plain one (both are used in one make check).
	kind=$SUITE
	[ -z "$MKCHROOT_EXTRA" ] || kind=$SUITE-x$(echo "$MKCHROOT_EXTRA" | sha256sum | cut -c1-8)
	tarball=$MKCHROOT_CACHE/$kind-$key.tar.zst
	if [ -s "$tarball" ]; then
		local age=$((($(date +%s) - $(stat -c %Y "$tarball")) / 86400))
		if [ "$age" -lt "$MKCHROOT_MAX_AGE_DAYS" ]; then
			echo "$tarball"
			return
		fi
		echo "mkchroot: $tarball is $age days old (MKCHROOT_MAX_AGE_DAYS=$MKCHROOT_MAX_AGE_DAYS): rebuilding it" >&2
	fi
	mkdir -p "$MKCHROOT_CACHE"
	tmp=$(mktemp -d "$MKCHROOT_CACHE/build.XXXXXX")
	# shellcheck disable=SC2064 # expand now: the trap must remove this dir
	trap "umount_chroot '$tmp/tree'; rm -rf --one-file-system '$tmp'" EXIT
	echo "mkchroot: mmdebstrap $SUITE (minbase + $pkgs) from $mirror" >&2
	local t0=$SECONDS
	# mmdebstrap rather than debootstrap: one apt and one dpkg run where
	# debootstrap's shell starts thousands of processes (bookworm with these
	# packages alone: 38 s and 37 CPU s against 66 s and 75 CPU s). Its
	# merged-usr hook merges /usr as debootstrap does (usr-is-merged, not
	# usrmerge and perl). The root is then made what debootstrap leaves:
	# every package manual (mmdebstrap marks the dependencies automatic),
	# dpkg's available file, and a machine-id (mmdebstrap empties it, and
	# systemd would then take every guest's boot for a first boot).
	if ! mmdebstrap --mode=root --variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
		--include="$pkgs" "$SUITE" "$tmp/tree" "$mirror" >"$tmp/log" 2>&1; then
		tail -n 20 "$tmp/log" >&2
		echo "ERROR: mkchroot: mmdebstrap failed (log above)" >&2
		exit 1
	fi
	rm -f "$tmp/tree/var/lib/apt/extended_states"
	mkdir -p "$tmp/tree/var/lib/dpkg"
	touch "$tmp/tree/var/lib/dpkg/available"
	od -An -tx1 -N16 /dev/urandom | tr -d ' \n' >"$tmp/tree/etc/machine-id"
	echo >>"$tmp/tree/etc/machine-id"
	# Slim and neutral: no package cache, no host identity.
	rm -rf "$tmp/tree/var/cache/apt/archives/"*.deb "$tmp/tree/var/lib/apt/lists/"*_Packages
	echo mmbatch-test > "$tmp/tree/etc/hostname"
	# Every kernel our tests install into a root runs dracut through the
	# distro's hook; uncompressed, its generic ~39 MB image costs no
	# `gzip -9` (5 to 8 CPU seconds a run here, some twenty runs in a make
	# check), and a TCG guest booting it unpacks a plain cpio instead of
	# inflating it. lsinitrd and the kernel read both alike. The modules
	# left out are for what no test root or guest has (encrypted, LVM, MD,
	# NVDIMM or virtiofs roots, a separate /usr, hibernation, extra kernel
	# drivers, the pivot back at shutdown): fewer files to find and copy.
	mkdir -p "$tmp/tree/etc/dracut.conf.d"
	cat >"$tmp/tree/etc/dracut.conf.d/90-mmbatch-test-root.conf" <<-'CONF'
	# mmbatch test root (tools/pkg/mkchroot.sh): initramfs images uncompressed,
	# without the modules for roots and hardware the test roots never have.
	compress="cat"
	omit_dracutmodules+=" crypt dm nvdimm lunmask resume terminfo virtiofs usrmount kernel-modules-extra shutdown "
	CONF
	tar --zstd -C "$tmp/tree" --numeric-owner -cf "$tmp/chroot.tar.zst" .
	find "$MKCHROOT_CACHE" -maxdepth 1 -name "$kind-*.tar.zst" ! -name "$kind-x*" -delete
	mv "$tmp/chroot.tar.zst" "$tarball"
	echo "mkchroot: cached $tarball ($(du -m "$tarball" | cut -f1) MiB) in $((SECONDS - t0)) s" >&2
	echo "$tarball"
}

# Each mount is recorded so umount only undoes what we did.
mount_chroot() {
	local dir=$1 m
	for m in proc sys dev dev/pts run; do
		mountpoint -q "$dir/$m" && continue
		mkdir -p "$dir/$m"
		case $m in
			proc) mount -t proc proc "$dir/proc" ;;
			sys) mount -t sysfs sys "$dir/sys" ;;
			dev) mount --bind /dev "$dir/dev" ;;
			dev/pts) mount -t devpts -o newinstance,ptmxmode=0666 devpts "$dir/dev/pts" ;;
			run) mount -t tmpfs -o mode=0755 tmpfs "$dir/run" ;;
		esac
	done
}

umount_chroot() {
	local dir=$1 m
	for m in run dev/pts dev sys proc; do
		if mountpoint -q "$dir/$m"; then
			umount -l "$dir/$m"
		fi
	done
}

[ $# -ge 1 ] || usage
case $1 in
	tarball)
		[ $# -eq 1 ] || usage
		ensure_tarball
		;;
	unpack)
		[ $# -eq 2 ] || usage
		tarball=$(ensure_tarball)
		mkdir -p "$2"
		if [ -n "$(ls -A "$2")" ]; then
			echo "ERROR: mkchroot: unpack target '$2' is not empty" >&2
			exit 1
		fi
		tar --zstd -C "$2" --numeric-owner -xpf "$tarball"
		;;
	mount)
		[ $# -eq 2 ] && [ -d "$2/etc" ] || usage
		mount_chroot "$2"
		;;
	umount)
		[ $# -eq 2 ] || usage
		umount_chroot "$2"
		;;
	*) usage ;;
esac
