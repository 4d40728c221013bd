#!/bin/bash
# `make check-builds`, the last step of `make check`: the guard on the
# kernel builds of this run. Tests (ONLY=builds/NAME):
#  guard_test  tests/builds/guard_test.sh: the guard (tests/builds/guard.sh)
#              on synthetic builds logs and a synthetic testing.md, the
#              repository's list against the builds it names, lib.sh's
#              knobs string and log line, build.sh's line with a stand-in
#              kbuild (no compiler);
#  log         the guard on this run's builds log (MMBATCH_BUILDS_LOG, set by
#              tools/check.sh; default $OUT/check/builds.tsv) and
#              docs/developing/testing.md: the table of the builds and the
#              objects, wall and CPU seconds each stage compiled; fails when
#              one configuration was compiled twice, a build dir compiled
#              again, a compiled build has no row, or (a full run:
#              MMBATCH_CHECK_ONLY empty) a row has no build. A log with no
#              build, outside a full run (e.g. make check ONLY=builds), is a
#              skip: "no builds log: nothing to check".
# Reads: TOP, OUT, ONLY, TEST_STAGE, MMBATCH_BUILDS_LOG, MMBATCH_CHECK_ONLY.
set -eu
[ $# -eq 0 ] || { echo "usage: run.sh" >&2; exit 2; }
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
TEST_NAME=${TEST_STAGE:-builds}
here=$TOP/tests/builds
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"

log=${MMBATCH_BUILDS_LOG:-$OUT/check/builds.tsv}
doc=$TOP/docs/developing/testing.md

run_test --summary guard_test "$here/guard_test.sh"

# A full run (tools/check.sh with no ONLY) always checks its log: no build
# in it is an offence there.
full=0
[ -z "${MMBATCH_CHECK_ONLY-x}" ] && full=1
if [ $full = 1 ] || grep -qv '^#' "$log" 2>/dev/null; then
	run_test log "$here/guard.sh" "$log" "$doc"
elif selected log; then
	skip "log" "no builds log: nothing to check ($log $([ -e "$log" ] && echo "holds no build: no stage of this run (ONLY=${MMBATCH_CHECK_ONLY-}) built a kernel" || echo "does not exist: make check writes it"))"
else
	run_test log true
fi
run_summary "$TEST_NAME"
