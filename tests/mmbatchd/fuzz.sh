#!/bin/bash
# Runs the profile-loader fuzzer (libFuzzer, ASan+UBSan) for FUZZ_SECONDS,
# seeded with the shipped profiles, the malformed test profiles and profiles
# at the loader's limits (inputs up to 64 KiB: enough to pass the key limit).
# The growing corpus and any crash reproducer stay under $OUT/fuzz/. Run by
# `tests/mmbatchd/run.sh fuzz` (make check-daemon-fuzz: 60 s; make fuzz).
# Reads: FUZZ_BIN (the fuzzer), FUZZ_SECONDS (default 60), OUT, TOP.
set -eu

usage() { echo "usage: FUZZ_BIN=BIN [FUZZ_SECONDS=N] fuzz.sh" >&2; exit 2; }
if [ -z "${FUZZ_BIN:-}" ] || [ ! -x "$FUZZ_BIN" ]; then usage; fi
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
out=${OUT:-$TOP/out}
seconds=${FUZZ_SECONDS:-60}
corpus=$out/fuzz/corpus
scratch
seeds=$T/seeds

mkdir -p "$corpus" "$out/fuzz/artifacts" "$seeds"
cp "$TOP"/configs/profiles/*.yaml "$TOP"/tests/mmbatchd/bad/*.yaml "$TOP"/tests/mmbatchd/bad/inc/*.yaml "$seeds"/
# Seeds at the limits of profile.h: PROFILE_MAX_KNOBS (1024) sysfs keys, one
# more, and a long benchmark list (the mutations go on from there).
knobs() { awk -v n="$1" 'BEGIN { print "sysfs:"; for (i = 0; i < n; i++) printf "  /sys/devices/system/node/node%d/reclaim: %d\n", i, i % 3 }'; }
knobs 1024 > "$seeds/limit-knobs.yaml"
knobs 1025 > "$seeds/limit-knobs-over.yaml"
awk 'BEGIN { printf "smoke:\n  benchmarks: [b0"; for (i = 1; i < 65; i++) printf ", b%d", i; print "]" }' > "$seeds/limit-benchmarks.yaml"
echo "fuzz: $FUZZ_BIN for $seconds s, corpus $corpus, $(find "$seeds" -type f | wc -l) seeds"
# -jobs/-workers stay at 1: the machine is shared.
rc=0
"$FUZZ_BIN" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$out/fuzz/artifacts/" "$corpus" "$seeds" 2>"$out/fuzz/last.log" || rc=$?
expect_ok "fuzzer, $seconds s without a finding (a reproducer would be in $out/fuzz/artifacts/)" "$rc" "@$out/fuzz/last.log"
expect_match "fuzzer's final stats" '^stat::number_of_executed_units: [1-9]' "@$out/fuzz/last.log"
grep -E '^stat::(number_of_executed_units|peak_rss_mb|new_units_added)' "$out/fuzz/last.log" | sed 's/^/fuzz: /' || true
