#!/bin/bash
# The dependency installer's test stage (`make check-deps`): every
# tests/deps/*_test.sh through tests/lib/run-suite.sh (one line per test with
# its time, a summary; ONLY=deps/lock_test selects). Needs root.
# Reads: TEST_STAGE, ONLY, and what the tests read (DEPS_TEST_PKG,
# DEPS_TEST_HOLD).
set -eu

[ $# -eq 0 ] || { echo "usage: run.sh" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# The stage ONLY's STAGE/TEST words are matched against (default deps).
export TEST_STAGE=${TEST_STAGE:-deps}
exec "$here/../lib/run-suite.sh" "$TEST_STAGE" - "$here"
