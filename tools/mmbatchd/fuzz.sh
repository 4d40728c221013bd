#!/bin/bash
# Runs the profile-loader fuzzer (libFuzzer, ASan+UBSan) for FUZZ_SECONDS,
# seeded with the shipped profiles and the malformed test profiles. The
# growing corpus and any crash reproducer stay under $OUT/fuzz/.
# Reads: FUZZ_BIN (the fuzzer), FUZZ_SECONDS (default 60), OUT, TOP.
set -eu

usage() { echo "usage: FUZZ_BIN=BIN [FUZZ_SECONDS=N] fuzz.sh" >&2; exit 2; }
[ -n "${FUZZ_BIN:-}" ] && [ -x "$FUZZ_BIN" ] || usage
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$top/out}
seconds=${FUZZ_SECONDS:-60}
corpus=$out/fuzz/corpus
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT

mkdir -p "$corpus" "$out/fuzz/artifacts"
cp "$top"/configs/profiles/*.yaml "$top"/tests/mmbatchd/bad/*.yaml "$top"/tests/mmbatchd/bad/inc/*.yaml "$seeds"/ 2>/dev/null || true
echo "fuzz: $FUZZ_BIN for $seconds s, corpus $corpus"
# -jobs/-workers stay at 1: the machine is shared.
"$FUZZ_BIN" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$out/fuzz/artifacts/" "$corpus" "$seeds" 2>"$out/fuzz/last.log" || {
	tail -40 "$out/fuzz/last.log" >&2
	echo "ERROR: fuzz: the fuzzer found a problem; reproducer in $out/fuzz/artifacts/" >&2
	exit 1
}
grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$out/fuzz/last.log" | sed 's/^/fuzz: /'
