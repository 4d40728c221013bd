#!/bin/bash
# Runs the mmbatchd test suite: every cmocka binary in MBD_UNIT_DIR, then every
# tests/mmbatchd/*_test.sh scenario (each gets MMBATCHD). Prints one line per
# test and a summary; exit status is non-zero when any failed. Every test runs
# even after a failure.
# Reads: MMBATCHD (daemon binary), MBD_UNIT_DIR (unit test binaries),
#        MBD_TESTS (space-separated subset of scenario names to run).
set -eu

usage() { echo "usage: MMBATCHD=BIN MBD_UNIT_DIR=DIR check.sh" >&2; exit 2; }
[ -n "${MMBATCHD:-}" ] && [ -x "$MMBATCHD" ] || usage
[ -n "${MBD_UNIT_DIR:-}" ] || usage
top=$(cd "$(dirname "$0")/../.." && pwd)
export MMBATCHD TOP="$top"
# The tests' temp dirs hold profiles, which mmbatchd refuses in a directory
# that is group/world-writable or not root's, /tmp included: they go under
# OUT (root's, 0755) instead. MBD_TMPDIR overrides.
export TMPDIR=${MBD_TMPDIR:-${OUT:-$top/out}/test-tmp}
mkdir -p -m 0755 "$TMPDIR"

exec "$top/tests/lib/run-suite.sh" check-daemon "$MBD_UNIT_DIR" "$top/tests/mmbatchd" "${MBD_TESTS:-}"
