#!/bin/bash
# shellcheck disable=SC2154 # the *_wall and *_cpu variables are set by timed (printf -v)
# `make bench-packaging`: the pipeline's `make packages` side by side with
# kbuild's own `make bindeb-pkg` and `make binrpm-pkg`, on the same .config
# and with a warm ccache for both; prints (does not assert) wall time, CPU
# time and package sizes of each, and the ratio the main job's goal names:
# pipeline / (bindeb-pkg + binrpm-pkg), wall.
#   pipeline  `make packages` into a fresh OUT ($bench/pipe; source and
#             series made first, not timed): config, build (ccache), both
#             formats from one staged tree, the mmbatchd packages;
#   kbuild    a copy of the patched tree laid out as the pipeline's (so
#             ccache hits the same way), the pipeline's .config and release
#             file, the same KBUILD_BUILD_* and SOURCE_DATE_EPOCH: `make
#             bindeb-pkg`, then `make binrpm-pkg` in the same build dir
#             (the second reuses the first one's objects, as a user running
#             both would).
# The build of BASE/FLAVOR is made first (`make kernel`, not timed) so that
# ccache is warm for both. Everything goes under $OUT/bench/ and is removed
# afterwards unless BENCH_KEEP=1.
# Reads: BASE (default 6.12), FLAVOR (default cloud), DEBUG (0 or 1, the
#        debug variant; default 0), JOBS (default nproc), BENCH_KEEP, TOP,
#        OUT, the pipeline's packaging knobs (PKG_*).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
# DEBUG is a pipeline knob that bench_knobs unsets: kept first.
debug=${DEBUG:-0}
export TOP OUT
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
bench_knobs cloud
kb=$TOP/tools/kbuild

usage() { echo "usage: [BASE=6.12] [FLAVOR=cloud] [DEBUG=0|1] [JOBS=N] bench_packaging.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { echo "ERROR: bench-packaging: JOBS='$JOBS': expected a positive integer" >&2; exit 2; }
case $debug in 0|1) ;; *) echo "ERROR: bench-packaging: DEBUG='$debug': expected 0 or 1" >&2; exit 2 ;; esac

bench=$OUT/bench/packaging-$BASE-$FLAVOR-debug$debug
rm -rf "$bench"
mkdir -p "$bench"
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$bench"' EXIT
die() { echo "ERROR: bench-packaging: $*" >&2; exit 1; }

# timed NAME CMD...: runs CMD (output to $bench/NAME.log); sets NAME_wall
# and NAME_cpu (seconds, its children's CPU included).
timed() {
	local name=$1 t
	shift
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" >"$bench/$name.log" 2>&1; } 2>&1) ||
		{ tail -n 30 "$bench/$name.log" >&2; die "$name failed (log above)"; }
	t=${t##*$'\n'}
	printf -v "${name}_wall" '%s' "$(awk '{ printf "%.0f", $1 }' <<<"$t")"
	printf -v "${name}_cpu" '%s' "$(awk '{ printf "%.0f", $2 + $3 }' <<<"$t")"
}
# mb FILE...: their total size in MB.
mb() { du -cb "$@" | tail -n 1 | awk '{ printf "%.1f", $1 / 1e6 }'; }

echo "bench-packaging: $BASE $FLAVOR, make -j$JOBS; the reference build first (make kernel, warms ccache; not timed)"
make --no-print-directory -C "$TOP" kernel BASE="$BASE" FLAVOR="$FLAVOR" DEBUG="$debug" >"$bench/reference.log" 2>&1 ||
	{ tail -n 30 "$bench/reference.log" >&2; die "make kernel BASE=$BASE FLAVOR=$FLAVOR DEBUG=$debug failed (log above)"; }
id=$(BASE=$BASE FLAVOR=$FLAVOR DEBUG=$debug bash -c '. "$1/tools/kbuild/lib.sh"; kb_init; echo "$KB_BUILD/mmbatch-build.env"' _ "$TOP")
# shellcheck source=tools/kbuild/identity.sh
. "$kb/identity.sh"
release=$(bid_get "$id" KERNELRELEASE) tree=$(bid_get "$id" TREE) bdir=$(bid_get "$id" BUILD_DIR)
for v in SOURCE_DATE_EPOCH KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST; do
	printf -v "$v" '%s' "$(bid_get "$id" "$v")"
	export "${v?}"
done
echo "bench-packaging: $release, load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

# The pipeline, in a fresh OUT: the same relative layout as $OUT, so ccache
# (CCACHE_BASEDIR=OUT) hits directly.
make --no-print-directory -C "$TOP" series OUT="$bench/pipe" BASE="$BASE" FLAVOR="$FLAVOR" DEBUG="$debug" >"$bench/pipe-series.log" 2>&1 ||
	{ tail -n 30 "$bench/pipe-series.log" >&2; die "make series OUT=$bench/pipe failed (log above)"; }
timed pipe make --no-print-directory -C "$TOP" packages OUT="$bench/pipe" BASE="$BASE" FLAVOR="$FLAVOR" DEBUG="$debug" JOBS="$JOBS"
mapfile -t pipe_pkgs < <(grep -E '^/.*\.(deb|rpm)$' "$bench/pipe.log")
[ ${#pipe_pkgs[@]} -ge 4 ] || die "make packages printed ${#pipe_pkgs[@]} package paths (log $bench/pipe.log)"
pipe_build=$(sed -n 's/^build: .* done in \([0-9]*\) s.*/\1/p' "$bench/pipe.log" | tail -n 1)
pipe_pack=$(sed -n 's/^package: [0-9]* packages in \([0-9]*\) s.*/\1/p' "$bench/pipe.log" | tail -n 1)

# kbuild's own packaging, from a copy of the patched tree at the same
# relative place under its own ccache base dir.
kroot=$bench/kb
ktree=$kroot/${tree#"$OUT"/}
kbuild=$kroot/${bdir#"$OUT"/}
mkdir -p "$(dirname "$ktree")" "$kbuild"
cp -a "$tree" "$ktree"
cp "$bdir/.config" "$kbuild/.config"
[ ! -f "$bdir/localversion-mmbatch" ] || cp "$bdir/localversion-mmbatch" "$kbuild/"
export CCACHE_BASEDIR=$kroot CCACHE_NOHASHDIR=1
kmake() { make -C "$ktree" O="$kbuild" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" LOCALVERSION= "$@"; }
timed deb kmake bindeb-pkg DPKG_FLAGS=-d
# 6.1's binrpm-pkg uses rpm's default _topdir (~/rpmbuild); 6.12's its own
# under the build dir. rpmbuild would check the build dependencies against
# Debian's empty rpm database.
rpmopts=--nodeps
[ "$BASE" != 6.1 ] || rpmopts="--nodeps --define '_topdir $kroot/rpmbuild'"
timed rpm kmake binrpm-pkg RPMOPTS="$rpmopts"
mapfile -t kdebs < <(find "$kroot" -maxdepth 3 -name '*.deb' | sort)
mapfile -t krpms < <(find "$kroot" -path '*/RPMS/*' -name '*.rpm' | sort)
{ [ ${#kdebs[@]} -ge 1 ] && [ ${#krpms[@]} -ge 1 ]; } || die "kbuild made ${#kdebs[@]} DEBs and ${#krpms[@]} RPMs (logs $bench/deb.log, $bench/rpm.log)"
krel=$(cat "$kbuild/include/config/kernel.release")
[ "$krel" = "$release" ] || echo "bench-packaging: note: kbuild's release is $krel, the pipeline's $release"


pipe_debs=() pipe_rpms=()
for p in "${pipe_pkgs[@]}"; do case $p in *.deb) pipe_debs+=("$p") ;; *) pipe_rpms+=("$p") ;; esac; done
echo
echo "| $release ($FLAVOR), make -j$JOBS | wall s | CPU s | DEBs MB | RPMs MB |"
echo "| --- | ---: | ---: | ---: | ---: |"
echo "| pipeline: make packages (config, build ${pipe_build:-?} s, packaging ${pipe_pack:-?} s) | $pipe_wall | $pipe_cpu | $(mb "${pipe_debs[@]}") | $(mb "${pipe_rpms[@]}") |"
echo "| kbuild: make bindeb-pkg (build and DEBs) | $deb_wall | $deb_cpu | $(mb "${kdebs[@]}") | |"
echo "| kbuild: make binrpm-pkg (after it: RPMs) | $rpm_wall | $rpm_cpu | | $(mb "${krpms[@]}") |"
awk -v p="$pipe_wall" -v d="$deb_wall" -v r="$rpm_wall" 'BEGIN {
	printf "\nbench-packaging: pipeline / (bindeb-pkg + binrpm-pkg), wall: %.2f (goal <= 1.1)\n", p / (d + r) }'
echo "bench-packaging: packages: pipeline $(printf '%s ' "${pipe_pkgs[@]##*/}"); kbuild $(printf '%s ' "${kdebs[@]##*/}" "${krpms[@]##*/}")"
