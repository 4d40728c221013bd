# shellcheck shell=bash
# Assertions for the pipeline tests (sourced). Each prints what it expected
# and what it got; a failed assertion counts, the test goes on, and
# test_summary exits non-zero when any failed.
T_FAILED=0 T_PASSED=0

pass() { T_PASSED=$((T_PASSED + 1)); echo "  ok: $*"; }
fail() { T_FAILED=$((T_FAILED + 1)); echo "  FAIL: $*"; }

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
	if [ "$2" = "$3" ]; then pass "$1 = '$3'"; else fail "$1: expected '$2', got '$3'"; fi
}

# assert_line WHAT FILE LINE: FILE has LINE exactly (whole line).
assert_line() {
	if grep -Fxq -- "$3" "$2"; then pass "$1: has line '$3'"
	else fail "$1: expected the line '$3' in $2; it has:"; sed 's/^/      | /' "$2" | tail -n 25; fi
}

# assert_contains WHAT FILE TEXT: some line of FILE contains TEXT.
assert_contains() {
	if grep -Fq -- "$3" "$2"; then pass "$1: mentions '$3'"
	else fail "$1: expected '$3' in $2; it has:"; sed 's/^/      | /' "$2" | tail -n 25; fi
}

# assert_status WHAT EXPECTED ACTUAL: exit status, 'nonzero' accepted.
assert_status() {
	if [ "$2" = nonzero ] && [ "$3" -ne 0 ]; then pass "$1 exit status $3 (non-zero)"
	elif [ "$2" = "$3" ]; then pass "$1 exit status $3"
	else fail "$1: expected exit status $2, got $3"; fi
}

# tree_sum DIR: content checksum of a whole tree (names, modes, bytes).
tree_sum() {
	(cd "$1" && find . -type f -printf '%p %m\n' | LC_ALL=C sort | sha256sum | cut -c1-16
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 cat | sha256sum | cut -c1-16) | tr '\n' ' '
}

test_summary() {
	echo "pipeline tests: $T_PASSED passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
}
