#!/bin/bash
# Builds the quick-path initramfs: busybox-static, tools/vmtest/guest-init as
# /init, and our binaries. Dynamic binaries (mmbatchd) get the libraries ldd
# lists plus the loader. The image is cached under $OUT/vm/initramfs/ named
# by a hash of every input, so it is rebuilt exactly when an input changes,
# and written to the FILE that -o names (a hard link to the cached image, or
# a copy across file systems). Nothing goes to stdout: the caller reads FILE.
#   mkinitramfs.sh -o FILE [SRC[:DEST]...]
# SRC[:DEST]: binaries to include; DEST defaults to /usr/bin/NAME. Without
#   any: out/bin/static/mmbench -> /usr/bin/mmbench and out/bin/mmbatchd ->
#   /usr/sbin/mmbatchd, each when it exists.
# Reads: OUT (default: out/ of this repo), BUSYBOX (default: /bin/busybox).
set -eu

usage() { echo "usage: mkinitramfs.sh -o FILE [SRC[:DEST]...]" >&2; exit 2; }
result=
while [ $# -gt 0 ]; do
	case "$1" in
	-o) [ $# -ge 2 ] || usage; result=$2; shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "ERROR: mkinitramfs: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -n "$result" ] || { echo "ERROR: mkinitramfs: -o FILE is required (where the image goes)" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
busybox=${BUSYBOX:-/bin/busybox}

[ -x "$busybox" ] || { echo "ERROR: mkinitramfs: no busybox at '$busybox' (install busybox-static)" >&2; exit 1; }
if ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked'; then
	# `file` may be absent; ldd is the fallback test for a static binary.
	if ldd "$busybox" >/dev/null 2>&1; then
		echo "ERROR: mkinitramfs: '$busybox' is not statically linked (install busybox-static)" >&2; exit 1
	fi
fi

specs=("$@")
if [ $# -eq 0 ]; then
	[ -x "$out/bin/static/mmbench" ] && specs+=("$out/bin/static/mmbench:/usr/bin/mmbench")
	[ -x "$out/bin/mmbatchd" ] && specs+=("$out/bin/mmbatchd:/usr/sbin/mmbatchd")
fi

# Resolve every file that goes in, as "SRC DEST" lines.
files=$(mktemp)
trap 'rm -f "$files"' EXIT
add() { printf '%s %s\n' "$1" "$2" >> "$files"; }
add "$busybox" /bin/busybox
add "$here/guest-init" /init
for spec in ${specs[@]+"${specs[@]}"}; do
	src=${spec%%:*} dest=${spec#*:}
	[ "$dest" != "$spec" ] || dest=/usr/bin/$(basename "$src")
	[ -f "$src" ] || { echo "ERROR: mkinitramfs: no such binary '$src'" >&2; exit 1; }
	add "$src" "$dest"
	# ldd prints "lib => /path (addr)" and "/lib64/ld-linux... (addr)" lines;
	# a static binary makes it fail, which means nothing to copy.
	for lib in $(ldd "$src" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
		add "$(readlink -f "$lib")" "$lib"
	done
done
sort -u -o "$files" "$files"

# The cache key covers the builder itself and every file's content and place.
key=$( { sha256sum "$0"; while read -r src dest; do printf '%s %s\n' "$(sha256sum < "$src")" "$dest"; done < "$files"; } | sha256sum | cut -c1-16)
image=$out/vm/initramfs/initramfs-$key.cpio.gz
# publish: the image at $result, replaced whole (already there: a link to
# this very image, left as it is).
publish() {
	[ ! "$result" -ef "$image" ] || return 0
	mkdir -p "$(dirname "$result")"
	rm -f "$result.tmp"
	ln "$image" "$result.tmp" 2>/dev/null || cp "$image" "$result.tmp"
	mv -f "$result.tmp" "$result"
}
if [ -f "$image" ]; then
	publish
	exit 0
fi

mkdir -p "$out/vm/initramfs"
root=$(mktemp -d "$out/vm/initramfs/root.XXXXXX")
trap 'rm -f "$files"; rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,run,root,etc,vmtest,share}
while read -r src dest; do
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$src" "$root$dest"
done < "$files"
chmod 0755 "$root/init"
# Applets as symlinks; our own binaries win where names clash.
for applet in $("$root/bin/busybox" --list-full); do
	[ -e "$root/$applet" ] || ln -s /bin/busybox "$root/$applet"
done
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"

(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --quiet -R 0:0) | gzip -6 > "$image.tmp"
mv "$image.tmp" "$image"
echo "mkinitramfs: built $image ($(du -k "$image" | cut -f1) KiB)" >&2
publish
