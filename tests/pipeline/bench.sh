#!/bin/bash
# `make bench-pipeline`: prints (does not assert) what the pipeline costs on
# top of the kernel's own build, for one base/flavor (default 6.12 guest):
#   plain   `make bzImage modules` of the pipeline's final .config, plain gcc,
#           in a fresh O= dir;
#   cold    `make kernel` into a fresh build dir with an empty ccache
#           (series check, config stage, ccache misses, progress filter);
#   warm    the same again after deleting the build dir, ccache warm.
# Figures: overhead = cold - plain (s and %), warm as a share of cold.
# Everything goes under $OUT/bench/ and is removed afterwards.
# BENCH_TARGETS narrows all three builds to some kbuild targets (the plain
# one runs `make TARGETS`, the pipeline BUILD_TARGETS=TARGETS): `make check`
# uses "mm/" (kbuild's prepare phase plus mm/, a few minutes) so the
# figures are printed on every CI run; `make bench-pipeline` builds it all.
# Reads: BASE (default 6.12), FLAVOR (default guest), JOBS (default nproc),
#        BENCH_TARGETS (default: bzImage modules), TOP, OUT.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
bench_knobs guest
kb=$TOP/tools/kbuild

usage() { echo "usage: [BASE=6.12] [FLAVOR=guest] [JOBS=N] [BENCH_TARGETS='mm/'] bench.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
targets=${BENCH_TARGETS:-bzImage modules}

bench=$OUT/bench/pipeline-$BASE-$FLAVOR
bbuild=$bench/bench-pipeline-$BASE-$FLAVOR
rm -rf "$bench"
mkdir -p "$bench"
trap 'rm -rf "$bench" "$OUT/build/.kconfig/${bbuild##*/}"' EXIT
secs() { printf '%.0f' "$1"; }

"$kb/source.sh" >/dev/null
"$kb/series.sh" >/dev/null
# The reference build (BASE/FLAVOR), read through its identity file.
KB_IDENTITY_OUT=$bench/identity "$kb/config.sh" >/dev/null
# shellcheck source=tools/kbuild/identity.sh
. "$kb/identity.sh"
id=$(cat "$bench/identity")
tree=$(bid_get "$id" TREE)
config=$(bid_get "$id" CONFIG)
KERNELRELEASE=$(bid_get "$id" KERNELRELEASE)
for v in SOURCE_DATE_EPOCH KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST; do
	printf -v "$v" '%s' "$(bid_get "$id" "$v")"
	export "${v?}"
done
echo "bench-pipeline: $KERNELRELEASE, targets '$targets', make -j$JOBS, load average now: $(cut -d' ' -f1-3 /proc/loadavg)"

mkdir "$bench/plain"
cp "$config" "$bench/plain/.config"
t0=$(date +%s.%N)
# shellcheck disable=SC2086 # a list of kbuild targets
make -C "$tree" O="$bench/plain" -j"$JOBS" LOCALVERSION= $targets >"$bench/plain.log" 2>&1 ||
	{ tail -n 20 "$bench/plain.log"; echo "ERROR: bench-pipeline: plain build failed" >&2; exit 1; }
t_plain=$(echo "$(date +%s.%N) - $t0" | bc)
rm -rf "$bench/plain"
echo "bench-pipeline: plain make $targets: $(secs "$t_plain") s"

run_pipeline() {
	rm -rf "$bbuild"
	local t0
	t0=$(date +%s.%N)
	KB_BUILD_DIR=$bbuild CCACHE_DIR=$bench/ccache "$kb/series.sh" >/dev/null 2>&1
	KB_BUILD_DIR=$bbuild CCACHE_DIR=$bench/ccache "$kb/config.sh" >/dev/null 2>&1
	local bt=
	[ -z "${BENCH_TARGETS:-}" ] || bt=$targets
	KB_BUILD_DIR=$bbuild CCACHE_DIR=$bench/ccache PROGRESS_SECONDS=100000 BUILD_TARGETS=$bt "$kb/build.sh" >"$bench/$1.out" 2>&1 ||
		{ cat "$bench/$1.out"; echo "ERROR: bench-pipeline: pipeline build ($1) failed" >&2; exit 1; }
	echo "$(date +%s.%N) - $t0" | bc
}
t_cold=$(run_pipeline cold)
echo "bench-pipeline: pipeline cold (empty ccache): $(secs "$t_cold") s"
t_warm=$(run_pipeline warm)
echo "bench-pipeline: pipeline warm (ccache full, build dir fresh): $(secs "$t_warm") s"
grep '^build: .* done in' "$bench/warm.out" | sed 's/^/bench-pipeline: warm: /'

awk -v p="$t_plain" -v c="$t_cold" -v w="$t_warm" 'BEGIN {
	printf "bench-pipeline: overhead of the pipeline (cold) vs plain: %+.0f s (%+.1f%%)\n", c - p, 100 * (c - p) / p
	printf "bench-pipeline: ccache-warm rebuild as a share of the cold build: %.1f%%\n", 100 * w / c
}'
