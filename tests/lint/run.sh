#!/bin/bash
# The lint stage (`make check-lint`): every tests/lint/*_test.sh through
# tests/lib/run-suite.sh (one line per test with its time, a summary;
# ONLY=lint/shellcheck_test selects).
# Reads: TEST_STAGE, ONLY.
set -eu

[ $# -eq 0 ] || { echo "usage: run.sh" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
# The stage ONLY's STAGE/TEST words are matched against (default lint).
export TEST_STAGE=${TEST_STAGE:-lint}
exec "$here/../lib/run-suite.sh" "$TEST_STAGE" - "$here"
