#!/bin/bash
# Runs the mmbench test suite: every cmocka binary in MMB_UNIT_DIR, then every
# tests/mmbench/*_test.sh scenario. Prints one line per test and a summary;
# exit status is non-zero when any failed. Every test runs even after a
# failure.
# Reads: MMBENCH (binary under test), MMB_UNIT_DIR (unit test binaries),
#        MMBATCHD (daemon binary, optional: used when it has --show-smoke),
#        MMB_TESTS (space-separated subset of scenario names to run), SAN.
set -eu

usage() { echo "usage: MMBENCH=BIN MMB_UNIT_DIR=DIR check.sh" >&2; exit 2; }
[ -n "${MMBENCH:-}" ] && [ -x "$MMBENCH" ] || usage
[ -n "${MMB_UNIT_DIR:-}" ] || usage
top=$(cd "$(dirname "$0")/../.." && pwd)
export MMBENCH MMBATCHD="${MMBATCHD:-}" TOP="$top" SAN="${SAN:-}"

exec "$top/tools/run-suite.sh" check-bench "$MMB_UNIT_DIR" "$top/tests/mmbench" "${MMB_TESTS:-}"
