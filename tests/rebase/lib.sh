# shellcheck shell=bash
# Fixture helpers for the rebase-check tests (sourced, after
# tests/lib/assert.sh, whose assertions the tests use).

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
		if [ ! -f "$pristine/$f" ] || [ -e "$dir/$f" ]; then continue; fi
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
