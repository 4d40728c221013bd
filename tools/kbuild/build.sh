#!/bin/bash
# Stage 4 (build): compiles the configured kernel in its build dir
# (out/build/<...>/, kbuild O=) and prints the bzImage path as its last line.
# Runs make -jJOBS through ccache (CCACHE_DIR honoured; CCACHE_BASEDIR=$OUT and
# CCACHE_NOHASHDIR=1 so equal layouts under different roots share hits;
# CCACHE_DEPEND=1, no preprocessor run on a miss), with
# distcc behind ccache when DISTCC_HOSTS is set (CCACHE_PREFIX=distcc: only
# cache misses travel; CCACHE=0 sends every compile) and -j raised to the
# host list's slots (`distcc -j`) unless JOBS is given. BUILD_TARGETS builds
# only those kbuild targets (e.g. "mm/"; the distcc test uses it) and prints the
# build dir last instead of the bzImage. The build identity is fixed
# (SOURCE_DATE_EPOCH, KBUILD_BUILD_TIMESTAMP/USER/HOST, see lib.sh). Prints
# phase lines with elapsed times and an objects done/total counter with an
# ETA (total: this dir's last full build; on its first build, prepare runs
# alone and kbuild's own dry run, `make -n`, counts the compiles it plans);
# the full kbuild output goes to build.log, whose tail is shown on failure.
# A guest build dir built for the first time starts from the machine's build
# cache when it holds the same build (tools/kbuild/cache.sh: KB_BUILD_CACHE,
# default 1; store; 0), and a finished guest build is kept there.
# A full build asked for again with nothing kbuild reads changed since this
# dir's last one does not run kbuild: its no-op walk (cc-option probes,
# every object's dependencies, objtool) took 12 s and 18 CPU s on the 6.12
# guest, and make check asks for one build about 19 times. A successful full
# build writes <build dir>/.mmbatch-built last: the key of what it was built
# with (built_key: the build cache's key, the tree's and the dir's paths,
# the linker, what kbuild reads from the environment and from make's
# command line), its start and the names in the dir. While the key is the
# same, the image is the one the identity file records, no file of the tree
# is newer than that start, none of the dir newer than the stamp (but
# mmbatch-build.env, which `make config` rewrites up to date) and no name
# was added or removed, build.sh prints `build: <release> up to date: ...
# (kbuild not run)` and ends as a build that compiled 0 objects (identity,
# builds log line, image path). Anything else runs kbuild, saying why when
# the dir had a stamp; a dir restored from the build cache or seeded
# (KB_SEED_FROM) has none of its own until kbuild finished in it.
# Reads: BASE, SRC, FLAVOR, NR_CPUS, LOCALVERSION, PATCHES, EXTRA_PATCHES,
#        JOBS (default nproc, or the distcc slots), CCACHE (default 1; 0 = plain
#        gcc), CCACHE_DIR, DISTCC_HOSTS (distcc's host list, e.g.
#        "host1/8 host2:3632/8"), BUILD_TARGETS, KCFLAGS, PROGRESS_SECONDS
#        (default 30), OUT, TOP; KB_IDENTITY_OUT=FILE: the build identity
#        file's path is written to FILE (for scripts; stdout stays as it is);
#        MMBATCH_BUILDS_LOG=FILE (tools/check.sh, `make check`): a build that
#        reached kbuild, the build cache's restore or the up-to-date check's
#        "up to date" (a compiled row of 0 objects) appends one line to FILE
#        (nothing else printed), 15 tab-separated fields: stage
#        (MMBATCH_CHECK_STAGE, or -), build_dir, kernelrelease, knobs,
#        config_hash, series_hash, extra_patches_hash, targets, seeded_from,
#        how (compiled|restored), objects, wall_s, cpu_s, ccache_hits,
#        ccache_misses (lib.sh kb_log_build; read by tests/builds/guard.sh);
#        KB_FORCE_MAKE=1: kbuild runs even when the build is up to date (0,
#        the default: it does not); MAKEFLAGS (make's command-line variables
#        that kbuild builds by are in the up-to-date key, make -B runs kbuild).
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/kbuild/cache.sh
. "$(dirname "$0")/cache.sh"

usage() { echo "usage: [BASE=..] [FLAVOR=..] [NR_CPUS=N] [JOBS=N] [CCACHE=0] build.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage

kb_init
kb_cache_check
case ${KB_FORCE_MAKE:-0} in 0 | 1) ;; *) kb_die "KB_FORCE_MAKE='$KB_FORCE_MAKE': expected 0 or 1" ;; esac
[ -f "$KB_BUILD/.config" ] || kb_die "build: no $KB_BUILD/.config: run 'make config' first"
[ -f "$KB_TREE/.mmbatch-tree" ] && [ "$(cat "$KB_TREE/.mmbatch-tree")" = "$KB_TREE_HASH" ] ||
	kb_die "build: tree $KB_TREE missing or stale: run 'make series' first"

jobs=${JOBS:-$(nproc)}
cc=gcc
if [ "${CCACHE:-1}" = 1 ]; then
	command -v ccache >/dev/null || kb_die "build: ccache not installed (make deps-kernel, or CCACHE=0)"
	export CCACHE_BASEDIR=$OUT CCACHE_NOHASHDIR=1
	# Depend mode: a miss compiles once and takes the dependencies from the
	# compiler's own -MMD file (kbuild passes -Wp,-MMD), instead of running
	# the preprocessor first to hash its output. Kernel sources pull in so
	# many headers that this extra preprocessor pass made a cold build about
	# a fifth dearer in CPU; hits still come from direct mode's manifests.
	export CCACHE_DEPEND=1
	[ -n "${CCACHE_DIR:-}" ] || kb_note "build: CCACHE_DIR unset: using ccache's default cache directory"
	cc="ccache gcc"
fi
if [ -n "${DISTCC_HOSTS:-}" ]; then
	command -v distcc >/dev/null || kb_die "build: DISTCC_HOSTS set but distcc is not installed"
	# distcc -j prints nothing (and exits 0) for a list it cannot parse.
	slots=$(distcc -j 2>/dev/null || true)
	[[ "$slots" =~ ^[1-9][0-9]*$ ]] ||
		kb_die "build: DISTCC_HOSTS='$DISTCC_HOSTS': distcc cannot parse this host list (see distcc(1) HOST SPECIFICATIONS)"
	export DISTCC_HOSTS
	if [ "${CCACHE:-1}" = 1 ]; then
		export CCACHE_PREFIX=distcc
		kb_note "build: distcc behind ccache: only cache misses are sent (CCACHE=0 sends every compile)"
	else
		cc="distcc gcc"
	fi
	[ -n "${JOBS:-}" ] || jobs=$slots
	kb_note "build: distcc to '$DISTCC_HOSTS' ($slots slots), -j$jobs"
fi
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || kb_die "build: JOBS='$jobs': expected a positive integer"

kb_lock "$KB_TREE.lock" -s
kb_lock "$KB_BUILD.lock"
# The builds log's wall and CPU time: from here, not the wait for a lock.
log_t0=$SECONDS log_c0=$(kb_children_cpu)
# What the tree holds from here on is what this build reads (series.sh
# waits for the shared lock): the stamp's start, in ns, 50 ms early for
# the coarser clock that dates files.
since_ns=$(($(date +%s%N) - 50000000))
log=$KB_BUILD/build.log
countf=$KB_BUILD/.mmbatch-objcount
cache_key='' restored=''
if kb_cache_eligible; then
	cache_key=$(kb_cache_key "$cc")
	if kb_cache_fresh_dir && kb_cache_restore "$cache_key"; then
		restored=", restored from the build cache"
	fi
fi

# The up-to-date check (see the top). Only a stamp this dir's own build
# wrote counts: seeding (KB_SEED_FROM) leaves out .mmbatch-*, a dir restored
# from the build cache (an entry stored by an up-to-date request holds the
# stamp) runs kbuild, which removes it first, and the key names the tree
# and the build dir, so a stamp copied anywhere else never matches.
stamp=$KB_BUILD/.mmbatch-built
# built_key: what a full build of this dir is made with besides the files
# of its tree and dir: the build cache's key (the tree's hash, the release,
# the .config, KCFLAGS, the compiler command, the fixed build identity,
# gcc's and the toolchain's versions), the tree's and the dir's paths
# (kbuild records both), the linker, the signing key, what kbuild reads from
# the environment, and those of make's command-line variables that reach
# kbuild's make through MAKEFLAGS and change what it builds (`make kernel
# W=1`): the same names as from the environment, and W, C, CC, LD, HOSTCC.
# Not the others (a test's `make check-vm ONLY=...`, BASE and FLAVOR, which
# name the build dir: kbuild reads none of them), nor JOBS.
# Taken before kbuild runs: a .config kbuild rewrites is a new key, and
# the next request runs kbuild once more.
built_key() {
	local mf=" ${MAKEFLAGS:-} " vars=''
	case $mf in *" -- "*) vars=${mf#* -- } ;; esac
	{
		echo "mmbatch-built/1 tree=$KB_TREE build=$KB_BUILD sign=$KB_SIGN_FPR $KB_SIGN_KEY"
		echo "${cache_key:-$(kb_cache_key "$cc")}"
		ld --version 2>&1 | head -n 1
		# One line per variable (a newline in a value as \036); never
		# KBUILD_SIGN_PIN, a passphrase that only modules_install uses.
		env -0 | tr '\n\0' '\036\n' | LC_ALL=C sort |
			grep -E '^(KBUILD_[A-Z0-9_]*|KCONFIG_[A-Z0-9_]*|K[A-Z0-9]*FLAGS|HOST[A-Z0-9]*FLAGS|ARCH|SUBARCH|SRCARCH|CROSS_COMPILE|LLVM|LLVM_IAS)=' |
			grep -v '^KBUILD_SIGN_PIN=' || true
		# make's variables: the words after " -- " (a space in a
		# value as "\ "), one per line, those kbuild builds by.
		printf '%s\n' "$vars" | sed -E 's/([^\\]) /\1\n/g' |
			grep -E '^(KBUILD_[A-Z0-9_]*|KCONFIG_[A-Z0-9_]*|K[A-Z0-9]*FLAGS|HOST[A-Z0-9]*FLAGS|ARCH|SUBARCH|SRCARCH|CROSS_COMPILE|LLVM|LLVM_IAS|W|C|CC|LD|HOSTCC)=' |
			grep -v '^KBUILD_SIGN_PIN=' | sed 's/^/make: /' || true
	} | kb_sha
}
# built_names: the names in the build dir but the stamp's, hashed: a file
# deleted, added or renamed (which no date shows) is another list.
built_names() {
	find -H "$KB_BUILD" -mindepth 1 ! -path "$stamp" -printf '%P\0' | LC_ALL=C sort -z | kb_sha
}
# uptodate_why: status 0 when this full build is up to date; else 1, and
# why kbuild runs where the dir has a stamp (or where it is told to).
uptodate_why() {
	local flags rest key since list f hash image=$KB_BUILD/arch/x86/boot/bzImage
	[ "${KB_FORCE_MAKE:-0}" = 0 ] || { echo "KB_FORCE_MAKE=1"; return 1; }
	# make -B: MAKEFLAGS' first word holds the one-letter options.
	read -r flags rest <<<"${MAKEFLAGS:-}" || true
	case ${flags:-} in -*) ;; *B*) echo "make -B (MAKEFLAGS)"; return 1 ;; esac
	[ -f "$stamp" ] || return 1
	key=$(sed -n 's/^key=//p' "$stamp") since=$(sed -n 's/^since=//p' "$stamp") list=$(sed -n 's/^names=//p' "$stamp")
	if [ -z "$key" ] || [ "$key" != "$built_key" ] || ! [[ $since =~ ^[0-9]+\.[0-9]{9}$ ]] || [ -z "$list" ]; then
		echo "the compiler, its flags, the .config, the tree or the release differ from its last build's"
		return 1
	fi
	hash=$(bid_get "$KB_BUILD/mmbatch-build.env" IMAGE_HASH 2>/dev/null) || hash=
	if [ -z "$hash" ] || [ ! -f "$image" ] || [ "$(kb_sha <"$image")" != "$hash" ]; then
		echo "its image is not the one its identity file records"
		return 1
	fi
	# Dates as make compares them (mtime). The tree against the last
	# build's start: a file changed while kbuild ran counts too. -H: a
	# tree or build dir that is a symlink is walked all the same.
	f=$(find -H "$KB_TREE" -newermt "@$since" -print -quit) || f="$KB_TREE (not read through)"
	[ -z "$f" ] || { echo "$f changed since its last build started"; return 1; }
	f=$(find -H "$KB_BUILD" -mindepth 1 -newer "$stamp" ! -path "$KB_BUILD/mmbatch-build.env" -print -quit) ||
		f="$KB_BUILD (not read through)"
	[ -z "$f" ] || { echo "$f changed since its last build"; return 1; }
	[ "$(built_names)" = "$list" ] || { echo "files were added to or removed from $KB_BUILD since its last build"; return 1; }
}
built_key='' uptodate='' why=''
if [ -z "${BUILD_TARGETS:-}" ]; then
	# No key (it failed): kbuild runs and no stamp is written.
	built_key=$(built_key) || built_key=''
	if [ -z "$restored" ] && why=$(uptodate_why); then uptodate=1; fi
fi

total=$(cat "$countf" 2>/dev/null || true)
ccache_stats() {
	[ "${CCACHE:-1}" = 1 ] || return 0
	ccache --print-stats 2>/dev/null | awk '
		$1 ~ /^(direct_cache_hit|preprocessed_cache_hit)$/ { h += $2 }
		$1 == "cache_miss" { m += $2 }
		END { printf "%d %d\n", h, m }'
}
stats0=$(ccache_stats)
# log_build TARGETS STATS1: this run's line in MMBATCH_BUILDS_LOG (lib.sh
# kb_log_build), STATS1 ccache's counts now; prints nothing unless it fails.
log_build() {
	[ -n "${MMBATCH_BUILDS_LOG:-}" ] || return 0
	local hits=- misses=- h0 m0 h1 m1
	if [ -n "$stats0" ] && [ -n "$2" ]; then
		read -r h0 m0 <<<"$stats0"; read -r h1 m1 <<<"$2"
		hits=$((h1 - h0)) misses=$((m1 - m0))
	fi
	kb_log_build "$KB_BUILD/mmbatch-build.env" "$1" "$([ -n "$restored" ] && echo restored || echo compiled)" \
		"$n" $((SECONDS - log_t0)) $(($(kb_children_cpu) - log_c0)) "$hits" "$misses" ||
		kb_note "build: the builds log $MMBATCH_BUILDS_LOG: this build's line not written"
}
# kbuild's one-line-per-step output becomes phase lines and a progress count.
# progress T0 N0 [prepare]: T0 the build's start ($SECONDS), N0 the objects
# compiled before this make ran (by its prepare run); the count goes to
# .mmbatch-lastcount. "prepare": the make of a first build's prepare run,
# whose compiles (host tools, bounds, asm-offsets) stay in phase prepare.
# A total from kbuild's dry run (total_planned=1) lacks the modules' .mod.o,
# one per module, compiled after modpost: when the modules phase starts,
# modules.order (written before modpost) gives their number and the total
# grows by it (the 6.12 cloud flavor: 1138 of its 6622 objects).
progress() {
	local t0=$1 n=$2 last=$SECONDS phase=0 line fixed=${3:-}
	local names=(prepare compile link image modules)
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$log"
		local p=$phase
		case "$line" in
		"  CC "*|"  AS "*|"  HOSTCC "*|"  HOSTCXX "*)  # also "  CC [M] ..."
			n=$((n + 1)); [ $p -ge 1 ] || p=1 ;;
		"  LD      vmlinux.o"|"  LD      .tmp_vmlinux"*|"  LD      vmlinux") [ $p -ge 2 ] || p=2 ;;
		"  LD      arch/x86/boot/compressed/vmlinux") [ $p -ge 3 ] || p=3 ;;
		"  MODPOST Module.symvers"|"  LD [M] "*) [ $phase -lt 2 ] || [ $p -ge 4 ] || p=4 ;;
		esac
		[ "$fixed" != prepare ] || p=0
		if [ $p -ne $phase ]; then
			phase=$p
			if [ "$phase" = 4 ] && [ "${total_planned:-0}" = 1 ] && [ -f "$KB_BUILD/modules.order" ]; then
				total_planned=0
				total=$((total + $(grep -c . "$KB_BUILD/modules.order" || true)))
			fi
			echo "build: [$(printf '%4d' $((SECONDS - t0)))s] phase ${names[phase]} (objects $n/${total:-?})" >&2
		fi
		if [ $((SECONDS - last)) -ge "${PROGRESS_SECONDS:-30}" ]; then
			last=$SECONDS
			echo "build: [$(printf '%4d' $((SECONDS - t0)))s] ${names[phase]}: objects $n/${total:-?}$(eta "$t0" "$n")" >&2
		fi
	done
	echo "$n" >"$KB_BUILD/.mmbatch-lastcount"
}

# eta T0 N: ", ETA about Xm Ys" from the compile rate so far (N of $total
# objects since T0), or nothing without a total or once N reaches it.
eta() {
	local spent=$((SECONDS - $1)) n=$2 left
	[ -n "$total" ] && [ "$n" -gt 0 ] && [ "$n" -lt "$total" ] && [ "$spent" -gt 0 ] || return 0
	left=$(((total - n) * spent / n))
	printf ', ETA about %dm%02ds' $((left / 60)) $((left % 60))
}

# kmake ARGS...: kbuild's make in this build dir.
kmake() {
	make -C "$KB_TREE" O="$KB_BUILD" CC="$cc" HOSTCC="$cc" LOCALVERSION= "$@"
}

if [ -n "$uptodate" ]; then
	echo "build: $KB_RELEASE up to date: nothing in $KB_TREE or $KB_BUILD is newer than its last build (kbuild not run)" >&2
	t0=$SECONDS n=0
else
	# kbuild changes the dir from here on: no stamp until a full build
	# of it has finished.
	rm -f "$stamp"
	[ -z "$why" ] || kb_note "build: kbuild runs: $why"
	echo "build: $KB_RELEASE in $KB_BUILD (make -j$jobs, CC='$cc', log $log)" >&2
	: >"$log"
	t0=$SECONDS
	rc=0
	echo "build: [$(printf '%4d' 0)s] phase prepare" >&2
	n0=0
	if [ -z "$total" ] && [ -z "${BUILD_TARGETS:-}" ]; then
		# The first build of this dir: no count to go by. kbuild's dry
		# run lists the compiles it plans once prepare's generated files
		# exist (without them it stops at objtool); it misses the
		# modules' .mod.o (made after modpost), added when the modules
		# phase starts (progress).
		kmake -j"$jobs" prepare 2>&1 | progress "$t0" 0 prepare || rc=$?
		if [ "$rc" -eq 0 ]; then
			n0=$(cat "$KB_BUILD/.mmbatch-lastcount")
			t1=$SECONDS
			# It exits non-zero where a rule needs a file only a
			# real run makes (vmlinux.a); what it listed up to there
			# is the plan.
			planned=$(kmake -n 2>/dev/null | grep -cE "^(.*; )?[[:space:]]*echo '  (CC|AS|HOSTCC|HOSTCXX) " || true)
			if [ "${planned:-0}" -gt 0 ]; then
				total=$((n0 + planned)) total_planned=1
				echo "build: first build of this dir: kbuild's dry run plans $planned objects after prepare's $n0 (objects total $total; dry run $((SECONDS - t1)) s)" >&2
			else
				kb_note "build: first build of this dir: kbuild's dry run listed no compile: objects total unknown"
			fi
		fi
	fi
	# shellcheck disable=SC2086 # BUILD_TARGETS is a list of kbuild targets
	[ "$rc" -ne 0 ] || kmake -j"$jobs" ${BUILD_TARGETS:-} 2>&1 | progress "$t0" "$n0" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "build: FAILED after $((SECONDS - t0)) s; last 40 lines of $log:" >&2
		tail -n 40 "$log" >&2
		exit 1
	fi
	n=$(cat "$KB_BUILD/.mmbatch-lastcount")
fi
if [ -n "${BUILD_TARGETS:-}" ]; then
	echo "build: $KB_RELEASE: targets '$BUILD_TARGETS' done in $((SECONDS - t0)) s ($n objects compiled)" >&2
	# kbuild may have rewritten .config (CC='distcc gcc' changes
	# CONFIG_CC_VERSION_TEXT): the identity names the .config as it is now.
	kb_write_identity "$KB_BUILD/mmbatch-build.env"
	read -r -a bt <<<"$BUILD_TARGETS"
	log_build "$(IFS=+; echo "${bt[*]}")" "$([ -z "${MMBATCH_BUILDS_LOG:-}" ] || ccache_stats)"
	[ -z "${KB_IDENTITY_OUT:-}" ] || echo "$KB_BUILD/mmbatch-build.env" >"$KB_IDENTITY_OUT"
	echo "$KB_BUILD"
	exit 0
fi
# The dir's own count: its first full build's, or a larger one since.
[ -s "$countf" ] && [ "$(cat "$countf")" -ge "$n" ] || echo "$n" >"$countf"
image=$KB_BUILD/arch/x86/boot/bzImage
[ -f "$image" ] || kb_die "build: make succeeded but $image is missing"
release=$(cat "$KB_BUILD/include/config/kernel.release")
[ "$release" = "$KB_RELEASE" ] || kb_die "build: kernel release is '$release', expected '$KB_RELEASE'"
kb_write_identity "$KB_BUILD/mmbatch-build.env"
bid_update "$KB_BUILD/mmbatch-build.env" IMAGE="$image" IMAGE_HASH="$(sha256sum <"$image" | cut -c1-64)"
stats1=$(ccache_stats)
cstat=
if [ -n "$stats0" ] && [ -n "$stats1" ]; then
	read -r h0 m0 <<<"$stats0"; read -r h1 m1 <<<"$stats1"
	cstat=", ccache $((h1 - h0)) hits / $((m1 - m0)) misses"
fi
echo "build: $release done in $((SECONDS - t0)) s ($n objects compiled$cstat$restored)" >&2
log_build all "$stats1"
if [ -n "$cache_key" ] && [ -z "$restored" ]; then
	kb_cache_store "$cache_key" "$(bid_get "$KB_BUILD/mmbatch-build.env" IMAGE_HASH)" ||
		kb_note "build: keeping $KB_BUILD in the build cache ($(kb_cache_dir)) failed; the build stands"
fi
# The stamp, last (see the top): the key taken before kbuild ran, the
# build's start, the names in the dir now. An up-to-date run keeps the one
# there.
if [ -z "$uptodate" ] && [ -n "$built_key" ] && ! { list=$(built_names) &&
	printf 'key=%s\nsince=%s\nnames=%s\n' "$built_key" "${since_ns:0:-9}.${since_ns: -9}" "$list" >"$stamp"; }; then
	rm -f "$stamp"
	kb_note "build: $stamp not written: the next request runs kbuild again"
fi
[ -z "${KB_IDENTITY_OUT:-}" ] || echo "$KB_BUILD/mmbatch-build.env" >"$KB_IDENTITY_OUT"
echo "$image"
