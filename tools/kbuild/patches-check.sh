#!/bin/bash
# `make patches-check`: for every base under PATCHES_ROOT (patches/<base>/),
# dry-runs the series in order on a scratch copy of the files it touches and
# checks the MANIFEST claims. Prints one status line per patch (applied /
# FAILED) and per MANIFEST change: in-base changes must have every verify
# REGEX (grep -E) match its FILE in the pristine base ("already in base");
# patched changes must list a series patch and each verify REGEX must NOT
# match before the series and must match after it. Exit 1 on any failure,
# 2 on a malformed series or MANIFEST (FILE:LINE: message).
# Reads: PATCHES_ROOT (default TOP/patches), BASES (default: every
#        patches/<N.N>/ dir), OUT, TOP.
set -eu
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: [PATCHES_ROOT=dir] [BASES='6.1 6.12'] patches-check.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
[ -d "$PATCHES_ROOT" ] || kb_die "patches-check: $PATCHES_ROOT is not a directory"

bases=${BASES:-$(find "$PATCHES_ROOT" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | grep -E '^[0-9]+\.[0-9]+$' | sort -V)}
[ -n "$bases" ] || kb_die "patches-check: no base directories (e.g. 6.12/) under $PATCHES_ROOT"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

total_failed=0
summary=()
for base in $bases; do
	dir=$PATCHES_ROOT/$base
	BASE=$base SRC='' "$TOP/tools/kbuild/source.sh" >/dev/null
	(
		# shellcheck disable=SC2034 # read by kb_init
		BASE=$base SRC='' PATCHES=1 EXTRA_PATCHES=''
		kb_init
		tag="patches-check $base"
		failed=0 npatch=0 nchange=0
		work=$scratch/$base
		mkdir -p "$work"

		# Each patch, in series order, on a sparse scratch copy.
		names=() args=()
		while read -r name strip; do
			[ -n "$name" ] || continue
			names+=("$name"); args+=("$KB_SERIES_DIR/$name" "$strip")
		done <<<"$KB_SERIES_ENTRIES"
		[ -f "$KB_SERIES_FILE" ] || echo "$tag: no series file ($KB_SERIES_FILE absent): no patches"
		kb_sparse_copy "$KB_PRISTINE" "$work" ${args[@]+"${args[@]}"}
		for ((i = 0; i < ${#names[@]}; i++)); do
			npatch=$((npatch + 1))
			if msg=$(kb_apply_checked "$work" "${names[i]}" "${args[2*i]}" "${args[2*i+1]}" 2>&1); then
				echo "$tag: ${names[i]}: applied"
			else
				echo "$tag: ${names[i]}: FAILED"
				printf '%s\n' "$msg" | sed 's/^/  /'
				failed=$((failed + 1))
			fi
		done

		# The MANIFEST claims.
		manifest=$dir/MANIFEST
		if [ ! -f "$manifest" ]; then
			echo "$tag: no MANIFEST ($manifest absent): no changes to verify"
			[ ${#names[@]} -eq 0 ] || { echo "$tag: MANIFEST: FAILED: the series has patches but no MANIFEST describes them"; failed=$((failed + 1)); }
		else
			records=$(kb_parse_manifest "$manifest") || exit 2
			declare -A described=()
			while IFS=$'\037' read -r -a rec; do
				[ ${#rec[@]} -gt 0 ] || continue
				change=${rec[0]} status=${rec[1]} patch=${rec[2]} upstream=${rec[3]}
				nchange=$((nchange + 1))
				problems=()
				if [ "$status" = in-base ]; then
					for ((v = 4; v < ${#rec[@]}; v++)); do
						read -r vfile vre <<<"${rec[v]}"
						kb_verify_matches "$KB_PRISTINE" "$vfile" "$vre" ||
							problems+=("verify $vfile '$vre' does not match the pristine base")
					done
					what="in-base${upstream:+, upstream $upstream}"
					ok="already in base"
				else
					described[$patch]=1
					listed=0
					for n in ${names[@]+"${names[@]}"}; do [ "$n" = "$patch" ] && listed=1; done
					[ $listed = 1 ] || problems+=("patch $patch is not in $KB_SERIES_FILE")
					for ((v = 4; v < ${#rec[@]}; v++)); do
						read -r vfile vre <<<"${rec[v]}"
						! kb_verify_matches "$KB_PRISTINE" "$vfile" "$vre" ||
							problems+=("verify $vfile '$vre' already matches before the series")
						after=$KB_PRISTINE
						[ -e "$work/$vfile" ] && after=$work
						kb_verify_matches "$after" "$vfile" "$vre" ||
							problems+=("verify $vfile '$vre' does not match after the series")
					done
					what="patched by $patch"
					ok="patched ($(( ${#rec[@]} - 4 )) verify lines: absent before, present after)"
				fi
				if [ ${#problems[@]} -eq 0 ]; then
					echo "$tag: change $change ($what): $ok"
				else
					echo "$tag: change $change ($what): FAILED"
					printf '  %s\n' "${problems[@]}"
					failed=$((failed + 1))
				fi
			done <<<"$records"
			for n in ${names[@]+"${names[@]}"}; do
				[ -n "${described[$n]:-}" ] || echo "$tag: note: $n has no MANIFEST block"
			done
		fi
		echo "$tag: $npatch patches, $nchange changes, $failed FAILED (linux-$KB_KVERSION)"
		[ $failed -eq 0 ]
	) && summary+=("$base ok") || { rc=$?; [ $rc -ne 2 ] || exit 2; summary+=("$base FAILED"); total_failed=$((total_failed + 1)); }
done
echo "patches-check: ${summary[*]}"
[ $total_failed -eq 0 ]
