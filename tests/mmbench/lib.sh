# Shared helpers for tests/mmbench/*_test.sh (sourced, not run).
#
# setup              makes $T, a temp dir removed on exit
# run_cmd NAME CMD.. runs CMD, keeps stdout/stderr in $T/NAME.out/.err and
#                    the exit status in $RC
# expect_eq WHAT EXPECTED ACTUAL   assertion that prints both values
# expect_match WHAT REGEX FILE     grep -E on a file (no pipes), prints the file on failure
# expect_lines WHAT N FILE         FILE has exactly N lines
# schema_ok WHAT FILE [ARGS]       tests/mmbench/check_schema.py accepts FILE
# memory_nodes       number of NUMA nodes with memory on this machine
# Reads: MMBENCH (binary under test), TOP (repo).
set -eu

: "${MMBENCH:?MMBENCH must name the mmbench binary}"
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"

setup() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/mmbench-test.XXXXXX")
}

run_cmd() {
	local name=$1; shift
	set +e
	"$@" > "$T/$name.out" 2> "$T/$name.err"
	RC=$?
	set -e
}

expect_match() {
	if grep -Eq -- "$2" "$3"; then
		pass "$1 (/$2/)"
	else
		fail "$1: expected /$2/ in $(basename "$3"), which holds:"; sed 's/^/      | /' "$3" >&2
	fi
}

expect_lines() {
	local n
	n=$(wc -l < "$3")
	if [ "$n" -eq "$2" ]; then pass "$1: $n line(s)"; else
		fail "$1: expected $2 line(s), got $n:"; sed 's/^/      | /' "$3" >&2
	fi
}

schema_ok() {
	local what=$1 file=$2; shift 2
	if python3 "$TOP/tests/mmbench/check_schema.py" "$file" "$@" > "$T/schema.log" 2>&1; then
		pass "$what: schema-valid"
	else
		fail "$what: schema check failed:"; sed 's/^/      | /' "$T/schema.log" >&2
	fi
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
