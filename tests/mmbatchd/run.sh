#!/bin/bash
# The mmbatchd test stages, one per argument:
#   suite (default)  every cmocka binary in MBD_UNIT_DIR (unit/test_NAME),
#                    then every tests/mmbatchd/*_test.sh scenario, through
#                    tests/lib/run-suite.sh: one line per test with its time,
#                    a summary; `make check-daemon` (SAN=1: check-daemon-san)
#   valgrind         valgrind.sh, a timed step (check-daemon-valgrind)
#   fuzz             fuzz.sh, a timed step (check-daemon-fuzz, fuzz)
# Exit status is non-zero when any test failed. Tests run even after a
# failure. The subset selector is ONLY (tests/lib/assert.sh), e.g.
# ONLY=daemon/security_test, ONLY='daemon/unit/test_plan daemon/cli_test'.
# Reads: MMBATCHD (daemon binary; suite, valgrind), MBD_UNIT_DIR (suite),
#        FUZZ_BIN, FUZZ_SECONDS (fuzz), TEST_STAGE, ONLY, OUT.
set -eu

usage() {
	echo "usage: MMBATCHD=BIN MBD_UNIT_DIR=DIR run.sh [suite]" >&2
	echo "       MMBATCHD=BIN run.sh valgrind" >&2
	echo "       FUZZ_BIN=BIN [FUZZ_SECONDS=N] run.sh fuzz" >&2
	exit 2
}
[ $# -le 1 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$here/../.." && pwd)
# The stage ONLY's STAGE/TEST words are matched against; when make does not
# name it, the one whose recipe runs this: daemon (SAN=1 daemon-san),
# daemon-valgrind, daemon-fuzz.
case ${1:-suite} in
suite) stage=daemon; [ "${SAN:-}" != 1 ] || stage=daemon-san ;;
*) stage=daemon-$1 ;;
esac
TEST_STAGE=${TEST_STAGE:-$stage}
export TOP TEST_STAGE
case ${1:-suite} in
suite)
	if [ -z "${MMBATCHD:-}" ] || [ ! -x "$MMBATCHD" ] || [ -z "${MBD_UNIT_DIR:-}" ]; then usage; fi
	export MMBATCHD
	exec "$TOP/tests/lib/run-suite.sh" "$TEST_STAGE" "$MBD_UNIT_DIR" "$here"
	;;
valgrind|fuzz)
	# shellcheck disable=SC2034 # read by tests/lib/assert.sh
	TEST_NAME=$TEST_STAGE
	# shellcheck source=../lib/assert.sh
	. "$TOP/tests/lib/assert.sh"
	step "$1" bash "$here/$1.sh"
	;;
*) usage ;;
esac
