# shellcheck shell=bash
# Shared fixtures for tests/mmbench/*_test.sh (sourced, not run); the
# assertions are tests/lib/assert.sh's, sourced here.
#
# setup              makes $T, a scratch dir removed on exit
# run_cmd NAME CMD.. runs CMD, keeps stdout/stderr in $T/NAME.out/.err and
#                    the exit status in $RC (for expect_* ... "@$T/NAME.out")
# schema_ok WHAT FILE [ARGS]   expect_ok of tests/mmbench/check_schema.py
#                    FILE ARGS (the document is valid mmbench/1)
# memory_nodes       number of NUMA nodes with memory on this machine
# Reads: MMBENCH (binary under test), TOP (repo).
set -eu

: "${MMBENCH:?MMBENCH must name the mmbench binary}"
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"

# Under $OUT/test-tmp: the smoke test hands mmbatchd profiles from here.
setup() { scratch; }

run_cmd() {
	local name=$1; shift
	# shellcheck disable=SC2034 # RC is read by the tests
	{ RC=0; "$@" > "$T/$name.out" 2> "$T/$name.err" || RC=$?; }
}

schema_ok() {
	local what=$1 file=$2 rc=0
	shift 2
	python3 "$TOP/tests/mmbench/check_schema.py" "$file" "$@" > "$T/schema.log" 2>&1 || rc=$?
	expect_ok "$what: schema-valid" "$rc" "@$T/schema.log"
}

memory_nodes() {
	local list
	list=$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0)
	python3 -c 'import sys
n=0
for part in sys.argv[1].split(","):
    a,_,b=part.partition("-")
    n+=int(b or a)-int(a)+1
print(n)' "$list"
}

# bad_input WHAT REGEX ARGS...: mmbench ARGS fails as bad input does: exit 2,
# one stderr line matching REGEX (naming the option), no document.
bad_input() {
	local what=$1 regex=$2; shift 2
	run_cmd bad "$@"
	expect_eq "$what: exit" 2 "$RC"
	expect_lines "$what: stderr" 1 "@$T/bad.err"
	expect_match "$what: message" "$regex" "@$T/bad.err"
}
