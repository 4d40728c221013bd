#!/bin/bash
# `make rebase-check NEW_SRC=...`: checks the patch series of a base against a
# newer (or any other) Debian source release of the same base, the way a
# maintainer does on each Debian stable update, and writes
# out/rebase/<version>/REPORT.md (<version>: the Debian version when NEW_SRC
# names a package or a .deb, else the kernel version of the new tree).
#
#  1. Every patch of patches/<base>/series (base read from the new tree's
#     Makefile), in order, on a scratch copy of the files it touches:
#     `applied` (clean), `fuzz` (applies only with offsets or fuzz: which
#     hunks, by how many lines) or `FAILED` (hunk N FAILED at FILE:LINE).
#     A failed patch is left out and the next ones go on.
#  2. The MANIFEST's verify lines against the new tree: in-base claims must
#     still match the new base; patched claims must not match before the
#     series and must match after it.
#  3. When the series applies the way the pipeline applies it (--fuzz=0,
#     offsets allowed), the guest flavor is built through the normal pipeline,
#     what `make kernel SRC=<new source> FLAVOR=guest` runs: the stage scripts
#     source, series, config and build with SRC=<new source> FLAVOR=guest
#     PATCHES=1 (REBASE_BUILD=0: skipped); the result (release, bzImage) is
#     read from the build's identity file, by path (KB_IDENTITY_OUT), and the
#     report names that file.
# The new source is only read: patches go to scratch copies.
#
# NEW_SRC: a kernel tarball, an unpacked tree or a git tree (as SRC), a
# Debian package PKG=VERSION (e.g. linux-source-6.12=6.12.115-2~deb12u1,
# fetched with apt-get download once, cached under out/cache/rebase/), or a
# linux-source-*.deb file (unpacked once into out/cache/rebase/).
# Exit: 0 all patches apply (fuzz included) and every claim holds and the
# build (if run) passed; 1 a patch FAILED, a claim broke or the build failed;
# 2 bad input.
# Reads: NEW_SRC, REBASE_BUILD (default 1), REBASE_FUZZ (default 2: the fuzz
#        factor tried when a patch does not apply with --fuzz=0),
#        PATCHES_ROOT (default TOP/patches), OUT, TOP, REBASE_KBUILD (the dir
#        of the stage scripts, default this script's; a test hook).
set -eu
. "$(dirname "$0")/lib.sh"
kbuild=${REBASE_KBUILD:-$(dirname "$0")}

usage() {
	echo "usage: NEW_SRC=tarball|tree|linux-source-X.Y=VERSION|file.deb [REBASE_BUILD=0|1] [REBASE_FUZZ=N] rebase-check.sh" >&2
	exit 2
}
bad() { echo "ERROR: rebase-check: $*" >&2; exit 2; }
[ $# -eq 0 ] || usage
[ -n "${NEW_SRC:-}" ] || { echo "ERROR: rebase-check: NEW_SRC is not set" >&2; usage; }
case "${REBASE_BUILD:-1}" in 0|1) ;; *) bad "REBASE_BUILD='$REBASE_BUILD': expected 0 or 1" ;; esac
fuzz_max=${REBASE_FUZZ:-2}
[[ "$fuzz_max" =~ ^[0-9]$ ]] || bad "REBASE_FUZZ='$fuzz_max': expected a fuzz factor 0..9"
[ -d "$PATCHES_ROOT" ] || bad "$PATCHES_ROOT is not a directory (PATCHES_ROOT)"
export LC_ALL=C

scratch=$(mktemp -d)
cache=$OUT/cache/rebase
fetch_tmp='' unpack_tmp=''
trap 'rm -rf "$scratch" ${fetch_tmp:+"$fetch_tmp"} ${unpack_tmp:+"$unpack_tmp"}' EXIT

# lock FILE / unlock: a short exclusive section (fetching into the cache,
# replacing a report), so two runs for the same release wait for each other.
lock() { mkdir -p "$(dirname "$1")"; exec {lock_fd}>"$1"; flock "$lock_fd"; }
unlock() { exec {lock_fd}>&-; }

# unpack_deb DEB DEST: the linux-source tarball of DEB, alone, into DEST
# (made whole in a temporary dir under the cache, then renamed into place).
unpack_deb() {
	local deb=$1 dest=$2 tmp tars
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.unpack.XXXXXX")
	unpack_tmp=$tmp
	dpkg-deb -x "$deb" "$tmp/x" || bad "$deb: dpkg-deb -x failed"
	mapfile -t tars < <(find "$tmp/x/usr/src" -maxdepth 1 -name 'linux-source-*.tar*' -type f 2>/dev/null)
	[ ${#tars[@]} -eq 1 ] || bad "$deb: expected one usr/src/linux-source-*.tar* inside, found ${#tars[@]}"
	mv "${tars[0]}" "$tmp/"
	rm -rf "$tmp/x"
	rm -rf "$dest"
	mv -T "$tmp" "$dest"
	unpack_tmp=''
}

# resolve_new_src: sets src (tarball or tree for SRC=), src_label (how the
# report names it) and deb_version (empty unless a package or .deb).
deb_version=
if [[ "$NEW_SRC" =~ ^(linux-source-[0-9]+\.[0-9]+)=([0-9][0-9A-Za-z.+~:-]*)$ ]]; then
	pkg=${BASH_REMATCH[1]} deb_version=${BASH_REMATCH[2]}
	dest=$cache/${pkg}_${deb_version//:/%}
	lock "$dest.lock"
	if [ ! -d "$dest" ]; then
		echo "rebase-check: fetching $pkg=$deb_version (apt-get download)"
		mkdir -p "$cache"
		fetch_tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
		if ! (cd "$fetch_tmp" && apt-get download "$pkg=$deb_version") >"$scratch/fetch.log" 2>&1; then
			err=$(grep -E '^E: ' "$scratch/fetch.log" | head -n1)
			bad "NEW_SRC='$NEW_SRC': apt-get download failed: ${err:-$(tail -n1 "$scratch/fetch.log")}"
		fi
		deb=$(find "$fetch_tmp" -maxdepth 1 -name '*.deb' | head -n1)
		[ -n "$deb" ] || bad "NEW_SRC='$NEW_SRC': apt-get download left no .deb"
		unpack_deb "$deb" "$dest"
		rm -rf "$fetch_tmp"
		fetch_tmp=''
	fi
	unlock
	src=$(find "$dest" -maxdepth 1 -name 'linux-source-*.tar*' -type f | head -n1)
	[ -n "$src" ] || bad "$dest: no linux-source tarball in the cache (remove the directory to fetch again)"
	src_label="$pkg=$deb_version"
elif [[ "$NEW_SRC" == *.deb ]]; then
	[ -f "$NEW_SRC" ] || bad "NEW_SRC='$NEW_SRC': no such file"
	pkg=$(dpkg-deb -f "$NEW_SRC" Package 2>/dev/null) || bad "NEW_SRC='$NEW_SRC': not a Debian package"
	[[ "$pkg" == linux-source-* ]] || bad "NEW_SRC='$NEW_SRC': package '$pkg' is not a linux-source-* package"
	deb_version=$(dpkg-deb -f "$NEW_SRC" Version)
	dest=$cache/${pkg}_${deb_version//:/%}_$(kb_sha <"$NEW_SRC" | cut -c1-8)
	lock "$dest.lock"
	[ -d "$dest" ] || unpack_deb "$NEW_SRC" "$dest"
	unlock
	src=$(find "$dest" -maxdepth 1 -name 'linux-source-*.tar*' -type f | head -n1)
	src_label="$pkg=$deb_version ($(basename "$NEW_SRC"))"
else
	[ -e "$NEW_SRC" ] || bad "NEW_SRC='$NEW_SRC' does not exist (expected a tarball, a tree, PKG=VERSION or a .deb)"
	src=$(realpath "$NEW_SRC")
	src_label=$NEW_SRC
fi

# The new tree, read only: an unpacked/git tree as it is; from a tarball only
# the files the check reads (the Makefile, every base's patched files and
# MANIFEST verify files), in one pass.
if [ -d "$src" ]; then
	new=$src
	[ -f "$new/Makefile" ] || bad "NEW_SRC='$NEW_SRC': no Makefile at the top of the tree"
else
	top=$(tar -tf "$src" 2>/dev/null | head -n1) || true
	top=${top%%/*}
	[ -n "$top" ] || bad "NEW_SRC='$NEW_SRC': $src is not a readable tarball"
	want=(Makefile)
	for d in "$PATCHES_ROOT"/*/; do
		[ -d "$d" ] || continue
		while read -r name strip; do
			[ -n "$name" ] && mapfile -t -O "${#want[@]}" want < <(kb_patch_files "$d/$name" "$strip")
		done < <(kb_series_entries "${d%/}")
		[ -f "$d/MANIFEST" ] && mapfile -t -O "${#want[@]}" want < <(sed -n 's/^verify:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$d/MANIFEST")
	done
	mapfile -t want < <(printf '%s\n' "${want[@]}" | grep -v -e '^/' -e '\.\.' | sort -u)
	new=$scratch/new
	mkdir "$new"
	echo "rebase-check: reading ${#want[@]} files from $src"
	# Files the series creates are not in the tarball: tar names them as not
	# found, which is expected; any other complaint is an error.
	tar -xf "$src" -C "$new" --strip-components=1 "${want[@]/#/$top/}" 2>"$scratch/tar.err" || true
	if grep -v -e 'Not found in archive$' -e 'Exiting with failure status due to previous errors$' "$scratch/tar.err" >&2; then
		bad "NEW_SRC='$NEW_SRC': cannot unpack $src"
	fi
	[ -f "$new/Makefile" ] || bad "NEW_SRC='$NEW_SRC': $src has no $top/Makefile (not a kernel tarball?)"
fi

kversion=$(kb_kversion "$new")
base=$(echo "$kversion" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
series_dir=$PATCHES_ROOT/$base
[ -d "$series_dir" ] || bad "NEW_SRC is linux-$kversion, but there is no series for base $base ($series_dir absent)"
entries=$(kb_series_entries "$series_dir") || exit 2
records=
if [ -f "$series_dir/MANIFEST" ]; then
	records=$(kb_parse_manifest "$series_dir/MANIFEST") || exit 2
fi
series_version=$(kb_series_version "$series_dir")
label=${deb_version:-$kversion}
label=${label//[^0-9A-Za-z.+~_-]/_}
report_dir=$OUT/rebase/$label
rel() { case "$1" in "$TOP"/*) echo "${1#"$TOP"/}" ;; *) echo "$1" ;; esac; }
tag="rebase-check $kversion"
echo "$tag: series $(rel "$series_dir") (version $series_version) on $src_label"

# hunk_notes OUTPUT: GNU patch's "Hunk #N succeeded at L with fuzz F (offset
# K lines)." lines as "hunk N at FILE:L: fuzz F, offset +K lines" (only hunks
# that needed fuzz or moved).
hunk_notes() {
	printf '%s\n' "$1" | awk '
		/^checking file / { file = substr($0, 15); sub(/^'\''|'\''$/, "", file) }
		/^Hunk #[0-9]+ succeeded at [0-9]+/ {
			h = $2; sub(/#/, "", h); l = $5; sub(/[^0-9].*/, "", l); what = ""
			if (match($0, /with fuzz [0-9]+/)) what = "fuzz " substr($0, RSTART + 10, RLENGTH - 10)
			if (match($0, /offset -?[0-9]+ line/)) {
				k = substr($0, RSTART + 7, RLENGTH - 12); if (k !~ /^-/) k = "+" k
				what = what (what == "" ? "" : ", ") "offset " k " lines"
			}
			if (what != "") printf "hunk %s at %s:%s: %s\n", h, file, l, what
		}'
}

# try_patch FUZZ NAME FILE STRIP: dry run in the work copy; sets out and rc.
try_patch() {
	rc=0
	out=$(patch -d "$work" -p"$4" --dry-run --forward --fuzz="$1" --no-backup-if-mismatch <"$3" 2>&1) || rc=$?
}

# refresh_patch PATCH STRIP BEFORE OUT: PATCH's description (up to its "---"
# line) followed by a fresh -p1 diff of its files, BEFORE (their state before
# PATCH) against the work copy (after it): a patch that applies to the new
# tree without fuzz or offsets.
refresh_patch() {
	local patchf=$1 strip=$2 before=$3 f a b
	{
		awk '/^---$/ || /^diff / || /^--- [^ ]/ { exit } { print }' "$patchf"
		echo "---"
		while IFS= read -r f; do
			a=$before/$f b=$work/$f la=a/$f lb=b/$f
			[ -e "$a" ] || { a=/dev/null la=/dev/null; }
			[ -e "$b" ] || { b=/dev/null lb=/dev/null; }
			diff -up --label "$la" --label "$lb" "$a" "$b" || [ $? -eq 1 ]
		done < <(kb_patch_files "$patchf" "$strip")
	} >"$4"
}

# 1. The series, patch by patch, on a sparse copy of the new tree.
work=$scratch/work
mkdir "$work"
names=() args=()
while read -r name strip; do
	[ -n "$name" ] || continue
	names+=("$name"); args+=("$series_dir/$name" "$strip")
done <<<"$entries"
[ -f "$series_dir/series" ] || echo "$tag: no series file ($series_dir/series absent): no patches"
kb_sparse_copy "$new" "$work" ${args[@]+"${args[@]}"}
mkdir "$scratch/refreshed"

n_applied=0 n_fuzz=0 n_failed=0 needs_fuzz=0 failed_set=''
patch_rows=() sep=$'\037'
for ((i = 0; i < ${#names[@]}; i++)); do
	name=${names[i]} file=${args[2*i]} strip=${args[2*i+1]}
	try_patch 0 "$name" "$file" "$strip"
	level=0
	if [ $rc -ne 0 ] && [ "$fuzz_max" -gt 0 ]; then
		try_patch "$fuzz_max" "$name" "$file" "$strip"
		level=$fuzz_max
	fi
	if [ $rc -ne 0 ]; then
		# The hunks that fail even with fuzz, worded as `make series` words
		# them; the patch is left out and the next ones go on.
		details=$(kb_patch_failures "$name" "$out")
		notes=$(hunk_notes "$out")
		echo "$tag: $name: FAILED"
		printf '%s\n' "$details" ${notes:+"$notes"} | sed 's/^/  /'
		n_failed=$((n_failed + 1)) failed_set+=" $name "
		patch_rows+=("$name${sep}FAILED${sep}$(printf '%s\n' "$details" | sed "s/^series: $name: //"; printf '%s' "$notes")")
		continue
	fi
	rm -rf "$scratch/before"
	mkdir "$scratch/before"
	kb_sparse_copy "$work" "$scratch/before" "$file" "$strip"
	patch -d "$work" -p"$strip" --forward --fuzz="$level" --no-backup-if-mismatch -s <"$file" >/dev/null ||
		kb_die "rebase-check: $name: dry run passed but applying failed in $work"
	notes=$(hunk_notes "$out")
	if [ -z "$notes" ]; then
		echo "$tag: $name: applied"
		n_applied=$((n_applied + 1))
		patch_rows+=("$name${sep}applied${sep}")
	else
		echo "$tag: $name: fuzz"
		printf '%s\n' "$notes" | sed 's/^/  /'
		n_fuzz=$((n_fuzz + 1))
		if [ "$level" -gt 0 ]; then needs_fuzz=$((needs_fuzz + 1)); fi
		refresh_patch "$file" "$strip" "$scratch/before" "$scratch/refreshed/$name"
		echo "  refreshed: refreshed/$name (applies to linux-$kversion without fuzz or offsets)"
		patch_rows+=("$name${sep}fuzz${sep}$notes")
	fi
done

# 2. The MANIFEST claims against the new base (before) and the work copy
# with the series applied (after).
n_claims=0 n_broken=0
claim_rows=()
[ -f "$series_dir/MANIFEST" ] || echo "$tag: no MANIFEST ($series_dir/MANIFEST absent): no claims to check"
while IFS=$'\037' read -r -a rec; do
	[ ${#rec[@]} -gt 0 ] || continue
	change=${rec[0]} status=${rec[1]} patch=${rec[2]}
	n_claims=$((n_claims + 1))
	problems=()
	for ((v = 4; v < ${#rec[@]}; v++)); do
		read -r vfile vre <<<"${rec[v]}"
		if [ "$status" = in-base ]; then
			kb_verify_matches "$new" "$vfile" "$vre" ||
				problems+=("verify $vfile '$vre' no longer matches the new base")
		else
			! kb_verify_matches "$new" "$vfile" "$vre" ||
				problems+=("verify $vfile '$vre' already matches the new base before the series (landed upstream or in Debian?)")
			after=$new
			[ -e "$work/$vfile" ] && after=$work
			kb_verify_matches "$after" "$vfile" "$vre" ||
				problems+=("verify $vfile '$vre' does not match after the series")
		fi
	done
	nv=$(( ${#rec[@]} - 4 ))
	what=$status${patch:+ by $patch}
	if [ ${#problems[@]} -eq 0 ]; then
		echo "$tag: change $change ($what): holds ($nv verify lines)"
		claim_rows+=("$change${sep}$status${sep}holds${sep}$nv verify lines")
	else
		[[ "$failed_set" != *" $patch "* ]] || problems=("its patch FAILED to apply" "${problems[@]}")
		echo "$tag: change $change ($what): BROKEN"
		printf '  %s\n' "${problems[@]}"
		n_broken=$((n_broken + 1))
		claim_rows+=("$change${sep}$status${sep}BROKEN${sep}$(printf '%s\n' "${problems[@]}")")
	fi
done <<<"$records"

# 3. The guest build through the normal pipeline: its stage scripts, then
# the build's identity file (whose path config.sh and build.sh write to
# KB_IDENTITY_OUT).
build_rc=0
build_cmd="make kernel SRC=$(rel "$src") FLAVOR=guest"
if [ "${REBASE_BUILD:-1}" = 0 ]; then
	build_line="skipped (REBASE_BUILD=0); run: $build_cmd"
elif [ $n_failed -gt 0 ]; then
	build_line="skipped: $n_failed patch(es) FAILED"
elif [ $needs_fuzz -gt 0 ]; then
	build_line="skipped: $needs_fuzz patch(es) need fuzz, and the pipeline applies with --fuzz=0 (refresh them)"
else
	echo "$tag: building: $build_cmd"
	t0=$SECONDS
	set +e
	(
		export SRC=$src FLAVOR=guest PATCHES=1 EXTRA_PATCHES='' FRAGMENTS='' KB_IDENTITY_OUT=$scratch/identity
		for stage in source series config build; do
			"$kbuild/$stage.sh" || exit
		done
	) 2>&1 | tee "$scratch/build.log"
	build_rc=${PIPESTATUS[0]}
	set -e
	identity=$(cat "$scratch/identity" 2>/dev/null || true)
	if [ "$build_rc" -eq 0 ] && image=$(bid_get "$identity" IMAGE 2>>"$scratch/build.log") &&
		release=$(bid_get "$identity" KERNELRELEASE 2>>"$scratch/build.log"); then
		build_line="ok in $((SECONDS - t0)) s: $release, $(rel "$image") ($build_cmd; identity $(rel "$identity"))"
	else
		[ $build_rc -ne 0 ] || build_rc=1
		build_line="FAILED after $((SECONDS - t0)) s ($build_cmd; log in $(rel "$report_dir")/build.log)"
	fi
fi

# Summary: on stdout and in REPORT.md (written whole, then renamed).
if [ $n_failed -gt 0 ] || [ $n_broken -gt 0 ] || [ $build_rc -ne 0 ]; then verdict=FAILED; else verdict=OK; fi
# cell TEXT: one markdown table cell: lines joined with "; ", | escaped.
cell() { printf '%s\n' "$1" | sed -e 's/|/\\|/g' | awk 'NR > 1 { printf "; " } { printf "%s", $0 }'; }
report() {
	echo "# rebase-check: linux-$kversion"
	echo
	echo "- new source: $src_label"
	echo "- base $base: series $(rel "$series_dir") (version $series_version)"
	echo "- patches: ${#names[@]} ($n_applied applied, $n_fuzz fuzz, $n_failed FAILED)"
	echo "- MANIFEST changes: $n_claims ($((n_claims - n_broken)) hold, $n_broken BROKEN)"
	[ -z "$(ls -A "$scratch/refreshed")" ] ||
		echo "- refreshed: $(ls "$scratch/refreshed" | wc -l) patch(es) in $(rel "$report_dir")/refreshed/ apply to linux-$kversion without fuzz or offsets"
	echo "- build (guest): $build_line"
	echo "- verdict: $verdict"
	echo
	echo "| patch | result | details |"
	echo "|---|---|---|"
	for row in ${patch_rows[@]+"${patch_rows[@]}"}; do
		IFS=$sep read -r -d '' a b c <<<"$row" || true
		echo "| $a | $b | $(cell "${c%$'\n'}") |"
	done
	echo
	echo "| change | status | result | details |"
	echo "|---|---|---|---|"
	for row in ${claim_rows[@]+"${claim_rows[@]}"}; do
		IFS=$sep read -r -d '' a b c d <<<"$row" || true
		echo "| $a | $b | $c | $(cell "${d%$'\n'}") |"
	done
}
mkdir -p "$OUT/rebase"
tmp_dir=$(mktemp -d "$OUT/rebase/.report.XXXXXX")
report >"$tmp_dir/REPORT.md"
[ ! -f "$scratch/build.log" ] || cp "$scratch/build.log" "$tmp_dir/build.log"
[ -z "$(ls -A "$scratch/refreshed")" ] || cp -a "$scratch/refreshed" "$tmp_dir/refreshed"
lock "$report_dir.lock"
rm -rf "$report_dir"
mv -T "$tmp_dir" "$report_dir"
unlock
echo
cat "$report_dir/REPORT.md"
echo
echo "$tag: report in $(rel "$report_dir")/REPORT.md"
[ "$verdict" = OK ]
