#!/bin/bash
# Stack frames of two builds of one base, side by side: the kernel's own
# scripts/checkstack.pl on each build's vmlinux (objdump -d), every function
# whose frame grew from the OLD build to the NEW one, and each frame checked
# against a frame limit (CONFIG_FRAME_WARN of the distro config the product
# flavors start from). For 0010 on 6.12: the patched build at NR_CPUS=8192
# (a 63-entry folio_batch) against the PATCHES=0 build of the same source and
# NR_CPUS (31 entries); `make stack-report` builds both (guest flavor, the
# same mm/ objects as the distro flavors) and runs this.
#   stack-compare.sh [--limit BYTES] [--markdown] [--objects DIRS] OLD-IDENTITY NEW-IDENTITY
#     OLD-/NEW-IDENTITY  build identity files (tools/kbuild/identity.sh) with
#                        BUILD_DIR (vmlinux there) and TREE (checkstack.pl)
#     --objects DIRS     read the object files under these BUILD_DIR
#                        subdirectories (e.g. "mm fs", a BUILD_TARGETS build)
#                        instead of vmlinux
#     --limit BYTES      the frame limit (default: CONFIG_FRAME_WARN of
#                        Debian's config.amd64_none_cloud-amd64 of the base,
#                        else 2048, and says which on stderr)
#     --markdown         the table as Markdown (for patches/README.md)
# Prints one line per function whose frame grew ("function old new +delta"),
# then a summary; exits 1 when any frame of NEW reaches the limit, 2 on bad
# input (one line naming the file or option).
set -eu
. "$(dirname "$0")/identity.sh"

usage() { echo "usage: stack-compare.sh [--limit BYTES] [--markdown] OLD-IDENTITY NEW-IDENTITY" >&2; exit 2; }
die() { echo "ERROR: stack-compare: $*" >&2; exit 2; }
limit='' markdown=0 objdirs=''
while [ $# -gt 0 ]; do
	case "$1" in
	--limit) [ $# -ge 2 ] || usage; limit=$2; shift 2
		[[ "$limit" =~ ^[1-9][0-9]*$ ]] || die "--limit '$limit': expected a positive number of bytes" ;;
	--markdown) markdown=1; shift ;;
	--objects) [ $# -ge 2 ] || usage; objdirs=$2; shift 2 ;;
	-h|--help) usage ;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
old_id=$1 new_id=$2

# frames IDENTITY OUTFILE: "function bytes" (the largest frame of each name).
frames() {
	local id=$1 dir tree
	dir=$(bid_get "$id" BUILD_DIR) || exit 2
	tree=$(bid_get "$id" TREE) || exit 2
	[ -f "$tree/scripts/checkstack.pl" ] || die "$id: no scripts/checkstack.pl in TREE $tree"
	local objs=() d
	if [ -n "$objdirs" ]; then
		for d in $objdirs; do
			[ -d "$dir/$d" ] || die "$id: no $d/ in BUILD_DIR $dir (build BUILD_TARGETS='$objdirs' first)"
			mapfile -t -O ${#objs[@]} objs < <(find "$dir/$d" -name '*.o' ! -name '*.mod.o' ! -name 'built-in*' | sort)
		done
		[ ${#objs[@]} -gt 0 ] || die "$id: no object files under $objdirs in $dir"
	else
		[ -f "$dir/vmlinux" ] || die "$id: no vmlinux in BUILD_DIR $dir (build it first)"
		objs=("$dir/vmlinux")
	fi
	# checkstack.pl prints "0xADDR function [object]:<TAB>BYTES"; the
	# minimum of 0 lists every frame it can read. Its x86_64 rule adds up
	# every immediate %rsp adjustment of a function, the epilogue's
	# `add $N,%rsp` as well as the prologue's `sub $N,%rsp`, so it shows
	# twice the frame of a function that has both (mapping_try_invalidate:
	# `sub $0x418,%rsp`, gcc's -Wframe-larger-than says 1048 bytes,
	# checkstack 2096). The epilogue lines are dropped before it reads
	# them; `add` of a negative immediate (a sub) stays.
	objdump -d "${objs[@]}" | grep -Ev '[[:space:]]add[[:space:]]+\$0x[0-7]?[0-9a-f]{1,7},%rsp$' |
		perl "$tree/scripts/checkstack.pl" x86_64 0 |
		# (a long name leaves no tab before the byte count)
		sed -nE 's/^0x[0-9a-f]+ ([^ ]+) \[[^]]*\]:[[:space:]]*([0-9]+)$/\1 \2/p' |
		awk '{ if ($2 + 0 > max[$1] + 0) max[$1] = $2 } END { for (n in max) print n, max[n] }' | sort >"$2"
}

base=$(bid_get "$new_id" BASE) || exit 2
if [ -z "$limit" ]; then
	cfg=/usr/src/linux-config-$base/config.amd64_none_cloud-amd64.xz
	limit=$(xz -dc "$cfg" 2>/dev/null | sed -n 's/^CONFIG_FRAME_WARN=//p')
	if [ -n "$limit" ]; then
		echo "stack-compare: frame limit $limit bytes (CONFIG_FRAME_WARN of $cfg)" >&2
	else
		limit=2048
		echo "stack-compare: frame limit $limit bytes (the 64-bit CONFIG_FRAME_WARN default; $cfg not readable)" >&2
	fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
frames "$old_id" "$work/old"
frames "$new_id" "$work/new"
old_rel=$(bid_get "$old_id" KERNELRELEASE) new_rel=$(bid_get "$new_id" KERNELRELEASE)

# Every function of NEW with its OLD frame (0: not in OLD), grown ones only.
join -a 2 -e 0 -o 0,1.2,2.2 "$work/old" "$work/new" |
	awk '$3 > $2 { printf "%s %d %d %d\n", $1, $2, $3, $3 - $2 }' | sort -k4,4nr -k1,1 >"$work/grown"
n_grown=$(wc -l <"$work/grown")
max_new=$(sort -k2,2nr "$work/new" | head -n 1)
over=$(awk -v l="$limit" '$2 >= l' "$work/new")

if [ $markdown = 1 ]; then
	echo "| function | $old_rel (bytes) | $new_rel (bytes) | growth |"
	echo "|---|---:|---:|---:|"
	awk '{ printf "| `%s` | %s | %s | +%s |\n", $1, ($2 == 0 ? "(not present)" : $2), $3, $4 }' "$work/grown"
else
	printf '%-40s %8s %8s %8s\n' function old new growth
	awk '{ printf "%-40s %8d %8d %+8d\n", $1, $2, $3, $4 }' "$work/grown"
fi
echo
echo "stack-compare: $n_grown function(s) grew from $old_rel to $new_rel; largest frame of $new_rel: ${max_new% *} ${max_new##* } bytes; limit $limit bytes"
if [ -n "$over" ]; then
	echo "stack-compare: frames at or above the limit in $new_rel:"
	printf '  %s\n' "$over"
	exit 1
fi
echo "stack-compare: no frame of $new_rel reaches $limit bytes"
