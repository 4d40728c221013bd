# shellcheck shell=bash
# Assertions and fixture helpers for the rebase-check tests (sourced). Each
# assertion prints what it expected and what it got; a failed assertion
# counts, the test goes on, and test_summary exits non-zero when any failed.
# pass/fail, assert_eq, assert_line, assert_contains and assert_status are
# the pipeline tests' (one assertion library); tree_sum and test_summary below
# replace theirs (this checksum also covers dates and directories).
# shellcheck source=../pipeline/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../pipeline/lib.sh"

# assert_no_line WHAT FILE LINE: FILE does not have LINE.
assert_no_line() {
	if grep -Fxq -- "$3" "$2"; then fail "$1: did not expect the line '$3' in $2"
	else pass "$1: no line '$3'"; fi
}

# tree_sum DIR: checksum of a whole tree (names, modes, bytes, dates).
tree_sum() {
	(cd "$1" && find . -printf '%p %m %T@\n' | LC_ALL=C sort | sha256sum | cut -c1-16
	 find . -type f -print0 | LC_ALL=C sort -z | xargs -0 cat | sha256sum | cut -c1-16) | tr '\n' ' '
}

# make_fixture PRISTINE DIR SUBLEVEL: a small fake tree for the series in
# SERIES_DIR (base FIXTURE_BASE): only the files its patches touch and its
# MANIFEST verify files, copied from PRISTINE, and a Makefile with
# VERSION/PATCHLEVEL/SUBLEVEL.
make_fixture() {
	local pristine=$1 dir=$2 sub=$3 name strip f args=()
	mkdir -p "$dir"
	while read -r name strip; do
		[ -n "$name" ] && args+=("$SERIES_DIR/$name" "$strip")
	done < <(kb_series_entries "$SERIES_DIR")
	kb_sparse_copy "$pristine" "$dir" "${args[@]}"
	while read -r f; do
		[ -f "$pristine/$f" ] && [ ! -e "$dir/$f" ] || continue
		mkdir -p "$dir/$(dirname "$f")"; cp -p "$pristine/$f" "$dir/$f"
	done < <(sed -n 's/^verify:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$SERIES_DIR/MANIFEST")
	local v=${FIXTURE_BASE%%.*} p=${FIXTURE_BASE#*.}
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\nNAME = rebase fixture\n' "$v" "$p" "$sub" >"$dir/Makefile"
}

# edit_line FILE OLD NEW: replace the whole line OLD (exactly once) by NEW.
edit_line() {
	local n
	n=$(grep -cFx -- "$2" "$1" || true)
	[ "$n" = 1 ] || { echo "ERROR: fixture: expected the line '$2' once in $1, found $n" >&2; exit 1; }
	OLD=$2 NEW=$3 awk '$0 == ENVIRON["OLD"] { print ENVIRON["NEW"]; next } { print }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

# hunk_start PATCH FILE N: the old-file start line of hunk N of FILE in PATCH
# (so the expected FILE:LINE follows the series when it is refreshed).
hunk_start() {
	awk -v f="$2" -v n="$3" '
		/^\+\+\+ / { cur = $2; sub(/^b\//, "", cur); h = 0; next }
		/^@@ / && cur == f && ++h == n { split($2, a, ","); sub(/^-/, "", a[1]); print a[1]; exit }' "$1"
}

test_summary() {
	echo "rebase tests: $T_PASSED passed, $T_FAILED failed"
	[ "$T_FAILED" -eq 0 ]
}
