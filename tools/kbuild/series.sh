#!/bin/bash
# Stage 2 (series): makes the patched tree out/tree/<srcid>-<variant>/ (with
# EXTRA_PATCHES: out/x/x<sha8>[-vanilla]/tree/<srcid>-mmbatch/, lib.sh says
# why)
# from the pristine source and prints its path. The whole series (then
# EXTRA_PATCHES) is first dry-run, patch by patch, on a scratch copy of just the
# files it touches; any failure prints `series: PATCH: hunk N FAILED at
# FILE:LINE` and exits 1 with the pristine source and any existing tree
# untouched. Then a fresh copy of pristine gets the series and is renamed into
# place. The tree is reused while the series content hash (stamp) is unchanged.
# The files the patches touch are dated against the tree's previous version,
# or, for a tree with EXTRA_PATCHES made for the first time, against the tree
# without them: a file as it was keeps its date, one that differs is dated
# now (step 2 says why).
# Reads: BASE, SRC, PATCHES (0 = vanilla: no series), EXTRA_PATCHES,
#        PATCHES_ROOT (default TOP/patches), OUT, TOP.
set -eu
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: [BASE=..] [PATCHES=0] [EXTRA_PATCHES='a.patch ..'] series.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage

kb_init
stamp=$KB_TREE/.mmbatch-tree

# The patches to apply, as "NAME PATH STRIP" lines.
plan=()
if [ "$KB_VARIANT" = vanilla ]; then
	kb_note "series: PATCHES=0: vanilla tree, series not applied"
elif [ ! -f "$KB_SERIES_FILE" ]; then
	kb_note "series: $KB_SERIES_FILE absent: no patches"
else
	while read -r name strip; do
		[ -n "$name" ] && plan+=("$name" "$KB_SERIES_DIR/$name" "$strip")
	done <<<"$KB_SERIES_ENTRIES"
	[ ${#plan[@]} -gt 0 ] || kb_note "series: $KB_SERIES_FILE lists no patches"
fi
for x in ${EXTRA_PATCHES:-}; do
	plan+=("$(basename "$x")" "$(realpath "$x")" 1)
done

is_current() { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$KB_TREE_HASH" ]; }
# Up to date: no lock needed (builds hold a shared lock on the tree for hours).
# Otherwise wait until no build reads the tree, then check again.
is_current || kb_lock "$KB_TREE.lock"
if is_current; then
	echo "series: $KB_TREE (up to date, $(( ${#plan[@]} / 3 )) patches)" >&2
	echo "$KB_TREE"
	exit 0
fi

mkdir -p "$(dirname "$KB_TREE")"
scratch=$(mktemp -d "$(dirname "$KB_TREE")/.series.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
t0=$SECONDS

# 1. Dry run of the whole series on a sparse copy (pristine is only read).
args=()
for ((i = 0; i < ${#plan[@]}; i += 3)); do args+=("${plan[i+1]}" "${plan[i+2]}"); done
mkdir "$scratch/check"
kb_sparse_copy "$KB_PRISTINE" "$scratch/check" ${args[@]+"${args[@]}"}
failed=0
for ((i = 0; i < ${#plan[@]}; i += 3)); do
	kb_apply_checked "$scratch/check" "${plan[i]}" "${plan[i+1]}" "${plan[i+2]}" || failed=$((failed + 1))
done
[ $failed -eq 0 ] || kb_die "series: $failed of $(( ${#plan[@]} / 3 )) patches do not apply to linux-$KB_KVERSION; nothing changed"

# 2. Fresh full copy, the series applied for real, renamed into place.
cp -a --reflink=auto "$KB_PRISTINE" "$scratch/tree"
for ((i = 0; i < ${#plan[@]}; i += 3)); do
	kb_apply_checked "$scratch/tree" "${plan[i]}" "${plan[i+1]}" "${plan[i+2]}" ||
		kb_die "series: ${plan[i]} passed the dry run but not on the full tree"
	echo "series: ${plan[i]}: applied" >&2
done
# Dates of the files this or the previous series touched, against the
# previous tree (whose build dirs kbuild compares with): unchanged content
# keeps its old date, so a new patch does not make kbuild recompile every
# includer of a header another patch touched; changed content is dated now,
# also where a dropped patch brings back the older pristine file.
for ((i = 0; i < ${#plan[@]}; i += 3)); do
	kb_patch_files "${plan[i+1]}" "${plan[i+2]}"
done | sort -u >"$scratch/tree/.mmbatch-files"
# date_against REF: those dates, against the tree REF.
date_against() {
	while IFS= read -r f; do
		[ -f "$scratch/tree/$f" ] || continue
		if [ -f "$1/$f" ] && cmp -s "$scratch/tree/$f" "$1/$f"; then
			touch -r "$1/$f" "$scratch/tree/$f"
		else
			touch "$scratch/tree/$f"
		fi
	done
}
if [ -f "$KB_TREE/.mmbatch-tree" ]; then
	cat "$scratch/tree/.mmbatch-files" "$KB_TREE/.mmbatch-files" 2>/dev/null | sort -u | date_against "$KB_TREE"
elif [ -n "$KB_PLAIN_TREE" ]; then
	# A tree with EXTRA_PATCHES made for the first time: against the tree
	# without them (lib.sh KB_PLAIN_TREE) when it is there and current,
	# whose build a new build dir of this tree may start as a copy of
	# (config.sh KB_SEED_FROM): the series' files keep that tree's dates,
	# so kbuild there compiles only the includers of what the extra
	# patches change. Under its lock: series.sh may be replacing it.
	kb_lock "$KB_PLAIN_TREE.lock" -s
	if [ "$(cat "$KB_PLAIN_TREE/.mmbatch-tree" 2>/dev/null)" = "$KB_PLAIN_TREE_HASH" ]; then
		date_against "$KB_PLAIN_TREE" <"$scratch/tree/.mmbatch-files"
	fi
fi
echo "$KB_TREE_HASH" >"$scratch/tree/.mmbatch-tree"
if [ -e "$KB_TREE" ]; then mv "$KB_TREE" "$scratch/old"; fi
mv "$scratch/tree" "$KB_TREE"
echo "series: $KB_TREE ready ($(( ${#plan[@]} / 3 )) patches) in $((SECONDS - t0)) s" >&2
echo "$KB_TREE"
