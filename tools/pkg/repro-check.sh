#!/bin/bash
# Stage 6 check: builds the guest flavor twice from clean trees, each in its
# own out dir ($REPRO_DIR/a and $REPRO_DIR/b: source unpack, series, config,
# kernel, daemon, packages; `make packages OUT=... KB_BUILD_DIR=...`, so each
# build's identity file is at a fixed path, <out>/build/<base>-guest/
# mmbatch-build.env), and compares every package the two identity files
# record, key by key, byte for byte. For a package that differs it prints
# the differing members (dpkg-deb -c listings and extracted files for a DEB,
# rpm2cpio payload and header for an RPM). ccache is shared, so the second
# build is mostly cache hits; the machine's build cache is not used
# (KB_BUILD_CACHE=0: the second build would be a copy of the first, not a
# build of its own); the outputs must not depend on the directory
# (paths are relative or mapped) nor on the time (SOURCE_DATE_EPOCH,
# KBUILD_BUILD_*).
#   repro-check.sh                         build twice, compare
#   repro-check.sh --compare BUILD_A BUILD_B  compare the packages of two
#                                          packaged builds' identity files
# Reads: TOP, OUT, MAKE, REPRO_BASE (default 6.12), REPRO_DIR (default
# $OUT/repro), REPRO_KEEP=1 to keep both trees.
set -eu

usage() {
	echo "usage: repro-check.sh [--compare BUILD_A BUILD_B]  (REPRO_BASE, REPRO_DIR from the environment)" >&2
	exit 2
}
compare_only=0
if [ $# -eq 3 ] && [ "$1" = --compare ]; then
	compare_only=1 id_a=$2 id_b=$3
elif [ $# -ne 0 ]; then
	usage
fi

. "$(dirname "$0")/lib.sh"
base=${REPRO_BASE:-6.12}
dir=${REPRO_DIR:-$OUT/repro}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ $compare_only = 0 ]; then
rm -rf "$dir/a" "$dir/b"
for side in a b; do
	t0=$SECONDS
	build=$dir/$side/build/$base-guest
	echo "repro: build $side: make packages BASE=$base FLAVOR=guest OUT=$dir/$side KB_BUILD_DIR=$build"
	# The same depth as out/build/<name>: ccache's relative paths hit.
	if ! env -u BUILD KB_BUILD_CACHE=0 KB_BUILD_DIR="$build" "${MAKE:-make}" --no-print-directory -C "$TOP" packages \
		BASE="$base" FLAVOR=guest OUT="$dir/$side" >"$work/build-$side.log" 2>&1; then
		tail -n 30 "$work/build-$side.log"
		pkg_die "repro: build $side failed (log tail above)"
	fi
	echo "repro: build $side done in $((SECONDS - t0)) s"
done
id_a=$dir/a/build/$base-guest/mmbatch-build.env id_b=$dir/b/build/$base-guest/mmbatch-build.env
fi
for id in "$id_a" "$id_b"; do
	bid_get "$id" PACKAGED_IMAGE_HASH >/dev/null || exit 1
done

# deb_members A B: the members whose listing or content differ.
deb_members() {
	diff <(dpkg-deb -c "$1" | sort -k6) <(dpkg-deb -c "$2" | sort -k6) | grep '^[<>]' || true
	local x=$work/x
	rm -rf "$x" && mkdir -p "$x"
	dpkg-deb -R "$1" "$x/a" && dpkg-deb -R "$2" "$x/b"
	diff -rq --no-dereference "$x/a" "$x/b" | sed "s|$x/||g" || true
}

# rpm_members A B: header fields and payload files that differ.
rpm_members() {
	local x=$work/x f
	local qf='%{NAME} %{VERSION} %{RELEASE} %{BUILDTIME} %{BUILDHOST} %{SOURCERPM}\n[%{FILEMTIMES} %{FILEMODES:octal} %{FILEDIGESTS} %{FILENAMES}\n]'
	diff <(rpm -qp --qf "$qf" "$1" 2>/dev/null) <(rpm -qp --qf "$qf" "$2" 2>/dev/null) | grep '^[<>]' || true
	rm -rf "$x" && mkdir -p "$x/a" "$x/b"
	for f in a b; do
		if [ $f = a ]; then rpm2cpio "$1"; else rpm2cpio "$2"; fi | (cd "$x/$f" && cpio -idm --quiet)
	done
	diff -rq --no-dereference "$x/a" "$x/b" | sed "s|$x/||g" || true
}

same=0 differ=0 missing=0
for key in $PKG_FILE_KEYS; do
	pa=$(bid_get "$id_a" "$key" 2>/dev/null) || pa=
	pb=$(bid_get "$id_b" "$key" 2>/dev/null) || pb=
	[ -n "$pa" ] || [ -n "$pb" ] || continue
	if [ -z "$pb" ] || [ -z "$pa" ]; then
		echo "repro: $key: only in build $([ -n "$pa" ] && echo "a ($(basename "$pa"))" || echo "b ($(basename "$pb"))")"
		missing=$((missing + 1))
		continue
	fi
	name=$(basename "$pa")
	if [ "$name" != "$(basename "$pb")" ]; then
		echo "repro: $key: named $name in build a, $(basename "$pb") in build b"
		differ=$((differ + 1))
	elif cmp -s "$pa" "$pb"; then
		echo "repro: $name: identical ($(sha256sum <"$pa" | cut -c1-16))"
		same=$((same + 1))
	else
		echo "repro: $name: DIFFERS; differing members:"
		case $name in
			*.deb) deb_members "$pa" "$pb" ;;
			*.rpm) rpm_members "$pa" "$pb" ;;
		esac | sed 's/^/    /' | head -n 40
		differ=$((differ + 1))
	fi
done
[ "${REPRO_KEEP:-0}" = 1 ] || [ $compare_only = 1 ] || rm -rf "$dir/a" "$dir/b"
echo "repro: $same identical, $differ differ, $missing missing"
[ $same -gt 0 ] && [ $differ -eq 0 ] && [ $missing -eq 0 ]
