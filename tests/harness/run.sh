#!/bin/bash
# The test harness's own stage (`make check-harness`, first in `make check`):
# tests/harness/*_test.sh through tests/lib/run-suite.sh, proving that the one
# assertion library fails on false cases and that ONLY selects what it says.
# Reads: TEST_STAGE, ONLY.
set -eu

[ $# -eq 0 ] || { echo "usage: run.sh" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../lib/run-suite.sh" "${TEST_STAGE:-harness}" - "$here"
