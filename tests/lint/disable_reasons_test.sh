#!/bin/bash
# Every `# shellcheck disable=` directive (a comment line of its own, the
# only place the tool reads one) in the repository's shell scripts says why
# on that line, after the codes: `# shellcheck disable=SC2154 #
# rc_out is set by capture`. A directive without a reason is one failed check,
# naming its file and line. Negative control first: a scratch script with a
# bare directive must fail the same function.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch

# bare FILE...: the directives without a reason, FILE:LINE: text.
bare() {
	awk '/^[ \t]*#[ \t]*shellcheck[ \t]+disable=/ {
		rest = $0
		sub(/^[ \t]*#[ \t]*shellcheck[ \t]+disable=[A-Za-z0-9,-]+[ \t]*/, "", rest)
		if (rest !~ /^#[ \t]*[^ \t]/) printf "%s:%d: %s\n", FILENAME, FNR, $0
	}' "$@"
}

echo "== negative control: a bare directive"
printf '#!/bin/bash\n# shellcheck disable=SC2034\nx=1\n# shellcheck disable=SC2034 # read by the caller\ny=1\n' >"$T/bare.sh"
expect_eq "a bare directive is found, the explained one is not" "$T/bare.sh:2: # shellcheck disable=SC2034" "$(bare "$T/bare.sh")"

echo "== every shellcheck disable directive says why"
mapfile -t files < <("$TOP/tools/lint/shell-files.sh")
n=$(cd "$TOP" && cat "${files[@]}" | grep -c '^[[:space:]]*#[[:space:]]*shellcheck[[:space:]]\+disable=' || true)
found=$(cd "$TOP" && bare "${files[@]}")
if [ -n "$found" ]; then
	while IFS= read -r line; do fail "a shellcheck directive without a reason: $line"; done <<<"$found"
else
	pass "the $n shellcheck disable directives each say why"
fi
