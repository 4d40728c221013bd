#!/bin/bash
# Fetches Debian's stock kernel for a base (6.1 or 6.12) from the registry with
# `apt-get download` and unpacks it with `dpkg-deb -x`, for the runs that ask
# for it by name (check-vm with VM_KERNEL=stock, bench-vm's "stock" variant);
# nothing else boots it. The newest linux-image-<ver>-amd64-unsigned of that
# base is chosen once and then pinned: the unpacked tree is cached under
# $OUT/cache/stock/<base>/ and reused until removed.
# Result: the build identity $OUT/cache/stock/<base>/mmbatch-build.env
# (tools/kbuild/identity.sh; bid_get reads it like any of our builds):
#   KERNELRELEASE KVERSION BASE FLAVOR=stock VARIANT=debian PACKAGE
#   IMAGE (the vmlinuz) IMAGE_HASH IMAGE_DEB (the .deb, for the full path)
#   PACKAGED_IMAGE_HASH (= IMAGE_HASH: the .deb holds that vmlinuz)
# Nothing goes to stdout.
# Reads: OUT (default: out/ of this repo), VMTEST_STOCK_PKG (a package name to
#        use instead of the newest one).
set -eu

usage() { echo "usage: stock-kernel.sh 6.1|6.12   (result: \$OUT/cache/stock/<base>/mmbatch-build.env)" >&2; exit 2; }
[ $# -eq 1 ] || usage
base=$1
case "$base" in 6.1|6.12) ;; *) echo "ERROR: stock-kernel: unknown base '$base' (want 6.1 or 6.12)" >&2; exit 2 ;; esac

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$top/out}
cache=$out/cache/stock/$base
identity=$cache/mmbatch-build.env
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"

newest_package() {
	# 6.1 packages are named 6.1.0-NN-amd64, 6.12 ones 6.12.NNN+deb12-amd64.
	local pattern
	case "$base" in
	6.1) pattern='^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
	6.12) pattern='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
	esac
	apt-cache pkgnames linux-image-"$base" | grep -E "$pattern" | sort -V | tail -n 1
}

# write_identity DIR: DIR's identity file, from what DIR holds.
write_identity() {
	local dir=$1 vmlinuz rel deb hash
	vmlinuz=$(ls "$dir"/boot/vmlinuz-* | head -n 1)
	hash=$(sha256sum < "$vmlinuz" | cut -c1-64)
	rel=${vmlinuz##*/vmlinuz-}
	deb=$(ls "$dir"/linux-image-*.deb | head -n 1)
	printf '%s\t%s\n' IDENTITY_VERSION 1 KERNELRELEASE "$rel" KVERSION "${rel%%-*}" BASE "$base" \
		FLAVOR stock VARIANT debian PACKAGE "$(cat "$dir/package")" \
		IMAGE "$cache/boot/${vmlinuz##*/}" IMAGE_HASH "$hash" \
		IMAGE_DEB "$cache/${deb##*/}" PACKAGED_IMAGE_HASH "$hash" | _bid_write "$dir/mmbatch-build.env"
}

if [ -f "$cache/done" ]; then
	# Written again from what the cache holds (also a cache from before
	# the identity file).
	write_identity "$cache"
	exit 0
fi

pkg=${VMTEST_STOCK_PKG:-$(newest_package)}
[ -n "$pkg" ] || { echo "ERROR: stock-kernel: no linux-image package for base $base in the apt lists (run apt-get update)" >&2; exit 1; }
echo "stock-kernel: fetching $pkg" >&2

mkdir -p "$out/cache"
tmp=$(mktemp -d "$out/cache/stock.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null)
deb=$(ls "$tmp"/linux-image-*.deb)
dpkg-deb -x "$deb" "$tmp/unpacked"
ls "$tmp"/unpacked/boot/vmlinuz-* >/dev/null 2>&1 || { echo "ERROR: stock-kernel: $pkg has no /boot/vmlinuz-*" >&2; exit 1; }
mv "$deb" "$tmp/unpacked/"
echo "$pkg" > "$tmp/unpacked/package"
write_identity "$tmp/unpacked"

# Publish atomically: the cache directory appears complete or not at all.
rm -rf "$cache"
mkdir -p "$(dirname "$cache")"
mv "$tmp/unpacked" "$cache"
touch "$cache/done"
echo "stock-kernel: $pkg: $identity" >&2
