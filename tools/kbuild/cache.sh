# shellcheck shell=bash
# The machine's kernel build cache, for build.sh (sourced after lib.sh and
# kb_init), and the path rewrite a copied build dir needs (also config.sh's
# KB_SEED_FROM). A finished guest build is kept whole under
# KB_BUILD_CACHE_DIR/<key>/ (default ${XDG_CACHE_HOME:-~/.cache}/mmbatch/
# kbuild), the key naming what its output depends on: the source (a
# tarball: its path, size and date, the pristine tree's stamp), the series
# and extra patches (KB_TREE_HASH), the .config, the release, KCFLAGS, the
# compiler command, the fixed build identity (SOURCE_DATE_EPOCH,
# KBUILD_BUILD_*) and the toolchain's package versions. A build dir built
# for the first time whose key is there starts as a copy of it, like ccache
# one level up: its paths rewritten to this tree and build dir and every
# file dated now (the same key, the same outputs; the dates only tell
# kbuild so), then kbuild runs as always and compiles nothing. make check's
# warm runs restore the guest and debug kernels instead of compiling them
# in every clean clone (whose out/ is empty).
# Kept: FLAVOR=guest builds of the whole kernel from a source tarball (a
# tree or git SRC can change without its stamp changing; a cloud build dir
# is over 10 GB), never one with SIGN_KEY (its certificate is not in the
# key) or BUILD_TARGETS, nor a dir seeded by KB_SEED_FROM (it would never
# be restored: config.sh seeds it before build.sh could).
# Knobs: KB_BUILD_CACHE=1 (default: restore and store), store (store only:
# the build compiles, e.g. the pipeline test that checks a first build's
# objects total), 0 (neither: benchmarks of the build, repro-check's two
# independent builds); KB_BUILD_CACHE_DIR; KB_BUILD_CACHE_KEEP (entries
# kept, newest use first, default 12; a guest build dir is about 200 MB, a
# debug one about 450 MB).

# kb_cache_check: the knobs, checked before anything is built.
kb_cache_check() {
	case ${KB_BUILD_CACHE:-1} in 0 | 1 | store) ;; *) kb_die "KB_BUILD_CACHE='$KB_BUILD_CACHE': expected 1 (restore and store), store or 0" ;; esac
	[[ ${KB_BUILD_CACHE_KEEP:-12} =~ ^[1-9][0-9]*$ ]] ||
		kb_die "KB_BUILD_CACHE_KEEP='$KB_BUILD_CACHE_KEEP': expected a positive number of entries"
	return 0
}

# kb_cache_eligible: this build may be kept and restored (see above).
kb_cache_eligible() {
	[ "${KB_BUILD_CACHE:-1}" != 0 ] && [ "$KB_FLAVOR" = guest ] && [ -n "$KB_TARBALL" ] &&
		[ -z "${BUILD_TARGETS:-}" ] && [ -z "$KB_SIGN_KEY" ] && [ ! -e "$KB_BUILD/.mmbatch-seeded" ]
}

kb_cache_dir() { echo "${KB_BUILD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mmbatch/kbuild}"; }

# kb_cache_key CC: the key of this build dir's .config as it is now (taken
# before kbuild runs: restore and store use the same one), built with CC.
kb_cache_key() {
	{
		echo "kbuild-cache/1 tree=$KB_TREE_HASH release=$KB_RELEASE cc=$1"
		sha256sum <"$KB_BUILD/.config" | cut -c1-64
		echo "kcflags=${KCFLAGS:-}"
		echo "date=$SOURCE_DATE_EPOCH ts=$KBUILD_BUILD_TIMESTAMP user=$KBUILD_BUILD_USER host=$KBUILD_BUILD_HOST version=$KBUILD_BUILD_VERSION"
		gcc --version 2>&1 | head -n 1
		pahole --version 2>/dev/null || true
		# The linker and the image's compressors, and what the host
		# programs (fixdep, kconfig, objtool) are built with.
		dpkg-query -W -f '${Package} ${Version}\n' binutils gzip xz-utils zstd lz4 libc6-dev libelf-dev libssl-dev 2>/dev/null || true
	} | kb_sha
}

# kb_cache_fresh_dir: the build dir was never built (what config.sh leaves,
# no more): the only kind a cache entry may be copied into.
kb_cache_fresh_dir() {
	[ ! -e "$KB_BUILD/vmlinux" ] && [ ! -e "$KB_BUILD/.mmbatch-objcount" ] && [ ! -e "$KB_BUILD/scripts" ]
}

# kb_rewrite_paths DIR OLD_TREE OLD_BUILD NEW_TREE NEW_BUILD: a build dir
# copied to DIR from OLD_BUILD (built from OLD_TREE) made to name NEW_TREE
# and NEW_BUILD. kbuild records both absolute paths in its .cmd files,
# Makefile and auto.conf.cmd (objtool's with its O= too): the commands
# must read as this build's, or kbuild compiles everything again. Text
# files only (LC_ALL=C: bytes, whatever the locale); both paths replaced in
# one pass through placeholders, so a new path that holds an old one is
# not rewritten twice; symlinks into either get the same suffix.
kb_rewrite_paths() {
	local dir=$1 ot=$2 ob=$3 nt=$4 nb=$5 l t
	[ "$ot" != "$nt" ] || [ "$ob" != "$nb" ] || return 0
	LC_ALL=C grep -rlZ --binary-files=without-match -F -e "$ot" -e "$ob" "$dir" 2>/dev/null |
		LC_ALL=C xargs -0 -r sed -i -e "s|$(kb_sed_regex "$ot")|@@MMBATCH-TREE@@|g" -e "s|$(kb_sed_regex "$ob")|@@MMBATCH-BUILD@@|g" \
			-e "s|@@MMBATCH-TREE@@|$(kb_sed_repl "$nt")|g" -e "s|@@MMBATCH-BUILD@@|$(kb_sed_repl "$nb")|g" || return 1
	while IFS= read -r -d '' l; do
		t=$(readlink "$l")
		case $t in
		"$ot" | "$ot"/*) ln -sfn "$nt${t#"$ot"}" "$l" || return 1 ;;
		"$ob" | "$ob"/*) ln -sfn "$nb${t#"$ob"}" "$l" || return 1 ;;
		esac
	done < <(find "$dir" -type l -print0)
}

# kb_sed_regex TEXT, kb_sed_repl TEXT: TEXT as a literal in the pattern and
# in the replacement of sed's s|...|...|.
kb_sed_regex() { printf '%s' "$1" | sed 's/[]|\\.*^$[]/\\&/g'; }
kb_sed_repl() { printf '%s' "$1" | sed 's/[|&\\]/\\&/g'; }

# kb_cache_restore KEY: the fresh build dir replaced by a copy of entry KEY
# with this build's own config-stage files, and 0; 1 when there is none
# (or the mode is store), or when any step failed (the dir then as it was).
# The copy is made beside the dir and renamed into place: an interrupted
# restore leaves no dir that looks built.
kb_cache_restore() {
	local key=$1 dir entry old_tree old_build now lk tmp f
	[ "${KB_BUILD_CACHE:-1}" = 1 ] || return 1
	dir=$(kb_cache_dir)
	entry=$dir/$key
	[ -f "$entry/done" ] || return 1
	exec {lk}>"$entry.lock" || return 1
	flock -s "$lk" || { exec {lk}>&-; return 1; }
	old_tree=$(sed -n 's/^TREE=//p' "$entry/meta" 2>/dev/null)
	old_build=$(sed -n 's/^BUILD_DIR=//p' "$entry/meta" 2>/dev/null)
	if [ ! -f "$entry/done" ] || [ -z "$old_tree" ] || [ -z "$old_build" ] || [ ! -d "$entry/dir" ]; then
		exec {lk}>&-
		kb_note "build: build cache entry $entry incomplete: not used"
		return 1
	fi
	tmp=$KB_BUILD.restore
	rm -rf "$tmp"
	if ! cp -a "$entry/dir" "$tmp"; then
		exec {lk}>&-
		rm -rf "$tmp"
		kb_note "build: copying the build cache entry $entry failed: building instead"
		return 1
	fi
	touch "$entry/done" # newest use: the last to be pruned
	exec {lk}>&-
	# This run's config-stage files, over the entry's.
	for f in localversion-mmbatch config-report.txt mmbatch-build.env .mmbatch-config; do
		[ ! -e "$KB_BUILD/$f" ] || cp -a "$KB_BUILD/$f" "$tmp/$f" || { rm -rf "$tmp"; return 1; }
	done
	kb_rewrite_paths "$tmp" "$old_tree" "$old_build" "$KB_TREE" "$KB_BUILD" || { rm -rf "$tmp"; return 1; }
	# One date for every file, later than any file of the tree: the
	# second started after the tree's last change (series ran before).
	sleep 1
	now=$(date +%s)
	find "$tmp" -exec touch -h -d "@$now" {} + || { rm -rf "$tmp"; return 1; }
	rm -rf "$KB_BUILD" && mv "$tmp" "$KB_BUILD" || kb_die "build: $KB_BUILD could not be replaced by the restored copy $tmp"
	kb_note "build: restored from the build cache: $entry (the same tree, .config, release and toolchain; built in $old_build)"
	return 0
}

# kb_cache_store KEY IMAGE_HASH: keeps the finished build dir as entry KEY
# (once: an entry there stays), then prunes to KB_BUILD_CACHE_KEEP entries.
# Best effort: a failure is noted and the build stands.
kb_cache_store() {
	local key=$1 dir entry tmp lk stale
	dir=$(kb_cache_dir)
	entry=$dir/$key
	mkdir -p "$dir" && exec {lk}>"$entry.lock" && flock "$lk" || return 1
	if [ ! -f "$entry/done" ]; then
		tmp=$(mktemp -d "$dir/.new.XXXXXX") || { exec {lk}>&-; return 1; }
		if ! cp -a "$KB_BUILD" "$tmp/dir"; then
			rm -rf "$tmp"
			exec {lk}>&-
			return 1
		fi
		# This run's own files: config.sh writes them for the next.
		rm -f "$tmp/dir/mmbatch-build.env" "$tmp/dir/build.log" "$tmp/dir/config-report.txt" \
			"$tmp/dir/.mmbatch-lastcount" "$tmp/dir/.mmbatch-config"
		printf 'TREE=%s\nBUILD_DIR=%s\nRELEASE=%s\nIMAGE_HASH=%s\n' "$KB_TREE" "$KB_BUILD" "$KB_RELEASE" "$2" >"$tmp/meta" &&
			touch "$tmp/done" && rm -rf "$entry" && mv "$tmp" "$entry" || { rm -rf "$tmp"; exec {lk}>&-; return 1; }
		kb_note "build: kept in the build cache: $entry ($(du -sm "$entry" | cut -f1) MB)"
	fi
	exec {lk}>&-
	# The newest uses stay. An entry in use (its lock held) stays too; one
	# pruned is renamed under its lock first, so no restore finds it half
	# gone. Copies a killed store left behind go after a day.
	{ ls -dt "$dir"/*/done 2>/dev/null || true; } | tail -n +$((${KB_BUILD_CACHE_KEEP:-12} + 1)) |
		while read -r stale; do
			stale=${stale%/done}
			(flock -n 9 && mv "$stale" "$stale.old" && rm -rf "$stale.old") 9>"$stale.lock" || true
		done
	find "$dir" -maxdepth 1 -name '.new.*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
	return 0
}

# The guest flavor's base config (config.sh: `make tinyconfig`) is three
# kconfig runs, allnoconfig, the merge of its fragment and olddefconfig,
# and each one evaluates every toolchain probe of the Kconfig files (some
# 130 compiler runs): more than half of a guest config's CPU, paid again by
# every new build dir and every test's scratch dir. What it writes depends
# on the tree and the toolchain only, so one is kept per tree and
# toolchain in KB_BUILD_CACHE_DIR/tinyconfig/ (KB_BUILD_CACHE=0 neither
# reads nor writes it). What olddefconfig computes from the toolchain
# alone (CC_VERSION_TEXT, CC_HAS_*, ...) it computes again after the
# fragments anyway.

# kb_tinyconfig_entry: this tree's and toolchain's entry (a path; it may
# not exist).
kb_tinyconfig_entry() {
	local key
	key=$( {
		echo "tinyconfig/1 tree=$KB_TREE_HASH arch=$(uname -m)"
		gcc --version 2>&1 | head -n 1
		ld --version 2>&1 | head -n 1
		pahole --version 2>/dev/null || true
		rustc --version 2>/dev/null || true
	} | kb_sha)
	echo "$(kb_cache_dir)/tinyconfig/$key.config"
}

# kb_tinyconfig_restore ENTRY DEST: copies a kept base config to DEST; fails
# when there is none or it is not one kconfig wrote whole (it is written
# whole or not at all, but a disk fills and a hand edits).
kb_tinyconfig_restore() {
	[ "${KB_BUILD_CACHE:-1}" != 0 ] && [ -f "$1" ] || return 1
	[ "$(sed -n 2p "$1")" = '# Automatically generated file; DO NOT EDIT.' ] &&
		grep -q '^CONFIG_CC_VERSION_TEXT=' "$1" && tail -n 1 "$1" | grep -q '^# end of ' || {
		kb_note "config: $1 is not a whole kconfig output: ignored, tinyconfig runs"
		return 1
	}
	cp "$1" "$2"
}

# kb_tinyconfig_store SRC ENTRY: keeps SRC as ENTRY (written whole, then
# renamed). Best effort: the config stands without it.
kb_tinyconfig_store() {
	[ "${KB_BUILD_CACHE:-1}" != 0 ] || return 0
	local tmp
	mkdir -p "${2%/*}" && tmp=$(mktemp "${2%/*}/.new.XXXXXX") || return 0
	if cp "$1" "$tmp" && mv "$tmp" "$2"; then
		return 0
	fi
	rm -f "$tmp"
	kb_note "config: could not keep the tinyconfig base as $2"
	return 0
}
