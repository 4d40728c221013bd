# shellcheck shell=bash disable=SC2034
# Shared helpers for the kernel pipeline stage scripts (source, series, config,
# build, patches-check). Sourced, not run. Derives every path and name of the
# pipeline from the knobs, so each stage (and the packaging stage) finds the
# previous stage's output without being told.
#
# Reads: TOP, OUT (default TOP/out), BASE (default 6.12), SRC, FLAVOR (default
# cloud), DEBUG (default 0; 1: the flavor's debug variant, configs/kernel/debug),
# NR_CPUS, LOCALVERSION, PATCHES (default 1), EXTRA_PATCHES, FRAGMENTS,
# SIGN_KEY, KBUILD_SIGN_PIN (passphrase of an encrypted SIGN_KEY), PATCHES_ROOT
# (default TOP/patches).
# Sets (kb_init_src): KB_SRCID KB_SRC_ROOT KB_PRISTINE_ROOT KB_TARBALL
# Sets (kb_init): the above plus KB_PRISTINE KB_KVERSION KB_BASE KB_SERIES_DIR
#   KB_SERIES_FILE KB_SERIES_VERSION KB_VARIANT KB_XHASH KB_FHASH KB_TREE KB_BUILD
#   KB_SERIES_ENTRIES ("NAME STRIP" lines) KB_FLAVOR KB_DEBUG (0|1) KB_NR_CPUS KB_LOCALVERSION_FULL KB_RELEASE KB_SERIES_HASH KB_TREE_HASH
#   KB_PLAIN_TREE KB_PLAIN_TREE_HASH (with EXTRA_PATCHES: the tree and tree
#   hash of the same knobs without them; empty without)
#   KB_SIGN_KEY KB_SIGN_FPR KB_SIGN_SUBJECT KB_SIGN_KEYTYPE KB_SHASH (kb_sign_init, SIGN_KEY)
#   SOURCE_DATE_EPOCH KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST
#   KBUILD_BUILD_VERSION

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${OUT:=$TOP/out}"
: "${PATCHES_ROOT:=$TOP/patches}"

kb_die() { echo "ERROR: $*" >&2; exit 1; }
# shellcheck source=identity.sh
. "$(dirname "${BASH_SOURCE[0]}")/identity.sh"
kb_note() { echo "$*" >&2; }

# kb_lock FILE [-s]: hold a lock on FILE for the rest of the script, so two
# helpers making the same tree or build dir wait for each other. -s: shared
# (readers of a tree: config and build), default exclusive (series, which
# replaces the tree; config and build, which write their build dir).
# Take the tree's lock before the build dir's.
kb_lock() {
	local file=$1 mode=${2:--x} fd
	mkdir -p "$(dirname "$file")"
	exec {fd}>"$file"
	if ! flock -n "$mode" "$fd"; then
		kb_note "waiting for lock $file (another run uses the same output)"
		flock "$mode" "$fd"
	fi
}

kb_sha() { sha256sum | cut -c1-64; }

# kb_kversion DIR: the upstream version from a kernel tree's Makefile.
kb_kversion() {
	local mk=$1/Makefile v p s e
	[ -r "$mk" ] || kb_die "no kernel Makefile at $mk"
	v=$(sed -n 's/^VERSION = *//p' "$mk" | head -n1)
	p=$(sed -n 's/^PATCHLEVEL = *//p' "$mk" | head -n1)
	s=$(sed -n 's/^SUBLEVEL = *//p' "$mk" | head -n1)
	e=$(sed -n 's/^EXTRAVERSION = *//p' "$mk" | head -n1)
	[[ "$v" =~ ^[0-9]+$ && "$p" =~ ^[0-9]+$ && "$s" =~ ^[0-9]+$ ]] ||
		kb_die "$mk: cannot read VERSION/PATCHLEVEL/SUBLEVEL"
	echo "$v.$p.$s$e"
}

kb_check_knobs() {
	case "${FLAVOR:-cloud}" in cloud|generic|guest) ;; *)
		kb_die "FLAVOR='$FLAVOR': expected cloud, generic or guest" ;; esac
	case "${PATCHES:-1}" in 0|1) ;; *) kb_die "PATCHES='$PATCHES': expected 0 or 1" ;; esac
	case "${DEBUG:-0}" in 0|1) ;; *) kb_die "DEBUG='$DEBUG': expected 0 or 1" ;; esac
	if [ -n "${NR_CPUS:-}" ] && ! [[ "$NR_CPUS" =~ ^[1-9][0-9]*$ ]]; then
		kb_die "NR_CPUS='$NR_CPUS': expected a positive integer"
	fi
	if [ -n "${LOCALVERSION:-}" ] && ! [[ "$LOCALVERSION" =~ ^[a-z0-9.+~-]+$ ]]; then
		kb_die "LOCALVERSION='$LOCALVERSION': only a-z 0-9 . + ~ - allowed (package names)"
	fi
	local p
	for p in ${EXTRA_PATCHES:-} ${FRAGMENTS:-}; do
		[ -r "$p" ] || kb_die "cannot read '$p' (EXTRA_PATCHES/FRAGMENTS)"
	done
	return 0
}

# Stage 1 names: which source, and where it is unpacked.
kb_init_src() {
	kb_check_knobs
	if [ -n "${SRC:-}" ]; then
		[ -e "$SRC" ] || kb_die "SRC='$SRC' does not exist"
		KB_SRC_PATH=$(realpath "$SRC")
		KB_SRCID=src-$(printf '%s' "$KB_SRC_PATH" | kb_sha | cut -c1-8)
		KB_TARBALL=
		[ -f "$KB_SRC_PATH" ] && KB_TARBALL=$KB_SRC_PATH
	else
		BASE=${BASE:-6.12}
		[[ "$BASE" =~ ^[0-9]+\.[0-9]+$ ]] || kb_die "BASE='$BASE': expected e.g. 6.12 or 6.1"
		KB_SRC_PATH=
		KB_SRCID=$BASE
		KB_TARBALL=/usr/src/linux-source-$BASE.tar.xz
	fi
	KB_SRC_ROOT=$OUT/src/$KB_SRCID
	KB_PRISTINE_ROOT=$KB_SRC_ROOT/pristine
}

# kb_find_pristine: the unpacked linux-<ver> dir, or empty.
kb_find_pristine() {
	local d
	[ -f "$KB_PRISTINE_ROOT/.stamp" ] || return 0
	for d in "$KB_PRISTINE_ROOT"/linux-*; do
		[ -f "$d/Makefile" ] && { echo "$d"; return 0; }
	done
}

# kb_series_entries DIR: "NAME STRIP" lines of DIR/series (quilt format).
# Exit 1 with FILE:LINE on a bad line or missing patch; nothing for no series.
kb_series_entries() {
	local dir=$1 file=$1/series n=0 line name opt strip rest
	[ -f "$file" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%%#*}
		read -r name opt rest <<<"$line" || true
		[ -n "$name" ] || continue
		strip=1
		if [ -n "$opt" ]; then
			[[ "$opt" =~ ^-p([0-9])$ ]] && [ -z "${rest:-}" ] ||
				kb_die "$file:$n: unsupported option '$opt${rest:+ $rest}' (only -pN)"
			strip=${BASH_REMATCH[1]}
		fi
		[ -f "$dir/$name" ] || kb_die "$file:$n: patch '$name' not found in $dir"
		echo "$name $strip"
	done <"$file"
}

# kb_series_version DIR: integer from DIR/VERSION, 1 when absent.
kb_series_version() {
	local f=$1/VERSION v
	[ -f "$f" ] || { echo 1; return 0; }
	v=$(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$f" | grep -v '^$' | head -n1 || true)
	[[ "$v" =~ ^[0-9]+$ ]] || kb_die "$f:1: expected an integer series version, got '$v'"
	echo "$v"
}

# kb_patch_hash FILE...: content hash of patch files, in order.
kb_patch_hash() {
	local f
	for f in "$@"; do sha256sum <"$f"; done | kb_sha
}

# kb_sign_init: checks SIGN_KEY (one PEM holding a private key and the X.509
# certificate of that key, what kbuild's CONFIG_MODULE_SIG_KEY takes) and names
# it by its certificate. A different key makes a different build dir (-s<sha8>
# of the certificate), so a kernel never trusts one key while its modules are
# signed with another, whatever the file dates say.
# The private key must be the owner's alone: a key file that group or others
# may read or write is refused (one line naming the file and its mode).
# KBUILD_SIGN_PIN (its passphrase) comes from the environment only: given on
# a make command line it shows in ps(1) to every user for as long as make
# runs, and make hands it to every command in MAKEFLAGS (where it is found
# here; mk/kernel.mk stops the top-level make itself).
# Sets KB_SIGN_KEY (absolute path, empty without SIGN_KEY), KB_SIGN_FPR
# ("sha256:AB:CD:..." of the certificate), KB_SIGN_SUBJECT, KB_SIGN_KEYTYPE
# (rsa|ec) and KB_SHASH (s<sha8>, empty without SIGN_KEY).
kb_sign_init() {
	KB_SIGN_KEY='' KB_SIGN_FPR='' KB_SIGN_SUBJECT='' KB_SIGN_KEYTYPE='' KB_SHASH=''
	case " ${MAKEFLAGS:-} " in
	*" KBUILD_SIGN_PIN="*)
		kb_die "KBUILD_SIGN_PIN was given on the make command line, where ps shows it to every user: pass it in the environment instead (read -rs KBUILD_SIGN_PIN && export KBUILD_SIGN_PIN; see docs/building/signing.md)"
		;;
	esac
	[ -n "${SIGN_KEY:-}" ] || return 0
	local f=$SIGN_KEY pass=pass: pub_key pub_cert fpr mode
	[ -e "$f" ] || kb_die "SIGN_KEY=$f: no such file"
	[ -f "$f" ] && [ -r "$f" ] || kb_die "SIGN_KEY=$f: not a readable file"
	command -v openssl >/dev/null || kb_die "SIGN_KEY=$f: openssl is not installed (apt-get install openssl)"
	[ -z "${KBUILD_SIGN_PIN:-}" ] || pass=env:KBUILD_SIGN_PIN
	pub_key=$(openssl pkey -in "$f" -passin "$pass" -pubout 2>/dev/null) ||
		kb_die "SIGN_KEY=$f: no PEM private key in it (encrypted keys need KBUILD_SIGN_PIN); expected key + certificate in one PEM"
	pub_cert=$(openssl x509 -in "$f" -noout -pubkey 2>/dev/null) ||
		kb_die "SIGN_KEY=$f: no PEM certificate in it; expected key + certificate in one PEM"
	[ "$pub_key" = "$pub_cert" ] || kb_die "SIGN_KEY=$f: the private key does not belong to the certificate"
	fpr=$(openssl x509 -in "$f" -noout -fingerprint -sha256 2>/dev/null) ||
		kb_die "SIGN_KEY=$f: cannot read the certificate's fingerprint"
	KB_SIGN_FPR=sha256:${fpr#*=}
	KB_SIGN_SUBJECT=$(openssl x509 -in "$f" -noout -subject -nameopt RFC2253 2>/dev/null | sed 's/^subject=//')
	case "$(openssl x509 -in "$f" -noout -text 2>/dev/null | sed -n 's/^ *Public Key Algorithm: *//p' | head -n 1)" in
	rsaEncryption) KB_SIGN_KEYTYPE=rsa ;;
	id-ecPublicKey) KB_SIGN_KEYTYPE=ec ;;
	*) kb_die "SIGN_KEY=$f: only RSA and EC keys can sign kernel modules" ;;
	esac
	mode=$(stat -L -c %a "$f") || kb_die "SIGN_KEY=$f: cannot read its mode"
	if [ $((8#$mode & 8#077)) -ne 0 ]; then
		kb_die "SIGN_KEY=$f: mode $(printf '%04o' $((8#$mode))): the private key is readable or writable by group or others; make it the owner's alone (chmod 600 $f)"
	fi
	KB_SIGN_KEY=$(realpath "$f")
	KB_SHASH=s$(printf '%s' "$KB_SIGN_FPR" | kb_sha | cut -c1-8)
}

# Stage 2-4 names. Needs the pristine source (stage 1) for the version.
kb_init() {
	kb_init_src
	KB_PRISTINE=$(kb_find_pristine)
	[ -n "$KB_PRISTINE" ] || kb_die "no unpacked source under $KB_PRISTINE_ROOT: run 'make source' first"
	KB_KVERSION=$(kb_kversion "$KB_PRISTINE")
	KB_BASE=$(echo "$KB_KVERSION" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	if [ -n "${SRC:-}" ] && [ -n "${BASE:-}" ] && [ "$BASE" != "$KB_BASE" ]; then
		kb_note "note: SRC is a $KB_BASE tree; BASE=$BASE ignored"
	fi
	BASE=$KB_BASE
	KB_SERIES_DIR=$PATCHES_ROOT/$KB_BASE
	KB_SERIES_FILE=$KB_SERIES_DIR/series
	KB_SERIES_VERSION=$(kb_series_version "$KB_SERIES_DIR")
	KB_FLAVOR=${FLAVOR:-cloud}
	KB_DEBUG=${DEBUG:-0}
	KB_NR_CPUS=${NR_CPUS:-}

	local name strip files=()
	KB_SERIES_ENTRIES=$(kb_series_entries "$KB_SERIES_DIR")
	while read -r name strip; do
		[ -n "$name" ] && files+=("$KB_SERIES_DIR/$name")
	done <<<"$KB_SERIES_ENTRIES"
	# The series hash names the patch content, not the file dates.
	KB_SERIES_HASH=$(kb_patch_hash ${files[@]+"${files[@]}"})
	KB_SERIES_FILES=${files[*]+"${files[*]}"}

	local tag=mmbatch$KB_SERIES_VERSION
	KB_VARIANT=mmbatch
	if [ "${PATCHES:-1}" = 0 ]; then KB_VARIANT=vanilla tag=vanilla; fi
	KB_XHASH=
	if [ -n "${EXTRA_PATCHES:-}" ]; then
		# shellcheck disable=SC2086 # EXTRA_PATCHES is a list of paths, split on purpose
		KB_XHASH=x$(kb_patch_hash $EXTRA_PATCHES | cut -c1-8)
	fi
	# Extra fragments make a different kernel: its own build dir and release.
	KB_FHASH=
	if [ -n "${FRAGMENTS:-}" ]; then
		# shellcheck disable=SC2086 # FRAGMENTS is a list of paths, split on purpose
		KB_FHASH=f$(kb_patch_hash $FRAGMENTS | cut -c1-8)
	fi
	kb_sign_init
	# A build with extra patches gets its own tree and build dir under
	# out/x/<xhash>[-vanilla]/, laid out as the patched build's under out/:
	# its tree at the same path seen from its build dir
	# (../../tree/<srcid>-mmbatch, whatever its variant), so ccache (base_dir
	# $OUT, relative paths) finds the patched build's objects, the one every
	# test stage builds, for each file whose source is the same. The canary's
	# BAD kernel and each prefix of patches-build-each (vanilla + the first
	# k patches) compile what differs from the patched tree, not the whole
	# kernel; a tree name of their own missed on every file.
	# The same layout keeps the relative paths that ccache writes into
	# kbuild's dependency records (../../tree/<srcid>-mmbatch/...) right in
	# a build dir seeded from the patched build (KB_SEED_FROM, config.sh).
	local root=$OUT leaf=$KB_SRCID-$KB_VARIANT
	KB_PLAIN_TREE=
	if [ -n "$KB_XHASH" ]; then
		# The tree these extra patches go on top of: what the same knobs
		# make without them (series.sh dates against it, config.sh seeds
		# from its build).
		KB_PLAIN_TREE=$root/tree/$leaf
		root=$OUT/x/$KB_XHASH leaf=$KB_SRCID-mmbatch
		[ "$KB_VARIANT" = vanilla ] && root+=-vanilla
	fi
	KB_TREE=$root/tree/$leaf
	# DEBUG=1, the flavor's debug variant (configs/kernel/debug): -debug in
	# the build dir right after the flavor, +debug at the end of the release
	# (before LOCALVERSION), like Fedora's kernel-debug (<release>+debug), so
	# its packages install beside the normal ones.
	local dsuf=
	[ "$KB_DEBUG" = 1 ] && dsuf=debug
	local bname=$KB_SRCID-$KB_FLAVOR${dsuf:+-$dsuf}${KB_NR_CPUS:+-nr$KB_NR_CPUS}
	[ "$KB_VARIANT" = vanilla ] && bname+=-vanilla
	[ -n "$KB_XHASH" ] && bname+=-$KB_XHASH
	[ -n "$KB_SHASH" ] && bname+=-$KB_SHASH
	[ -n "$KB_FHASH" ] && bname+=-$KB_FHASH
	KB_BUILD=${KB_BUILD_DIR:-$root/build/$bname}
	KB_LOCALVERSION_FULL=-$tag${KB_XHASH:+-$KB_XHASH}-$KB_FLAVOR${KB_NR_CPUS:+-nr$KB_NR_CPUS}${KB_FHASH:+-$KB_FHASH}${dsuf:++$dsuf}${LOCALVERSION:-}
	KB_RELEASE=$KB_KVERSION$KB_LOCALVERSION_FULL
	KB_TREE_HASH=$(kb_tree_hash "$KB_XHASH")
	KB_PLAIN_TREE_HASH=
	[ -z "$KB_XHASH" ] || KB_PLAIN_TREE_HASH=$(kb_tree_hash "")
	kb_repro_env
}

# kb_tree_hash XHASH: what a tree is made of (rebuilt whenever this
# changes): the source, the variant, the series and the extra patches
# XHASH (kb_init's KB_XHASH, or empty: the tree without them).
kb_tree_hash() {
	{ cat "$KB_PRISTINE_ROOT/.stamp"; echo "variant=$KB_VARIANT";
		[ "$KB_VARIANT" = vanilla ] || echo "series=$KB_SERIES_HASH";
		echo "extra=$1"; } | kb_sha
}

# KB_SEED_FROM=DIR (config.sh): a new build dir starts as a copy of DIR.
# kb_seed_check DIR: fails the stage (one line) unless DIR is a finished
# build (its mmbatch-build.env and .config there, an IMAGE recorded) of this
# tree as it is now, or, with EXTRA_PATCHES, of KB_PLAIN_TREE as it is now:
# the seed's TREE and TREE_HASH exactly what kb_init makes of these knobs
# without EXTRA_PATCHES, so every file they leave alone is the file the
# seed was compiled from (the canary's BAD kernel from the 6.1 guest: one
# patched file). Sets KB_SEED_TREE, the tree DIR was built from.
kb_seed_check() {
	local id=$1/mmbatch-build.env t want
	[ -f "$id" ] && [ -f "$1/.config" ] ||
		kb_die "config: KB_SEED_FROM=$1: not a build dir (no mmbatch-build.env and .config there)"
	[ -n "$(bid_get "$id" IMAGE 2>/dev/null)" ] ||
		kb_die "config: KB_SEED_FROM=$1: not built (its mmbatch-build.env names no IMAGE)"
	t=$(bid_get "$id" TREE 2>/dev/null || true)
	if [ "$t" = "$KB_TREE" ]; then
		want=$KB_TREE_HASH
	elif [ -n "$KB_PLAIN_TREE" ] && [ "$t" = "$KB_PLAIN_TREE" ]; then
		want=$KB_PLAIN_TREE_HASH
	else
		kb_die "config: KB_SEED_FROM=$1: built from another tree (${t:-none named}), not from $KB_TREE${KB_PLAIN_TREE:+ or $KB_PLAIN_TREE (the same without EXTRA_PATCHES)}"
	fi
	[ "$(bid_get "$id" TREE_HASH 2>/dev/null || true)" = "$want" ] ||
		kb_die "config: KB_SEED_FROM=$1: built from $t before its last change (TREE_HASH differs): build it again first"
	KB_SEED_TREE=$t
}

# kb_seed_forget DIR: in DIR, a copy of a build of KB_PLAIN_TREE (paths
# already rewritten to this build's), removes kbuild's record (.cmd file)
# of every target that names a file EXTRA_PATCHES change, and prints how
# many. A target without its record has a new command to kbuild, which
# makes it again whatever the dates say: series.sh dates what differs
# from the plain tree at the time it makes the x-tree, but an x-tree made
# before the seed was built (or re-made against its own previous version)
# has those files older than the seed's objects, and kbuild would keep the
# objects compiled without the patch (the canary's BAD kernel without its
# fault). A record names a file of the tree by its absolute path (this
# tree's, once rewritten), by the path ccache makes relative to the build
# dir (../../tree/<leaf>/FILE: either tree's leaf) or through
# "dir/../FILE"; matching more only compiles more.
kb_seed_forget() {
	local dir=$1 x f pats=() recs rc=0
	for x in ${EXTRA_PATCHES:-}; do
		while IFS= read -r f; do
			[ -n "$f" ] || continue
			pats+=(-e "/${KB_TREE##*/}/$f" -e "/${KB_SEED_TREE##*/}/$f" -e "/../$f")
		done < <(kb_patch_files "$x" 1)
	done
	[ ${#pats[@]} -gt 0 ] || { echo 0; return 0; }
	[ -d "$dir" ] || return 1
	# grep: 1 is no record at all, 2 a file it could not read (then the
	# copy cannot be trusted).
	recs=$(LC_ALL=C grep -rlF --include='*.cmd' "${pats[@]}" "$dir") || rc=$?
	[ $rc -le 1 ] || return 1
	[ -n "$recs" ] || { echo 0; return 0; }
	printf '%s\n' "$recs" | tr '\n' '\0' | xargs -0 rm -f || return 1
	grep -c . <<<"$recs"
}

# Fixed build identity: the newest of the base's date and the Date: headers of
# the patches applied (series, then EXTRA_PATCHES). The same inputs always give
# the same date, a re-exported series moves it, and it is never later than the
# inputs themselves (rpmlint rejects packages dated in the future).
kb_patch_date() {
	local d
	d=$(sed -n '/^$/q; s/^Date: //p' "$1" | head -n 1)
	[ -n "$d" ] && LC_ALL=C date -u -d "$d" +%s 2>/dev/null || echo 0
}

kb_repro_env() {
	local base_date f d
	if [ -n "$KB_SRC_PATH" ] && [ -d "$KB_SRC_PATH/.git" ]; then
		base_date=$(git -C "$KB_SRC_PATH" log -1 --format=%ct)
	else
		base_date=$(stat -c %Y "$KB_PRISTINE/Makefile")
	fi
	SOURCE_DATE_EPOCH=$base_date
	if [ "$KB_VARIANT" != vanilla ]; then
		# shellcheck disable=SC2086 # both are lists of paths, split on purpose
		for f in $KB_SERIES_FILES ${EXTRA_PATCHES:-}; do
			d=$(kb_patch_date "$f")
			[ "$d" -gt "$SOURCE_DATE_EPOCH" ] && SOURCE_DATE_EPOCH=$d
		done
	fi
	KBUILD_BUILD_TIMESTAMP=$(LC_ALL=C date -u -R -d "@$SOURCE_DATE_EPOCH")
	KBUILD_BUILD_USER=mmbatch
	KBUILD_BUILD_HOST=mmbatch
	# The "#1" of uname -v, as in a fresh build dir: kbuild otherwise counts
	# the links of the dir in .version, so a dir linked twice made another
	# image (and a build cache entry would carry its count).
	KBUILD_BUILD_VERSION=1
	export SOURCE_DATE_EPOCH KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST KBUILD_BUILD_VERSION
}

# kb_patch_files PATCH STRIP: the tree-relative paths a patch reads or writes.
kb_patch_files() {
	awk -v strip="$2" '
		function rel(p,  i) {
			sub(/\t.*/, "", p); sub(/[ ]+$/, "", p)
			if (p == "/dev/null") return ""
			for (i = 0; i < strip; i++) { if (!sub(/^[^\/]*\//, "", p)) return "" }
			return p
		}
		/^(---|\+\+\+) / { p = rel(substr($0, 5)); if (p != "") print p; next }
		/^(rename|copy) from / { p = $0; sub(/^(rename|copy) from /, "", p); print p }
	' "$1" | sort -u
}

# kb_apply_checked DIR NAME PATCH STRIP: dry-run PATCH in DIR, apply it when
# the dry run is clean. On failure print one `series: NAME: ...` line per
# problem on stderr and return 1 (DIR unchanged).
kb_apply_checked() {
	local dir=$1 name=$2 patchf=$3 strip=$4 out rc=0
	out=$(patch -d "$dir" -p"$strip" --dry-run --forward --fuzz=0 --no-backup-if-mismatch <"$patchf" 2>&1) || rc=$?
	if [ $rc -eq 0 ]; then
		patch -d "$dir" -p"$strip" --forward --fuzz=0 --no-backup-if-mismatch -s <"$patchf" >/dev/null ||
			kb_die "series: $name: dry run passed but applying failed in $dir"
		return 0
	fi
	kb_patch_failures "$name" "$out" >&2
	return 1
}

# kb_patch_failures NAME OUTPUT: GNU patch's output as `series:` lines.
kb_patch_failures() {
	printf '%s\n' "$2" | awk -v name="$1" '
		/^checking file / { file = substr($0, 15); sub(/^'\''|'\''$/, "", file) }
		/^Hunk #[0-9]+ FAILED at [0-9]+/ {
			h = $2; sub(/#/, "", h); l = $5; sub(/[^0-9].*/, "", l)
			printf "series: %s: hunk %s FAILED at %s:%s\n", name, h, file, l; n++; next }
		/^can.t find file to patch at input line/ {
			printf "series: %s: cannot find the file to patch (patch line %s)\n", name, $NF; n++; next }
		/^Reversed \(or previously applied\) patch detected/ {
			printf "series: %s: already applied (reversed patch detected) at %s\n", name, file; n++; next }
		/malformed patch at line/ { sub(/.*malformed/, "malformed"); printf "series: %s: %s\n", name, $0; n++; next }
		/Only garbage was found/ { printf "series: %s: no diff found in the patch\n", name; n++; next }
		END { if (n == 0) printf "series: %s: patch failed: %s\n", name, first }
		NR == 1 { first = $0 }'
}

# kb_sparse_copy PRISTINE SCRATCH PATCH STRIP...: copy into SCRATCH the
# pristine files that the given patches touch, so a whole series can be
# checked without copying the tree (patch only opens the files it names).
kb_sparse_copy() {
	local pristine=$1 scratch=$2 f
	shift 2
	while [ $# -gt 0 ]; do
		while IFS= read -r f; do
			[ -n "$f" ] || continue
			case "$f" in /*|*..*) kb_die "series: $1: refuses path '$f'" ;; esac
			if [ -e "$pristine/$f" ] && [ ! -e "$scratch/$f" ]; then
				mkdir -p "$scratch/$(dirname "$f")"
				cp -p "$pristine/$f" "$scratch/$f"
			fi
		done < <(kb_patch_files "$1" "$2")
		shift 2
	done
}

# kb_parse_manifest FILE: the MANIFEST (format: patches/README.md, "MANIFEST") as one record per
# change on stdout, fields separated by \x1f: change status patch upstream
# verify... (each verify "FILE REGEX"). Exit 2 with FILE:LINE: message on a
# malformed block. (The same parser as patches-check.sh's parse_manifest.)
kb_parse_manifest() {
	awk -v f="$1" '
		function fail(msg) { printf "%s:%d: %s\n", f, FNR, msg > "/dev/stderr"; bad = 1; exit 2 }
		function flush() {
			if (!inblock) return
			if (change == "") fail("block starting at line " start " has no change:")
			if (status != "patched" && status != "in-base") fail("change " change ": status must be patched or in-base, got \"" status "\"")
			if (status == "patched" && patch == "") fail("change " change ": status patched needs a patch: line")
			if (status == "in-base" && nv == 0) fail("change " change ": status in-base needs at least one verify: line")
			if (seen[change]++) fail("change " change " appears twice")
			printf "%s\037%s\037%s\037%s%s\n", change, status, patch, upstream, verify
			inblock = 0; change = status = patch = upstream = verify = ""; nv = 0
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		{
			if (!inblock) { inblock = 1; start = FNR }
			if (!match($0, /^[a-z-]+:[ \t]*/)) fail("expected \"key: value\"")
			key = substr($0, 1, index($0, ":") - 1); val = substr($0, RLENGTH + 1); sub(/[ \t]+$/, "", val)
			if (val == "") fail(key ": empty value")
			if (key == "change") change = val
			else if (key == "status") status = val
			else if (key == "patch") patch = val
			else if (key == "upstream") upstream = val
			else if (key == "verify") {
				if (val !~ /^[^ \t]+[ \t]+[^ \t]/) fail("verify: expected FILE REGEX")
				verify = verify "\037" val; nv++
			}
			else if (key != "title" && key != "origin") fail("unknown key \"" key "\"")
		}
		END { if (!bad) flush() }' "$1"
}

# kb_verify_matches DIR FILE REGEX: does REGEX (grep -E) match FILE in DIR?
kb_verify_matches() {
	[ -f "$1/$2" ] && grep -Eq -- "$3" "$1/$2"
}

# The builds log of `make check` (tools/check.sh exports MMBATCH_BUILDS_LOG;
# tests/builds/guard.sh reads it): build.sh appends one line per run that
# reached kbuild or the build cache's restore (a failed build none), 15
# tab-separated fields in this order:
#   stage          MMBATCH_CHECK_STAGE (the make check stage), or -
#   build_dir      BUILD_DIR of the identity file
#   kernelrelease  KERNELRELEASE
#   knobs          kb_build_knobs: "BASE=<base> FLAVOR=<flavor>" and the
#                  knobs set away from their defaults
#   config_hash series_hash extra_patches_hash
#                  CONFIG_HASH, SERIES_HASH, EXTRA_PATCHES_HASH (- when none):
#                  together the key of a configuration
#   targets        all, or BUILD_TARGETS joined by +
#   seeded_from    the build dir KB_SEED_FROM copied (config.sh records it in
#                  <build dir>/.mmbatch-seed), or -
#   how            compiled, or restored (from the build cache)
#   objects        objects compiled by this run
#   wall_s cpu_s   seconds of the run (from its locks taken) and the CPU
#                  seconds (user+system) of its children
#   ccache_hits ccache_misses   this run's, or - (CCACHE=0)
KB_BUILDS_LOG_FIELDS="stage build_dir kernelrelease knobs config_hash series_hash extra_patches_hash targets seeded_from how objects wall_s cpu_s ccache_hits ccache_misses"

# _kb_knob_list NAME WORD...: " NAME=w1+w2" of the words' basenames, or nothing.
_kb_knob_list() {
	local name=$1 w out=
	shift
	for w in "$@"; do out+=${out:++}${w##*/}; done
	[ -z "$out" ] || printf ' %s=%s' "$name" "$out"
}

# kb_build_knobs: the knobs of this build (after kb_init) as one canonical
# string, the first column of the table of make check's builds
# (docs/developing/testing.md): "BASE=<base> FLAVOR=<flavor>", then only
# those set away from their defaults, in this order: DEBUG=1, PATCHES=0,
# NR_CPUS=<n>, LOCALVERSION=<v>, EXTRA_PATCHES=<basenames joined by +>,
# FRAGMENTS=<basenames joined by +>, SIGN_KEY=yes, SRC=other,
# SERIES=<series dir relative to TOP, or other (outside TOP, or under OUT:
# a scratch copy)> when PATCHES_ROOT is not TOP/patches, BUILD_TARGETS=<targets
# joined by +>.
kb_build_knobs() {
	local s="BASE=$KB_BASE FLAVOR=$KB_FLAVOR" words dir top out
	[ "$KB_DEBUG" != 1 ] || s+=" DEBUG=1"
	[ "$KB_VARIANT" != vanilla ] || s+=" PATCHES=0"
	[ -z "$KB_NR_CPUS" ] || s+=" NR_CPUS=$KB_NR_CPUS"
	[ -z "${LOCALVERSION:-}" ] || s+=" LOCALVERSION=$LOCALVERSION"
	read -r -a words <<<"${EXTRA_PATCHES:-}"
	s+=$(_kb_knob_list EXTRA_PATCHES ${words[@]+"${words[@]}"})
	read -r -a words <<<"${FRAGMENTS:-}"
	s+=$(_kb_knob_list FRAGMENTS ${words[@]+"${words[@]}"})
	[ -z "$KB_SIGN_KEY" ] || s+=" SIGN_KEY=yes"
	[ -z "$KB_SRC_PATH" ] || s+=" SRC=other"
	top=$(realpath -m "$TOP") out=$(realpath -m "$OUT")
	if [ "$(realpath -m "$PATCHES_ROOT")" != "$top/patches" ]; then
		dir=$(realpath -m "$KB_SERIES_DIR")
		case $dir in
		"$out"/*|"$out") s+=" SERIES=other" ;;
		"$top"/*) s+=" SERIES=${dir#"$top"/}" ;;
		*) s+=" SERIES=other" ;;
		esac
	fi
	read -r -a words <<<"${BUILD_TARGETS:-}"
	[ ${#words[@]} -eq 0 ] || s+=" BUILD_TARGETS=$(IFS=+; echo "${words[*]}")"
	printf '%s\n' "$s"
}

# kb_children_cpu: the CPU ticks (user+system) of this script's children
# that have ended (/proc/$$/stat cutime + cstime; $$ is the script even in a
# subshell).
kb_children_cpu() {
	local st
	read -r -a st </proc/$$/stat || { echo 0; return 0; }
	echo $((st[15] + st[16]))
}

# kb_log_build ID TARGETS HOW OBJECTS WALL CPU_TICKS HITS MISSES: appends
# this build's line to MMBATCH_BUILDS_LOG (nothing when unset), the identity
# values read from ID (after build.sh wrote it). One short line, written by
# one printf under the log's flock: lanes append side by side.
kb_log_build() {
	[ -n "${MMBATCH_BUILDS_LOG:-}" ] || return 0
	local id=$1 targets=$2 how=$3 objects=$4 wall=$5 ticks=$6 hits=$7 misses=$8
	local dir rel chash shash xhash seed cpu
	dir=$(bid_get "$id" BUILD_DIR) && rel=$(bid_get "$id" KERNELRELEASE) &&
		chash=$(bid_get "$id" CONFIG_HASH) && shash=$(bid_get "$id" SERIES_HASH) || return 1
	xhash=$(bid_get "$id" EXTRA_PATCHES_HASH 2>/dev/null) || xhash=-
	seed=$(cat "$dir/.mmbatch-seed" 2>/dev/null) || seed=
	cpu=$(( (ticks + $(getconf CLK_TCK) / 2) / $(getconf CLK_TCK) ))
	{
		flock 9 && printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
			"${MMBATCH_CHECK_STAGE:--}" "$dir" "$rel" "$(kb_build_knobs)" "$chash" "$shash" "$xhash" \
			"$targets" "${seed:--}" "$how" "$objects" "$wall" "$cpu" "${hits:--}" "${misses:--}" >&9
	} 9>>"$MMBATCH_BUILDS_LOG"
}
