# shellcheck shell=bash
# Shared assertions for the package tests (tests/packages/*_test.sh). Sourced.
# Each assertion prints what it checked, and on failure the expected and the
# actual value; t_done ends a test with a summary and its exit status.

T_FAILS=0
T_PASSES=0
T_NAME=$(basename "$0" .sh)

t_pass() { T_PASSES=$((T_PASSES + 1)); echo "  ok   $*"; }
t_fail() { T_FAILS=$((T_FAILS + 1)); echo "  FAIL $*"; }

# t_eq WHAT EXPECTED ACTUAL
t_eq() {
	if [ "$2" = "$3" ]; then
		t_pass "$1 = '$3'"
	else
		t_fail "$1: expected '$2', got '$3'"
	fi
}

# t_has WHAT LIST ITEM: ITEM is one of LIST's lines (exact match).
t_has() {
	local line
	while IFS= read -r line; do
		if [ "$line" = "$3" ]; then
			t_pass "$1 has '$3'"
			return 0
		fi
	done <<<"$2"
	t_fail "$1: expected a line '$3', not among the $(printf '%s\n' "$2" | grep -c .) lines"
}

# t_lacks WHAT LIST REGEX: no line of LIST matches REGEX (grep -E).
t_lacks() {
	local hits
	hits=$(printf '%s\n' "$2" | grep -E -- "$3" || true)
	if [ -z "$hits" ]; then
		t_pass "$1 has nothing matching /$3/"
	else
		t_fail "$1: expected nothing matching /$3/, got: $(echo "$hits" | head -n 5 | tr '\n' ' ')"
	fi
}

# t_match WHAT TEXT REGEX: some line of TEXT matches REGEX (grep -E).
t_match() {
	local hits
	hits=$(printf '%s\n' "$2" | grep -E -- "$3" || true)
	if [ -n "$hits" ]; then
		t_pass "$1 matches /$3/"
	else
		t_fail "$1: expected a line matching /$3/, got: $(printf '%s\n' "$2" | head -n 5 | tr '\n' ' ')"
	fi
}

# t_file WHAT PATH: PATH exists and is not empty.
t_file() {
	if [ -s "$2" ]; then
		t_pass "$1: $2 exists ($(du -k "$2" | cut -f1) KiB)"
	else
		t_fail "$1: expected a non-empty file $2, $( [ -e "$2" ] && echo "it is empty" || echo "it does not exist")"
	fi
}

# t_exists WHAT PATH: PATH exists (may be empty).
t_exists() {
	if [ -e "$2" ]; then
		t_pass "$1: $2 exists"
	else
		t_fail "$1: expected $2 to exist, it does not"
	fi
}

# t_nofile WHAT PATH: PATH does not exist.
t_nofile() {
	if [ -e "$2" ] || [ -L "$2" ]; then
		t_fail "$1: expected $2 to be gone, it exists"
	else
		t_pass "$1: $2 absent"
	fi
}

# t_re STRING: STRING as a literal extended regex.
t_re() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'; }

t_done() {
	echo "$T_NAME: $T_PASSES passed, $T_FAILS failed"
	[ "$T_FAILS" -eq 0 ]
}
