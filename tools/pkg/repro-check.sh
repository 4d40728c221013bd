#!/bin/bash
# Stage 6 check: builds the guest flavor twice from clean trees, each in its
# own out dir ($REPRO_DIR/a and $REPRO_DIR/b: source unpack, series, config,
# kernel, daemon, packages), and compares every package byte for byte. For a
# package that differs it prints the differing members (dpkg-deb -c listings
# and extracted files for a DEB, rpm2cpio payload and header for an RPM).
# ccache is shared, so the second build is mostly cache hits; the outputs
# must not depend on the directory (paths are relative or mapped) nor on the
# time (SOURCE_DATE_EPOCH, KBUILD_BUILD_*).
#   repro-check.sh                       build twice, compare
#   repro-check.sh --compare DIR_A DIR_B compare two package dirs only
# Reads: TOP, OUT, MAKE, REPRO_BASE (default 6.12), REPRO_DIR (default
# $OUT/repro), REPRO_KEEP=1 to keep both trees.
set -eu

usage() { echo "usage: repro-check.sh [--compare DIR_A DIR_B]  (REPRO_BASE, REPRO_DIR from the environment)" >&2; exit 2; }
compare_only=0
if [ $# -eq 3 ] && [ "$1" = --compare ] && [ -d "$2" ] && [ -d "$3" ]; then
	compare_only=1 pkg_a=$(realpath "$2") pkg_b=$(realpath "$3")
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
	echo "repro: build $side: make packages BASE=$base FLAVOR=guest OUT=$dir/$side"
	if ! "${MAKE:-make}" --no-print-directory -C "$TOP" packages BASE="$base" FLAVOR=guest OUT="$dir/$side" \
		>"$work/build-$side.log" 2>&1; then
		tail -n 30 "$work/build-$side.log"
		pkg_die "repro: build $side failed (log tail above)"
	fi
	echo "repro: build $side done in $((SECONDS - t0)) s"
done
pkg_a=$dir/a/packages pkg_b=$dir/b/packages
fi

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
for pa in "$pkg_a/"*.deb "$pkg_a/"*.rpm; do
	[ -f "$pa" ] || continue
	name=$(basename "$pa")
	pb=$pkg_b/$name
	if [ ! -f "$pb" ]; then
		echo "repro: $name: only in build a"
		missing=$((missing + 1))
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
for pb in "$pkg_b/"*.deb "$pkg_b/"*.rpm; do
	[ -f "$pb" ] || continue
	[ -f "$pkg_a/$(basename "$pb")" ] || { echo "repro: $(basename "$pb"): only in build b"; missing=$((missing + 1)); }
done
[ "${REPRO_KEEP:-0}" = 1 ] || [ $compare_only = 1 ] || rm -rf "$dir/a" "$dir/b"
echo "repro: $same identical, $differ differ, $missing missing"
[ $same -gt 0 ] && [ $differ -eq 0 ] && [ $missing -eq 0 ]
