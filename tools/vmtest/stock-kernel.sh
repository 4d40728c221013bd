#!/bin/bash
# Fetches Debian's stock kernel for a base (6.1 or 6.12) from the registry with
# `apt-get download`, unpacks it with `dpkg-deb -x` and prints the path of its
# vmlinuz (last line of stdout). The .deb itself stays beside it (for the
# full path). The newest linux-image-<ver>-amd64-unsigned
# of that base is chosen once and then pinned: the unpacked tree is cached
# under $OUT/cache/stock/<base>/ and reused until removed.
# Reads: OUT (default: out/ of this repo), VMTEST_STOCK_PKG (a package name to
#        use instead of the newest one).
set -eu

usage() { echo "usage: stock-kernel.sh 6.1|6.12" >&2; exit 2; }
[ $# -eq 1 ] || usage
base=$1
case "$base" in 6.1|6.12) ;; *) echo "ERROR: stock-kernel: unknown base '$base' (want 6.1 or 6.12)" >&2; exit 2 ;; esac

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$top/out}
cache=$out/cache/stock/$base

newest_package() {
	# 6.1 packages are named 6.1.0-NN-amd64, 6.12 ones 6.12.NNN+deb12-amd64.
	local pattern
	case "$base" in
	6.1) pattern='^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
	6.12) pattern='^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
	esac
	apt-cache pkgnames linux-image-"$base" | grep -E "$pattern" | sort -V | tail -n 1
}

if [ -f "$cache/done" ]; then
	cat "$cache/vmlinuz.path"
	exit 0
fi

pkg=${VMTEST_STOCK_PKG:-$(newest_package)}
[ -n "$pkg" ] || { echo "ERROR: stock-kernel: no linux-image package for base $base in the apt lists (run apt-get update)" >&2; exit 1; }
echo "stock-kernel: fetching $pkg" >&2

tmp=$(mktemp -d "$out/cache/stock.XXXXXX" 2>/dev/null || { mkdir -p "$out/cache" && mktemp -d "$out/cache/stock.XXXXXX"; })
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >/dev/null)
deb=$(ls "$tmp"/linux-image-*.deb)
dpkg-deb -x "$deb" "$tmp/unpacked"
vmlinuz=$(ls "$tmp"/unpacked/boot/vmlinuz-* | head -n 1)
[ -f "$vmlinuz" ] || { echo "ERROR: stock-kernel: $pkg has no /boot/vmlinuz-*" >&2; exit 1; }
mv "$deb" "$tmp/unpacked/"
echo "$pkg" > "$tmp/unpacked/package"

# Publish atomically: the cache directory appears complete or not at all.
rm -rf "$cache"
mkdir -p "$(dirname "$cache")"
mv "$tmp/unpacked" "$cache"
echo "$cache/boot/$(basename "$vmlinuz")" > "$cache/vmlinuz.path"
touch "$cache/done"
cat "$cache/vmlinuz.path"
