#!/bin/bash
# The mmbench test stage (`make check-bench`; SAN=1: check-bench-san): every
# cmocka binary in MMB_UNIT_DIR (unit/test_NAME), then every
# tests/mmbench/*_test.sh scenario, through tests/lib/run-suite.sh: one line
# per test with its time, a summary; exit status non-zero when any failed.
# Every test runs even after a failure. The subset selector is ONLY
# (tests/lib/assert.sh), e.g. ONLY=bench/compare_test.
# Reads: MMBENCH (binary under test), MMB_UNIT_DIR (unit test binaries),
#        MMBATCHD (daemon binary, optional: the smoke test then also runs
#        the real one), SAN, OUT, TEST_STAGE, ONLY.
set -eu

usage() { echo "usage: MMBENCH=BIN MMB_UNIT_DIR=DIR [MMBATCHD=BIN] run.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
if [ -z "${MMBENCH:-}" ] || [ ! -x "$MMBENCH" ] || [ -z "${MMB_UNIT_DIR:-}" ]; then usage; fi
here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
# The stage ONLY's STAGE/TEST words are matched against; when make does not
# name it: bench, or bench-san for SAN=1.
stage=bench
[ "${SAN:-}" != 1 ] || stage=bench-san
TEST_STAGE=${TEST_STAGE:-$stage}
export MMBENCH MMBATCHD="${MMBATCHD:-}" TOP SAN="${SAN:-}" TEST_STAGE
exec "$TOP/tests/lib/run-suite.sh" "$TEST_STAGE" "$MMB_UNIT_DIR" "$here"
