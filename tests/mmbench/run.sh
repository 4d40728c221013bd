#!/bin/bash
# Runs the mmbench test suite: every cmocka binary in MMB_UNIT_DIR, then every
# tests/mmbench/*_test.sh scenario. Prints one line per test and a summary;
# exit status is non-zero when any failed. Every test runs even after a
# failure.
# Reads: MMBENCH (binary under test), MMB_UNIT_DIR (unit test binaries),
#        MMBATCHD (daemon binary, optional: the smoke test then also runs
#        the real one), OUT,
#        MMB_TESTS (space-separated subset of scenario names to run), SAN.
set -eu

usage() { echo "usage: MMBENCH=BIN MMB_UNIT_DIR=DIR check.sh" >&2; exit 2; }
[ -n "${MMBENCH:-}" ] && [ -x "$MMBENCH" ] || usage
[ -n "${MMB_UNIT_DIR:-}" ] || usage
top=$(cd "$(dirname "$0")/../.." && pwd)
export MMBENCH MMBATCHD="${MMBATCHD:-}" TOP="$top" SAN="${SAN:-}"
# The smoke test hands mmbatchd a profile in its temp dir; mmbatchd refuses
# profiles under a group/world-writable directory such as /tmp, so the temp
# dirs go under OUT (root's, 0755). MMB_TMPDIR overrides.
export TMPDIR=${MMB_TMPDIR:-${OUT:-$top/out}/test-tmp}
mkdir -p -m 0755 "$TMPDIR"

exec "$top/tests/lib/run-suite.sh" check-bench "$MMB_UNIT_DIR" "$top/tests/mmbench" "${MMB_TESTS:-}"
