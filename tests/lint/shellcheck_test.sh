#!/bin/bash
# Runs shellcheck at severity warning over every shell script of the repository
# (tools/lint/shell-files.sh: *.sh and the shebang scripts without that
# name), from the top so that the `# shellcheck source=` paths resolve, with
# -x (sourced files are read): one check per script with a finding, its
# findings shown; one pass line when none has any. A script that cannot be
# linked to its sources is an info note (SC1091), below warning.
# Negative control first: a scratch script with an unused variable (SC2034)
# and an unquoted one in a test (SC2086 is info; SC2034 is a warning) must
# fail the same function.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
command -v shellcheck >/dev/null || { echo "ERROR: $TEST_NAME: shellcheck not installed (make deps-lint)" >&2; exit 2; }
scratch

# lint FILE...: shellcheck's warnings and errors, one line each
# (FILE:LINE:COL: SEVERITY: message [SCnnnn]); the status is shellcheck's
# (1: findings).
lint() { (cd "$TOP" && shellcheck -S warning -x -f gcc "$@"); }

echo "== negative control: a script with an unused variable"
printf '#!/bin/bash\nset -eu\nunused_name=1\n' >"$T/bad.sh"
rc=0; out=$(lint "$T/bad.sh" 2>&1) || rc=$?
expect_status "lint of a script with a warning" 1 "$rc"
expect_match "lint names the file, the line and the code" "^$(re_quote "$T/bad.sh"):3:1: warning: .*\[SC2034\]\$" "$out"

echo "== shellcheck -S warning over the repository's shell scripts"
mapfile -t files < <("$TOP/tools/lint/shell-files.sh")
expect_eq "shell scripts found (more than a handful: the listing works)" yes "$([ ${#files[@]} -gt 100 ] && echo yes || echo "no: ${#files[@]}")"
rc=0; lint "${files[@]}" >"$T/findings" 2>&1 || rc=$?
case $rc in 0 | 1) ;; *) fail "shellcheck itself failed (exit $rc): $(head -n 3 "$T/findings")" ;; esac
bad=0
while IFS= read -r f; do
	# The file's own lines, by an exact compare of the first field (a
	# path is no pattern).
	lines=$(awk -F: -v f="$f" '$1 == f' "$T/findings")
	fail "shellcheck -S warning: $f: $(grep -c '' <<<"$lines") finding(s):
$(sed 's/^/    /' <<<"$lines")"
	bad=1
done < <(cut -d: -f1 "$T/findings" | grep -v '^$' | LC_ALL=C sort -u)
if [ $bad = 0 ] && [ "$rc" = 0 ]; then
	pass "shellcheck -S warning: the ${#files[@]} shell scripts have no finding"
elif [ $bad = 0 ] && [ "$rc" = 1 ]; then
	fail "shellcheck -S warning exited 1 but named no file: $(head -n 3 "$T/findings")"
fi
