#!/bin/bash
# `make check-pipeline`: the kernel pipeline's stages 1-4 on real sources
# and on fixtures (tests/pipeline/fixtures/). Tests (ONLY=pipeline/NAME):
#  source    SRC=PATH: a tarball and a git tree (own OUT), unpacked once,
#            again only when they change; the base is read from the tree's
#            Makefile; bad ones fail naming the path;
#  patches   patches-check passes on every base; the good fixture passes, the
#            broken fixture reports each broken patch and each false MANIFEST
#            claim;
#  series    a series with a patch that cannot apply fails with
#            `series: PATCH: hunk N FAILED at FILE:LINE` and leaves pristine
#            source and existing trees untouched; a good extra patch lands in
#            its own tree (named by the patch's hash);
#  dates     a changed series re-dates only the files whose content changed;
#  seed      KB_SEED_FROM with EXTRA_PATCHES (tiny SRC tree, own OUT, no
#            compile): the new tree with them dates the series' files as the
#            tree without them has them and what they change now; a build of
#            that tree passes the seed check (config.sh goes on to kconfig),
#            one of another tree, or of it before its last change, fails with
#            one line and nothing written; a seeded copy forgets kbuild's
#            records of the targets that read what they change (the real
#            seeding: check-prebuild's make canary-bad-kernel);
#  names     the names derived from the knobs (tree, build dir, release);
#  config    a config fragment asking for impossible options fails listing
#            each one, the previous .config untouched;
#  identity  the build identity file (tools/kbuild/identity.sh) of a config in
#            a scratch build dir: what it says, an image recorded for it kept
#            by an unchanged config and dropped by a new one (NR_CPUS), bid_get
#            of a missing key or file fails naming them; KB_SEED_FROM: a new
#            dir starts as a copy of a built one (times kept, its own config
#            and identity), and one line with nothing written for a seed
#            that is no build dir, not built, or of another tree; the
#            guest's tinyconfig kept per tree and toolchain (a scratch
#            KB_BUILD_CACHE_DIR): made by the first config, taken by the
#            next ones, the same .config as tinyconfig's own; another tree
#            or compiler another entry, a cut-off entry or KB_BUILD_CACHE=0
#            not read;
#  debug     the debug variant (DEBUG=1, configs/kernel/debug): DEBUG=2 fails
#            with one line and writes nothing; its names (build dir -debug,
#            release +debug); the config stage of cloud and generic +debug of
#            both bases in scratch build dirs (every debug option survives
#            olddefconfig, the report says debug yes, the identity DEBUG=1);
#            `make debug-kernel-<base>` of PIPELINE_DEBUG_BASES (default
#            both; make check: CHECK_DEBUG_BASES, the others a listed
#            skip): the identity file at
#            out/build/<base>-guest-debug/mmbatch-build.env with its IMAGE;
#  kernel    `make config` and `make kernel FLAVOR=guest` for 6.12, then 6.1
#            (ccache; these builds are reused by the packaging tests and the
#            VM harness); each build is then read through its identity file,
#            by path (out/build/<base>-guest/mmbatch-build.env); the
#            release suffix in the build dir's localversion-mmbatch, not
#            in CONFIG_LOCALVERSION (autoconf.h: ccache direct mode); on a
#            build dir's first build, the objects total from kbuild's dry
#            run (within 10% of the objects then compiled: 6.1, built with
#            KB_BUILD_CACHE=store, compiles on every fresh OUT); 6.12 restored
#            from the machine's build cache when it holds it: nothing
#            compiled, the image the entry was kept with;
#  cache     the 6.12 guest build from the machine's build cache
#            (tools/kbuild/cache.sh) into another build dir and under
#            another OUT (another tree's path): nothing compiled, the same
#            image, no path of the first build left in its text files;
#            KB_BUILD_CACHE=yes fails with one line;
#  uptodate  build.sh's up-to-date check on that 6.12 guest build
#            (tests/pipeline/uptodate.sh): asked for again it runs no
#            kbuild and compiles nothing; a touched source of the tree, or
#            its object deleted from the build dir, runs kbuild, which
#            compiles that object; KB_FORCE_MAKE=1 runs kbuild.
# Reads: TOP, OUT, MAKE, ONLY (tests/lib/assert.sh's selector),
#        PIPELINE_DEBUG_BASES.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
TEST_NAME=${TEST_STAGE:-pipeline}
make_cmd=${MAKE:-make}
fx=$TOP/tests/pipeline/fixtures
kb=$TOP/tools/kbuild
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs KB_IDENTITY_OUT
# Its pure helpers (kb_patch_hash, kb_series_*) and identity.sh's bid_get;
# after the knobs are unset (lib.sh sets PATCHES_ROOT's default).
# shellcheck source=tools/kbuild/lib.sh
. "$kb/lib.sh"
scratch
# The identity test's kconfig work dir (config.sh keeps it by build dir name).
remove_kconfig_dir() { rm -rf "$OUT/build/.kconfig/pipeline-identity" "$OUT/build/.kconfig/pipeline-seeded" "$OUT/build/.kconfig/pipeline-debug-"* "$OUT/build/.kconfig/pipeline-cache-"*; }
# shellcheck disable=SC2034 # run by tests/lib/assert.sh's EXIT trap
cleanup_hook=remove_kconfig_dir

sha() { sha256sum | cut -c1-64; }
# pristine BASE: the unpacked pristine source of BASE (stage 1, made when
# missing), found where the layout puts it: out/src/BASE/pristine/linux-*.
pristine() {
	local d
	BASE=$1 "$kb/source.sh" >/dev/null 2>&1
	for d in "$OUT/src/$1/pristine"/linux-*; do [ -f "$d/Makefile" ] && echo "$d"; done
}

if selected source; then
	echo "== source: SRC= a tarball and a git tree (tiny trees, own OUT)"
	t=$T/source
	mkdir -p "$t/linux-6.12.999/mm" "$t/git"
	printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 999\nEXTRAVERSION =\n' >"$t/linux-6.12.999/Makefile"
	echo v1 >"$t/linux-6.12.999/mm/file.c"
	tar -C "$t" -czf "$t/linux-6.12.999.tar.gz" linux-6.12.999
	src() { SRC=$1 OUT=$t/out "$kb/source.sh" 2>"$t/src.err"; }
	p=$(src "$t/linux-6.12.999.tar.gz")
	expect_eq "tarball: unpacked tree named by the Makefile's version" linux-6.12.999 "${p##*/}"
	expect_eq "tarball: content" v1 "$(cat "$p/mm/file.c" 2>&1)"
	p2=$(src "$t/linux-6.12.999.tar.gz")
	expect_eq "tarball: same path again" "$p" "$p2"
	expect_contains "tarball: not unpacked twice" "unpacked already" "@$t/src.err"
	echo v2 >"$t/linux-6.12.999/mm/file.c"
	tar -C "$t" -czf "$t/linux-6.12.999.tar.gz" linux-6.12.999
	touch -d '+1 min' "$t/linux-6.12.999.tar.gz"
	p=$(src "$t/linux-6.12.999.tar.gz")
	expect_eq "tarball: a changed tarball is unpacked again" v2 "$(cat "$p/mm/file.c" 2>&1)"
	# kb_init itself is under test here: the base it derives from SRC.
	expect_eq "tarball: base for the series (read from the Makefile)" 6.12 \
		"$(SRC=$t/linux-6.12.999.tar.gz OUT=$t/out bash -c '. "$0/lib.sh"; kb_init >/dev/null 2>&1; echo "$KB_BASE"' "$kb")"
	cp -a "$t/linux-6.12.999/." "$t/git/"
	git -C "$t/git" init -q && git -C "$t/git" add -A &&
		git -C "$t/git" -c user.name=t -c user.email=t@t commit -qm one
	p=$(src "$t/git")
	expect_eq "git tree: copied, named by the Makefile's version" "linux-6.12.999 v2" "${p##*/} $(cat "$p/mm/file.c" 2>&1)"
	expect_absent "git tree: .git not copied" "$p/.git"
	src "$t/git" >/dev/null
	expect_contains "git tree: same HEAD, not copied again" "unpacked already" "@$t/src.err"
	echo v3 >"$t/git/mm/file.c"
	git -C "$t/git" -c user.name=t -c user.email=t@t commit -qam two
	p=$(src "$t/git")
	expect_eq "git tree: a new commit is copied again" v3 "$(cat "$p/mm/file.c" 2>&1)"
	echo dirty >"$t/git/mm/file.c"
	p=$(src "$t/git")
	expect_eq "git tree: uncommitted changes are copied too" dirty "$(cat "$p/mm/file.c" 2>&1)"
	rc=0; src "$t/nonexistent" >/dev/null || rc=$?
	expect_status "SRC that does not exist" 1 "$rc"
	expect_contains "SRC that does not exist: names it" "SRC='$t/nonexistent' does not exist" "@$t/src.err"
	mkdir -p "$t/two/a" "$t/two/b"
	tar -C "$t/two" -czf "$t/two.tar.gz" a b
	rc=0; src "$t/two.tar.gz" >/dev/null || rc=$?
	expect_status "tarball without one kernel directory" 1 "$rc"
	expect_contains "tarball without one kernel directory: names it" "$t/two.tar.gz does not hold one kernel directory" "@$t/src.err"
fi

if selected patches; then
	echo "== patches-check: every base of patches/"
	rc=0; "$kb/patches-check.sh" >"$T/pc.out" 2>&1 || rc=$?
	sed 's/^/    /' "$T/pc.out"
	expect_status "patches-check (patches/)" 0 "$rc"
	for base in $(find "$TOP/patches" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | grep -E '^[0-9]+\.[0-9]+$'); do
		expect_contains "patches-check summary" "$base ok" "@$T/pc.out"
	done

	echo "== patches-check: good fixture"
	rc=0; PATCHES_ROOT=$fx/patches-good "$kb/patches-check.sh" >"$T/good.out" 2>&1 || rc=$?
	expect_status "patches-check (good fixture)" 0 "$rc"
	expect_line "good fixture" "patches-check 6.12: 0001-fixture-comment.patch: applied" "@$T/good.out"
	expect_line "good fixture" "patches-check 6.12: change fixture-migrate-batch (in-base, upstream 6.3): already in base" "@$T/good.out"
	expect_line "good fixture" "patches-check 6.12: change fixture-comment (patched by 0001-fixture-comment.patch): patched (1 verify lines: absent before, present after)" "@$T/good.out"

	echo "== patches-check: broken fixture"
	rc=0; PATCHES_ROOT=$fx/patches-broken "$kb/patches-check.sh" >"$T/broken.out" 2>&1 || rc=$?
	expect_status "patches-check (broken fixture)" 1 "$rc"
	expect_line "broken fixture" "patches-check 6.12: 0001-fixture-comment.patch: applied" "@$T/broken.out"
	expect_line "broken fixture" "patches-check 6.12: 0002-fixture-broken-context.patch: FAILED" "@$T/broken.out"
	expect_line "broken fixture" "  series: 0002-fixture-broken-context.patch: hunk 2 FAILED at CREDITS:198" "@$T/broken.out"
	expect_line "broken fixture" "patches-check 6.12: change fixture-false-in-base (in-base, upstream 6.3): FAILED" "@$T/broken.out"
	expect_line "broken fixture" "patches-check 6.12: change fixture-already-there (patched by 0001-fixture-comment.patch): FAILED" "@$T/broken.out"
	expect_line "broken fixture" "  verify README '^Linux kernel$' already matches before the series" "@$T/broken.out"
	expect_line "broken fixture" "patches-check: 6.12 FAILED" "@$T/broken.out"

	echo "== patches-check: malformed MANIFEST"
	mkdir -p "$T/bad/6.12"
	printf 'change: x\nstatus: maybe\n' >"$T/bad/6.12/MANIFEST"
	rc=0; PATCHES_ROOT=$T/bad "$kb/patches-check.sh" >"$T/bad.out" 2>&1 || rc=$?
	expect_status "patches-check (malformed MANIFEST)" 2 "$rc"
	expect_contains "malformed MANIFEST" "$T/bad/6.12/MANIFEST:2: change x: status must be patched or in-base, got \"maybe\"" "@$T/bad.out"
fi

if selected series; then
	echo "== series: a patch that cannot apply"
	pristine=$(pristine 6.12)
	# The patched 6.12 tree, where the layout puts it (BASE=6.12, PATCHES=1).
	tree=$OUT/tree/6.12-mmbatch
	rc=0; BASE=6.12 "$kb/series.sh" >"$T/series0.out" 2>&1 || rc=$?
	expect_status "series.sh BASE=6.12" 0 "$rc"
	expect_eq "series.sh BASE=6.12: last line, the tree" "$tree" "$(tail -n 1 "$T/series0.out")"
	# The whole pristine tree; of the existing tree its stamp and the files
	# the fixture series touches.
	tree_state() { cat "$tree/.mmbatch-tree" "$tree/README" "$tree/CREDITS" | sha256sum | cut -c1-16; }
	before_p=$(tree_sum "$pristine" meta); before_t=$(tree_state)
	rc=0; BASE=6.12 EXTRA_PATCHES="$fx/patches-broken/6.12/0001-fixture-comment.patch $fx/patches-broken/6.12/0002-fixture-broken-context.patch" \
		"$kb/series.sh" >"$T/series.out" 2>&1 || rc=$?
	expect_status "series.sh with a broken patch" 1 "$rc"
	expect_line "series.sh message" "series: 0002-fixture-broken-context.patch: hunk 2 FAILED at CREDITS:198" "@$T/series.out"
	expect_eq "pristine checksum after the failed series" "$before_p" "$(tree_sum "$pristine" meta)"
	expect_eq "existing tree checksum after the failed series" "$before_t" "$(tree_state)"
	# Nothing of the extra tree (out/x/x<sha8>/tree/): neither it nor a scratch copy.
	bad_root=$OUT/x/x$(kb_patch_hash "$fx/patches-broken/6.12/0001-fixture-comment.patch" "$fx/patches-broken/6.12/0002-fixture-broken-context.patch" | cut -c1-8)
	left=$(find "$bad_root/tree" -mindepth 1 -maxdepth 1 -type d -printf '%f ' 2>/dev/null || true)
	expect_eq "half-made trees left behind" "" "$left"

	echo "== series: a patch that applies, in its own tree"
	good=$fx/patches-good/6.12/0001-fixture-comment.patch
	nseries=$(kb_series_entries "$TOP/patches/6.12" | grep -c . || true)
	# Its tree is out/x/x<sha8>/tree/, <sha8> the hash of the extra patches, at
	# the base tree's place relative to its build dir (ccache's hits).
	xtree=$OUT/x/x$(kb_patch_hash "$good" | cut -c1-8)/tree/6.12-mmbatch
	rc=0; BASE=6.12 EXTRA_PATCHES="$good" "$kb/series.sh" >"$T/good-series.out" 2>&1 || rc=$?
	expect_status "series.sh with a good extra patch" 0 "$rc"
	expect_exists "extra tree is separately named (${xtree#"$OUT"/})" "$xtree/.mmbatch-tree"
	expect_eq "series.sh with a good extra patch: last line, its tree" "$xtree" "$(tail -n 1 "$T/good-series.out")"
	expect_eq "fixture line in the extra tree" 1 "$(grep -c 'mmbatch pipeline test fixture' "$xtree/README" || true)"
	expect_eq "fixture lines in pristine README after a good series" 0 "$(grep -c 'mmbatch pipeline test fixture' "$pristine/README")"
	rc=0; BASE=6.12 EXTRA_PATCHES="$good" "$kb/series.sh" >"$T/again.out" 2>&1 || rc=$?
	expect_contains "second run reuses the tree (stamp)" "(up to date, $((nseries + 1)) patches)" "@$T/again.out"
	# ccache (base_dir $OUT) hits across builds only where the compiler sees
	# the same relative paths: the extra build's tree must sit where the
	# base build's does, seen from its build dir.
	# after_init CMD KNOB=V...: CMD's output in a shell where lib.sh's kb_init
	# ran with BASE=6.12 FLAVOR=guest and these knobs.
	# shellcheck disable=SC2016 # the inner bash expands them
	after_init() { local cmd=$1; shift; env BASE=6.12 FLAVOR=guest "$@" bash -c '. "$0/lib.sh"; kb_init >/dev/null 2>&1; eval "$1"' "$kb" "$cmd"; }
	# shellcheck disable=SC2016 # after_init's shell expands them
	tree_from_build() { after_init 'realpath -m --relative-to="$KB_BUILD" "$KB_TREE"' "$@"; }
	expect_eq "extra build: its tree seen from its build dir, as the patched build's" \
		"$(tree_from_build)" "$(tree_from_build EXTRA_PATCHES="$good")"
	expect_eq "vanilla + extra patches (build-each's prefixes): the same" \
		"$(tree_from_build)" "$(tree_from_build PATCHES=0 EXTRA_PATCHES="$good")"
	# shellcheck disable=SC2016 # after_init's shell expands it
	xp=$(after_init 'echo "$KB_TREE"' EXTRA_PATCHES="$good") xv=$(after_init 'echo "$KB_TREE"' PATCHES=0 EXTRA_PATCHES="$good")
	if [ "$xp" != "$xv" ]; then pass "vanilla + extra patches: a tree of its own (${xv#"$OUT"/})"
	else fail "vanilla + extra patches share the patched + extra patches tree $xp"; fi
	rm -rf "$(dirname "$(dirname "$xtree")")"
fi

# tiny_tree DIR [MAKE_RULES]: under DIR, a tiny 6.12 source tree (src/:
# a Makefile with the version, then MAKE_RULES; sub/a.h and sub/b.c dated
# 1000000000), patches/6.12/ for its series, and a/ b/ for tiny_patch.
tiny_tree() {
	mkdir -p "$1/src/sub" "$1/patches/6.12" "$1/a/sub" "$1/b/sub"
	printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n%s' "${2:-}" >"$1/src/Makefile"
	printf 'one\ntwo\nthree\n' >"$1/src/sub/a.h"
	printf 'alpha\nbeta\ngamma\n' >"$1/src/sub/b.c"
	touch -d @1000000000 "$1/src/sub/a.h" "$1/src/sub/b.c"
}
# tiny_patch DIR PATCH FILE SED: PATCH, a patch of DIR/src's FILE made by SED.
tiny_patch() {
	cp "$1/src/$3" "$1/a/$3"; sed "$4" "$1/src/$3" >"$1/b/$3"
	(cd "$1" && diff -u "a/$3" "b/$3" | sed -E '1,2s/\t.*//') >"$2" || true
}

if selected dates; then
	echo "== series: file dates across series changes (tiny SRC tree, own OUT)"
	t=$T/dates
	tiny_tree "$t"
	mkpatch() { tiny_patch "$t" "$t/patches/6.12/$1" "$2" "$3"; } # NAME FILE SED
	dates() { SRC=$t/src OUT=$t/out PATCHES_ROOT=$t/patches "$kb/series.sh" >/dev/null 2>"$t/err" || cat "$t/err"
		stat -c %Y "$t/out/tree/"src-*-mmbatch/sub/a.h "$t/out/tree/"src-*-mmbatch/sub/b.c | tr '\n' ' '; }
	SRC=$t/src OUT=$t/out "$kb/source.sh" >/dev/null 2>&1
	mkpatch 0001-a.patch sub/a.h 's/two/TWO/'; mkpatch 0002-b.patch sub/b.c 's/beta/BETA/'
	printf '0001-a.patch\n0002-b.patch\n' >"$t/patches/6.12/series"
	read -r a1 b1 <<<"$(dates)"
	sleep 1.1
	mkpatch 0002-b.patch sub/b.c 's/beta/BETA2/'
	read -r a2 b2 <<<"$(dates)"
	expect_eq "a.h date after only 0002 changed (content same)" "$a1" "$a2"
	if [ "$b2" -gt "$b1" ]; then pass "b.c dated anew after 0002 changed ($b1 -> $b2)"; else fail "b.c date: expected > $b1, got $b2"; fi
	sleep 1.1
	printf '0002-b.patch\n' >"$t/patches/6.12/series"
	read -r a3 _ <<<"$(dates)"
	expect_eq "a.h content after 0001 was dropped" "two" "$(sed -n 2p "$t/out/tree/"src-*-mmbatch/sub/a.h)"
	if [ "$a3" -gt "$a2" ]; then pass "a.h (back to pristine) dated anew ($a2 -> $a3), not 1000000000"; else fail "a.h date: expected > $a2, got $a3"; fi
fi

if selected seed; then
	echo "== seed: a tree with EXTRA_PATCHES and the build of the tree without them (tiny SRC tree, own OUT)"
	t=$T/seed
	# No Kconfig: the config stage stops at its first kbuild call, after
	# the seed check.
	tiny_tree "$t" 'tinyconfig:
	@echo "tiny test tree: no Kconfig"; exit 1
'
	tiny_patch "$t" "$t/patches/6.12/0001-a.patch" sub/a.h 's/two/TWO/'
	echo 0001-a.patch >"$t/patches/6.12/series"
	tiny_patch "$t" "$t/extra.patch" sub/b.c 's/beta/BAD/'
	tiny() { env SRC="$t/src" OUT="$t/out" PATCHES_ROOT="$t/patches" FLAVOR=guest "$@"; }
	tiny "$kb/source.sh" >/dev/null 2>&1
	rc=0; plain=$(tiny "$kb/series.sh" 2>"$t/err") || rc=$?
	expect_ok "series.sh: the tree without the extra patch" "$rc" "@$t/err"
	pa=$(stat -c %Y "$plain/sub/a.h")
	sleep 1.1
	rc=0; xtree=$(tiny EXTRA_PATCHES="$t/extra.patch" "$kb/series.sh" 2>"$t/err") || rc=$?
	expect_ok "series.sh EXTRA_PATCHES: its tree, made for the first time" "$rc" "@$t/err"
	expect_eq "x-tree: the series' a.h, as in the tree without the extra patch, has that tree's date" \
		"$pa" "$(stat -c %Y "$xtree/sub/a.h" 2>&1)"
	xb=$(stat -c %Y "$xtree/sub/b.c" 2>/dev/null || echo 0)
	if [ "$xb" -gt "$pa" ]; then pass "x-tree: b.c, which the extra patch changes, dated now ($xb)"
	else fail "x-tree: b.c date: expected > $pa (the tree without it), got $xb"; fi

	# mkseed DIR TREE TREE_HASH: a finished build as the seed check sees
	# one (an identity naming TREE and TREE_HASH with an IMAGE, a .config).
	mkseed() {
		mkdir -p "$1" && : >"$1/.config"
		printf 'IDENTITY_VERSION=1\nTREE=%q\nTREE_HASH=%q\nBUILD_DIR=%q\nIMAGE=%q\n' "$2" "$3" "$1" "$1/bzImage" >"$1/mmbatch-build.env"
	}
	# seedcfg SEED KNOB=V...: config.sh of the tiny tree into the new build
	# dir $t/bx, seeded from SEED; the output in $t/cfg.out.
	seedcfg() { rm -rf "$t/bx"; tiny KB_BUILD_DIR="$t/bx" KB_SEED_FROM="$1" "${@:2}" "$kb/config.sh" >"$t/cfg.out" 2>&1; }
	echo "== seed: the seed check with EXTRA_PATCHES"
	r=0 r_out= # capture's
	mkseed "$t/seed-plain" "$plain" "$(cat "$plain/.mmbatch-tree")"
	# shellcheck disable=SC2016 # the inner bash expands them
	capture r tiny EXTRA_PATCHES="$t/extra.patch" bash -c '. "$0/lib.sh"; kb_init >/dev/null 2>&1; kb_seed_check "$1" && echo "$KB_SEED_TREE"' "$kb" "$t/seed-plain"
	expect_ok "kb_seed_check: a build of the tree without the extra patch, as it is now" "$r" "$r_out"
	expect_eq "kb_seed_check: the tree the seed was built from" "$plain" "$r_out"
	rc=0; seedcfg "$t/seed-plain" EXTRA_PATCHES="$t/extra.patch" || rc=$?
	expect_status "config.sh KB_SEED_FROM=<that build> EXTRA_PATCHES: fails in kconfig (the tiny tree has none)" 1 "$rc"
	expect_lacks "config.sh: the seed accepted" "KB_SEED_FROM" "@$t/cfg.out"
	expect_contains "config.sh: went on to kconfig" "config: 'make tinyconfig' failed" "@$t/cfg.out"
	mkseed "$t/seed-6.1" "$t/out/tree/6.1-mmbatch" "$(cat "$plain/.mmbatch-tree")"
	rc=0; seedcfg "$t/seed-6.1" EXTRA_PATCHES="$t/extra.patch" || rc=$?
	expect_status "KB_SEED_FROM of another base's build, EXTRA_PATCHES" 1 "$rc"
	expect_eq "KB_SEED_FROM of another base's build, EXTRA_PATCHES: its one line" \
		"ERROR: config: KB_SEED_FROM=$t/seed-6.1: built from another tree ($t/out/tree/6.1-mmbatch), not from $xtree or $plain (the same without EXTRA_PATCHES)" "$(cat "$t/cfg.out")"
	expect_absent "KB_SEED_FROM of another base's build: nothing written" "$t/bx"
	mkseed "$t/seed-old" "$plain" 0000
	rc=0; seedcfg "$t/seed-old" EXTRA_PATCHES="$t/extra.patch" || rc=$?
	expect_status "KB_SEED_FROM of the tree without the extra patch before its last change" 1 "$rc"
	expect_eq "KB_SEED_FROM of the tree without the extra patch before its last change: its one line" \
		"ERROR: config: KB_SEED_FROM=$t/seed-old: built from $plain before its last change (TREE_HASH differs): build it again first" "$(cat "$t/cfg.out")"
	expect_absent "KB_SEED_FROM of that tree before its last change: nothing written" "$t/bx"
	mkseed "$t/seed-x" "$xtree" "$(cat "$xtree/.mmbatch-tree")"
	rc=0; seedcfg "$t/seed-x" || rc=$?
	expect_status "KB_SEED_FROM of the x-tree's build, without EXTRA_PATCHES" 1 "$rc"
	expect_eq "KB_SEED_FROM of the x-tree's build, without EXTRA_PATCHES: its one line" \
		"ERROR: config: KB_SEED_FROM=$t/seed-x: built from another tree ($xtree), not from $plain" "$(cat "$t/cfg.out")"
	expect_absent "KB_SEED_FROM of the x-tree's build: nothing written" "$t/bx"

	echo "== seed: a seeded copy forgets kbuild's records of what the extra patch changes"
	c=$t/copy leaf=${plain##*/}
	mkdir -p "$c/sub"
	printf 'source_sub/b.o := ../../tree/%s/sub/b.c\n' "$leaf" >"$c/sub/.b.o.cmd"
	printf 'deps_sub/c.o := \\\n  %s/sub/b.c \\\n' "$xtree" >"$c/sub/.c.o.cmd"
	printf 'deps_sub/d.o := \\\n  ../../tree/%s/other/../sub/b.c \\\n' "$leaf" >"$c/sub/.d.o.cmd"
	printf 'deps_sub/a.o := \\\n  ../../tree/%s/sub/a.h \\\n' "$leaf" >"$c/sub/.a.o.cmd"
	echo "stands for the object compiled without the extra patch" >"$c/sub/b.o"
	# shellcheck disable=SC2016 # the inner bash expands them
	capture r tiny EXTRA_PATCHES="$t/extra.patch" bash -c '. "$0/lib.sh"; kb_init >/dev/null 2>&1; kb_seed_check "$1" && kb_seed_forget "$2"' "$kb" "$t/seed-plain" "$c"
	expect_ok "kb_seed_forget" "$r" "$r_out"
	expect_eq "kb_seed_forget: the records naming b.c (relative, absolute, through ..) removed" 3 "$r_out"
	for f in .b.o.cmd .c.o.cmd .d.o.cmd; do expect_absent "kb_seed_forget: sub/$f" "$c/sub/$f"; done
	expect_exists "kb_seed_forget: a record naming only a.h kept" "$c/sub/.a.o.cmd"
	expect_exists "kb_seed_forget: the object kept (kbuild makes it again: no record)" "$c/sub/b.o"
fi

if selected names; then
	# kb_init itself is under test here: the names it derives from the knobs.
	echo "== names derived from the knobs"
	names() {
		(set -eu; kb_init >/dev/null 2>&1
		 echo "${KB_TREE#"$OUT"/} ${KB_BUILD#"$OUT"/} $KB_RELEASE")
	}
	v612=$(pristine 6.12); v612=${v612##*/linux-}
	sv=$(kb_series_version "$TOP/patches/6.12")
	expect_eq "BASE=6.12 FLAVOR=guest" "tree/6.12-mmbatch build/6.12-guest $v612-mmbatch$sv-guest" "$(BASE=6.12 FLAVOR=guest names)"
	expect_eq "PATCHES=0 NR_CPUS=64 FLAVOR=cloud LOCALVERSION=+t1" "tree/6.12-vanilla build/6.12-cloud-nr64-vanilla $v612-vanilla-cloud-nr64+t1" \
		"$(BASE=6.12 PATCHES=0 NR_CPUS=64 FLAVOR=cloud LOCALVERSION=+t1 names)"
	rc=0; (FLAVOR=desktop kb_init) >"$T/knob.out" 2>&1 || rc=$?
	expect_status "FLAVOR=desktop" 1 "$rc"
	expect_line "FLAVOR=desktop" "ERROR: FLAVOR='desktop': expected cloud, generic or guest" "@$T/knob.out"
fi

if selected config; then
	echo "== config: a fragment asking for impossible options"
	frag=$fx/config/impossible.config
	# FRAGMENTS get their own build dir, named by their hash (-f<sha8>).
	fbuild=$OUT/build/6.12-guest-f$(kb_patch_hash "$frag" | cut -c1-8)
	rm -rf "$fbuild"
	rc=0; BASE=6.12 FLAVOR=guest FRAGMENTS="$frag" "$kb/config.sh" >"$T/config.out" 2>&1 || rc=$?
	expect_status "config.sh with impossible.config" 1 "$rc"
	expect_line "config failure" \
		"config: CONFIG_MMBATCH_FIXTURE_NO_SUCH_OPTION requested =y, got 'is not set' (no such symbol in Kconfig) [$frag:4]" "@$T/config.out"
	expect_contains "config failure" "config: CONFIG_KVM_INTEL requested =y, got 'is not set' (depends on " "@$T/config.out"
	expect_contains "FRAGMENTS get their own build dir (${fbuild#"$OUT"/})" "$fbuild/.config unchanged" "@$T/config.out"
	expect_eq "files left in $fbuild after the failed config" "" "$(ls -A "$fbuild" 2>/dev/null)"
	expect_absent "build dir after the failed config" "$fbuild"
fi

if selected identity; then
	echo "== identity: the build identity of a config in a scratch build dir (KB_BUILD_DIR)"
	pristine=$(pristine 6.12)
	BASE=6.12 "$kb/series.sh" >/dev/null 2>&1
	dir=$T/pipeline-identity
	id=$dir/mmbatch-build.env
	sv=$(kb_series_version "$TOP/patches/6.12")
	release=${pristine##*/linux-}-mmbatch$sv-guest
	# Its own build cache dir: the first config makes tinyconfig and keeps
	# it, the later ones of this tree take it (cache.sh).
	kbc=$T/kbuild-cache
	idconfig() { env BASE=6.12 FLAVOR=guest KB_BUILD_DIR="$dir" KB_BUILD_CACHE_DIR="$kbc" KB_IDENTITY_OUT="$T/id.path" "$@" "$kb/config.sh" >"$T/id.out" 2>&1; }
	klog=$OUT/build/.kconfig/pipeline-identity/kconfig.log
	rc=0; idconfig || rc=$?
	expect_ok "config.sh BASE=6.12 FLAVOR=guest into $dir" "$rc" "@$T/id.out"
	expect_lacks "the first config of the tree: tinyconfig runs" "kept from an earlier config" "@$klog"
	tiny_entries=("$kbc"/tinyconfig/*.config)
	expect_eq "tinyconfig's output kept, one entry" 1 "$(find "$kbc/tinyconfig" -name '*.config' 2>/dev/null | wc -l)"
	expect_eq "KB_IDENTITY_OUT: the identity file's path" "$id" "$(cat "$T/id.path" 2>&1)"
	expect_line "identity: version line" "IDENTITY_VERSION=1" "@$id"
	for kv in "KERNELRELEASE=$release" BASE=6.12 FLAVOR=guest "TREE=$OUT/tree/6.12-mmbatch" "BUILD_DIR=$dir" "CONFIG=$dir/.config"; do
		expect_eq "identity ${kv%%=*}" "${kv#*=}" "$(bid_get "$id" "${kv%%=*}" 2>&1)"
	done
	expect_eq "identity DEBUG (not the debug variant)" 0 "$(bid_get "$id" DEBUG 2>&1)"
	expect_line "config report: not a debug build" "debug:        no" "@$dir/config-report.txt"
	hash1=$(sha <"$dir/.config")
	expect_eq "identity CONFIG_HASH = sha256 of the .config" "$hash1" "$(bid_get "$id" CONFIG_HASH 2>&1)"
	rc=0; out=$(bid_get "$id" IMAGE 2>&1) || rc=$?
	expect_fails "bid_get IMAGE of a config not built yet: names file and key" "^ERROR: build identity $(re_quote "$id"): IMAGE is not set" "$rc" "$out"

	echo "== identity: an image recorded for this config, then the same config again, then NR_CPUS=4 into the same dir"
	# What build.sh records after a build (an image of this .config).
	mkdir -p "$dir/arch/x86/boot"
	echo "not a kernel: stands for the bzImage of the first config" >"$dir/arch/x86/boot/bzImage"
	ihash=$(sha <"$dir/arch/x86/boot/bzImage")
	(bid_update "$id" IMAGE="$dir/arch/x86/boot/bzImage" IMAGE_HASH="$ihash") || fail "bid_update $id IMAGE=... IMAGE_HASH=... failed"
	rm -f "$T/id.path"
	rc=0; idconfig || rc=$?
	expect_ok "config.sh again, same knobs" "$rc" "@$T/id.out"
	expect_contains "config.sh again, same knobs" "config: $release: up to date" "@$T/id.out"
	expect_eq "KB_IDENTITY_OUT after an up-to-date config" "$id" "$(cat "$T/id.path" 2>&1)"
	expect_eq "identity IMAGE kept by an unchanged config" "$dir/arch/x86/boot/bzImage" "$(bid_get "$id" IMAGE 2>&1)"
	expect_eq "identity IMAGE_HASH kept by an unchanged config" "$ihash" "$(bid_get "$id" IMAGE_HASH 2>&1)"

	echo "== identity: KB_SEED_FROM, a new build dir as a copy of a built one of the same tree"
	seeded=$T/pipeline-seeded
	seedconfig() { env BASE=6.12 FLAVOR=guest KB_BUILD_DIR="$seeded" KB_SEED_FROM="$1" "${@:2}" "$kb/config.sh" >"$T/seed.out" 2>&1; }
	touch -d '2020-01-02 03:04:05' "$dir/arch/x86/boot/bzImage"
	rc=0; seedconfig "$dir" NR_CPUS=4 || rc=$?
	expect_ok "config.sh KB_SEED_FROM=<the built dir> NR_CPUS=4 into a new dir" "$rc" "@$T/seed.out"
	expect_contains "seeded: says so" "starts as a copy of $dir (KB_SEED_FROM" "@$T/seed.out"
	expect_eq "seeded: the seed's files, their times kept" "$ihash 2020-01-02 03:04:05" \
		"$(sha <"$seeded/arch/x86/boot/bzImage" 2>&1) $(date -d "@$(stat -c %Y "$seeded/arch/x86/boot/bzImage" 2>/dev/null || echo 0)" '+%F %T')"
	expect_line "seeded: its own .config" "CONFIG_NR_CPUS=4" "@$seeded/.config"
	expect_eq "seeded: its own identity" "$seeded ${release}-nr4" "$(bid_get "$seeded/mmbatch-build.env" BUILD_DIR 2>&1) $(bid_get "$seeded/mmbatch-build.env" KERNELRELEASE 2>&1)"
	expect_no_match "seeded: no image of the seed's in its identity (built by build.sh)" '^IMAGE' "@$seeded/mmbatch-build.env"
	expect_absent "seeded: no temporary copy left" "$seeded.seed"
	expect_exists "seeded: marked, not for the build cache" "$seeded/.mmbatch-seeded"
	rm -rf "$seeded"
	rc=0; seedconfig "$T/nonexistent" || rc=$?
	expect_status "KB_SEED_FROM of no build dir" 1 "$rc"
	expect_eq "KB_SEED_FROM of no build dir: its one line" "ERROR: config: KB_SEED_FROM=$T/nonexistent: not a build dir (no mmbatch-build.env and .config there)" "$(cat "$T/seed.out")"
	expect_absent "KB_SEED_FROM of no build dir: nothing written" "$seeded"
	cp -a "$dir" "$T/other-tree"
	(bid_update "$T/other-tree/mmbatch-build.env" TREE=/no/such/tree) || fail "bid_update TREE=/no/such/tree failed"
	rc=0; seedconfig "$T/other-tree" || rc=$?
	expect_status "KB_SEED_FROM of another tree's build" 1 "$rc"
	expect_eq "KB_SEED_FROM of another tree's build: its one line" "ERROR: config: KB_SEED_FROM=$T/other-tree: built from another tree (/no/such/tree), not from $OUT/tree/6.12-mmbatch" "$(cat "$T/seed.out")"
	expect_absent "KB_SEED_FROM of another tree's build: nothing written" "$seeded"
	cp -a "$dir/mmbatch-build.env" "$T/other-tree/"
	(bid_update "$T/other-tree/mmbatch-build.env" TREE_HASH=0000) || fail "bid_update TREE_HASH=0000 failed"
	rc=0; seedconfig "$T/other-tree" || rc=$?
	expect_status "KB_SEED_FROM of this tree before its last change" 1 "$rc"
	expect_eq "KB_SEED_FROM of this tree before its last change: its one line" "ERROR: config: KB_SEED_FROM=$T/other-tree: built from $OUT/tree/6.12-mmbatch before its last change (TREE_HASH differs): build it again first" "$(cat "$T/seed.out")"
	expect_absent "KB_SEED_FROM of this tree before its last change: nothing written" "$seeded"
	rm -rf "$T/other-tree"
	rc=0; idconfig NR_CPUS=4 || rc=$?
	expect_ok "config.sh NR_CPUS=4 into the same dir" "$rc" "@$T/id.out"
	expect_contains "config.sh NR_CPUS=4: tinyconfig kept from the first" \
		"config: make tinyconfig: kept from an earlier config of this tree (${tiny_entries[0]})" "@$klog"
	hash2=$(sha <"$dir/.config")
	expect_line "the new .config" "CONFIG_NR_CPUS=4" "@$dir/.config"
	expect_eq "identity CONFIG_HASH = sha256 of the new .config" "$hash2" "$(bid_get "$id" CONFIG_HASH 2>&1)"
	expect_eq "identity KERNELRELEASE of the new config" "${release}-nr4" "$(bid_get "$id" KERNELRELEASE 2>&1)"
	expect_eq "identity KNOB_NR_CPUS and NR_CPUS" "4 4" "$(bid_get "$id" KNOB_NR_CPUS 2>&1) $(bid_get "$id" NR_CPUS 2>&1)"
	expect_no_match "identity after a new config: no image of the old one" '^IMAGE(_HASH)?=' "@$id"
	rc=0; out=$(bid_get "$id" IMAGE 2>&1) || rc=$?
	expect_fails "bid_get IMAGE after a new config: names file and key" "^ERROR: build identity $(re_quote "$id"): IMAGE is not set" "$rc" "$out"
	rc=0; seedconfig "$dir" || rc=$?
	expect_status "KB_SEED_FROM of a build dir not built" 1 "$rc"
	expect_eq "KB_SEED_FROM of a build dir not built: its one line" "ERROR: config: KB_SEED_FROM=$dir: not built (its mmbatch-build.env names no IMAGE)" "$(cat "$T/seed.out")"
	expect_absent "KB_SEED_FROM of a build dir not built: nothing written" "$seeded"
	rc=0; out=$(bid_get "$T/nonexistent/mmbatch-build.env" KERNELRELEASE 2>&1) || rc=$?
	expect_fails "bid_get of a missing file: names it" "^ERROR: build identity $(re_quote "$T/nonexistent/mmbatch-build.env"): no such file" "$rc" "$out"
	rc=0; out=$(bid_get "$dir/.config" KERNELRELEASE 2>&1) || rc=$?
	expect_fails "bid_get of a file that is no identity: names it" "^ERROR: build identity $(re_quote "$dir/.config"): not an identity file" "$rc" "$out"

	echo "== identity: the kept tinyconfig makes the same .config as tinyconfig itself"
	rc=0; idconfig || rc=$?
	expect_ok "config.sh, the first knobs again, into the same dir" "$rc" "@$T/id.out"
	expect_contains "the first knobs again: tinyconfig kept" "kept from an earlier config of this tree" "@$klog"
	expect_eq "the first knobs again: the .config tinyconfig itself made" "$hash1" "$(sha <"$dir/.config")"
	# The entry's own checks (cache.sh), without a kconfig run each.
	tiny_entry() { (KB_TREE_HASH=$1 && . "$kb/cache.sh" && KB_BUILD_CACHE_DIR=$kbc kb_tinyconfig_entry); }
	tiny_restore() { (. "$kb/cache.sh" && KB_BUILD_CACHE_DIR=$kbc kb_tinyconfig_restore "$@"); }
	tree_hash=$(bid_get "$id" TREE_HASH 2>&1)
	expect_eq "the entry's name: this tree and toolchain" "${tiny_entries[0]}" "$(tiny_entry "$tree_hash")"
	other=$(tiny_entry 0000)
	expect_match "another tree: another entry" "^$(re_quote "$kbc/tinyconfig/")[0-9a-f]{64}\\.config\$" "$other"
	expect_lacks "another tree: not this tree's entry" "${tiny_entries[0]}" "$other"
	mkdir -p "$T/fakegcc"
	printf '#!/bin/sh\necho "gcc (Fake) 99.1.0"\n' >"$T/fakegcc/gcc" && chmod +x "$T/fakegcc/gcc"
	other=$(PATH=$T/fakegcc:$PATH tiny_entry "$tree_hash")
	expect_match "another compiler: another entry" "^$(re_quote "$kbc/tinyconfig/")[0-9a-f]{64}\\.config\$" "$other"
	expect_lacks "another compiler: not this toolchain's entry" "${tiny_entries[0]}" "$other"
	head -c 2000 "${tiny_entries[0]}" >"$T/half.config"
	rc=0; out=$(tiny_restore "$T/half.config" "$T/restored.config" 2>&1) || rc=$?
	expect_status "a cut-off entry is not taken" 1 "$rc"
	expect_eq "a cut-off entry: says why" "config: $T/half.config is not a whole kconfig output: ignored, tinyconfig runs" "$out"
	expect_absent "a cut-off entry: nothing copied" "$T/restored.config"
	rc=0; out=$(KB_BUILD_CACHE=0 tiny_restore "${tiny_entries[0]}" "$T/restored.config" 2>&1) || rc=$?
	expect_status "KB_BUILD_CACHE=0: the entry is not read" 1 "$rc"
	expect_absent "KB_BUILD_CACHE=0: nothing copied" "$T/restored.config"
	rc=0; out=$(tiny_restore "${tiny_entries[0]}" "$T/restored.config" 2>&1) || rc=$?
	expect_ok "the whole entry is taken" "$rc" "$out"
	expect_eq "the whole entry: copied as it is" "$(sha <"${tiny_entries[0]}")" "$(sha <"$T/restored.config" 2>&1)"
fi

if selected debug; then
	echo "== debug: DEBUG=2 fails with one line, nothing written (own OUT)"
	rc=0; OUT=$T/debug-out BASE=6.12 FLAVOR=guest DEBUG=2 "$kb/config.sh" >"$T/debug2.out" 2>&1 || rc=$?
	expect_status "config.sh DEBUG=2" 1 "$rc"
	expect_eq "config.sh DEBUG=2: its one line" "ERROR: DEBUG='2': expected 0 or 1" "$(cat "$T/debug2.out")"
	expect_absent "config.sh DEBUG=2: nothing written" "$T/debug-out"
	rc=0; $make_cmd --no-print-directory -C "$TOP" OUT="$T/debug-out" source DEBUG=yes >"$T/debugmk.out" 2>&1 || rc=$?
	expect_status "make source DEBUG=yes" nonzero "$rc"
	expect_line "make source DEBUG=yes" "ERROR: DEBUG='yes': expected 0 or 1" "@$T/debugmk.out"
	expect_absent "make source DEBUG=yes: nothing written" "$T/debug-out"

	echo "== debug: names"
	dnames() { (set -eu; kb_init >/dev/null 2>&1; echo "${KB_BUILD#"$OUT"/} $KB_RELEASE"); }
	v612=$(pristine 6.12); v612=${v612##*/linux-}
	sv=$(kb_series_version "$TOP/patches/6.12")
	expect_eq "BASE=6.12 FLAVOR=guest DEBUG=1" "build/6.12-guest-debug $v612-mmbatch$sv-guest+debug" "$(BASE=6.12 FLAVOR=guest DEBUG=1 dnames)"
	expect_eq "BASE=6.12 FLAVOR=cloud DEBUG=1 NR_CPUS=64 LOCALVERSION=+t1" "build/6.12-cloud-debug-nr64 $v612-mmbatch$sv-cloud-nr64+debug+t1" \
		"$(BASE=6.12 FLAVOR=cloud DEBUG=1 NR_CPUS=64 LOCALVERSION=+t1 dnames)"
	expect_eq "BASE=6.12 FLAVOR=guest DEBUG=0" "build/6.12-guest $v612-mmbatch$sv-guest" "$(BASE=6.12 FLAVOR=guest DEBUG=0 dnames)"

	# The config stage only, into scratch build dirs: every debug option
	# must survive olddefconfig on Debian's configs too.
	for base in 6.12 6.1; do
		BASE=$base "$kb/series.sh" >/dev/null 2>&1 || fail "series.sh BASE=$base"
		for flavor in cloud generic; do
			echo "== debug: config.sh BASE=$base FLAVOR=$flavor DEBUG=1 (scratch build dir)"
			dir=$T/pipeline-debug-$base-$flavor
			t0=$SECONDS
			rc=0; BASE=$base FLAVOR=$flavor DEBUG=1 KB_BUILD_DIR=$dir "$kb/config.sh" >"$T/dcfg.out" 2>&1 || rc=$?
			expect_ok "config.sh BASE=$base FLAVOR=$flavor DEBUG=1 ($((SECONDS - t0)) s)" "$rc" "@$T/dcfg.out"
			id=$dir/mmbatch-build.env
			expect_match "release" "^$(re_quote "$base")\.[0-9]+-mmbatch[0-9]+-$flavor\+debug\$" "$(bid_get "$id" KERNELRELEASE 2>&1)"
			expect_eq "identity DEBUG" 1 "$(bid_get "$id" DEBUG 2>&1)"
			expect_match "config report" '^debug: +yes \(configs/kernel/debug: .*PROVE_LOCKING.*KASAN_INLINE' "@$dir/config-report.txt"
			expect_match "config report: release" "^release: +.*-$flavor\+debug\$" "@$dir/config-report.txt"
			for o in PROVE_LOCKING KASAN_INLINE DEBUG_VM SLUB_DEBUG; do
				expect_line ".config" "CONFIG_$o=y" "@$dir/.config"
			done
			expect_no_match "config report: no guest-only option" '^debug: .*KASAN_OUTLINE' "@$dir/config-report.txt"
			rm -rf "$OUT/build/.kconfig/pipeline-debug-$base-$flavor"
		done
	done

	debug_bases=${PIPELINE_DEBUG_BASES-6.12 6.1}
	for base in 6.12 6.1; do
		[[ " $debug_bases " == *" $base "* ]] ||
			skip "make debug-kernel-$base" "not in PIPELINE_DEBUG_BASES ($debug_bases; make check builds CHECK_DEBUG_BASES' only, make check-vm-all every base's)"
	done
	for base in $debug_bases; do
		echo "== debug: make debug-kernel-$base (the debug guest kernel, built when missing)"
		id=$OUT/build/$base-guest-debug/mmbatch-build.env
		t0=$SECONDS
		rc=0; $make_cmd --no-print-directory -C "$TOP" "debug-kernel-$base" >"$T/dk-$base.out" 2>"$T/dk-$base.err" || rc=$?
		expect_ok "make debug-kernel-$base ($((SECONDS - t0)) s)" "$rc" "@$T/dk-$base.err"
		expect_eq "make debug-kernel-$base: prints the identity file" "$id" "$(cat "$T/dk-$base.out")"
		image=$(bid_get "$id" IMAGE 2>&1 || true)
		expect_file "identity IMAGE" "$image"
		release=$(bid_get "$id" KERNELRELEASE 2>&1 || true)
		expect_match "release" "^$(re_quote "$base")\.[0-9]+-mmbatch[0-9]+-guest\+debug\$" "$release"
		expect_eq "identity DEBUG, FLAVOR" "1 guest" "$(bid_get "$id" DEBUG 2>&1) $(bid_get "$id" FLAVOR 2>&1)"
		expect_eq "identity IMAGE_HASH = sha256 of the bzImage" "$(sha <"$image" 2>&1)" "$(bid_get "$id" IMAGE_HASH 2>&1)"
		expect_contains "file $image" "Linux kernel x86 boot executable bzImage, version $release " "$(file -b "$image" 2>&1)"
		expect_match "config report" '^debug: +yes ' "@$OUT/build/$base-guest-debug/config-report.txt"
		for o in PROVE_LOCKING KASAN_OUTLINE SLUB_DEBUG; do
			expect_line "debug guest .config" "CONFIG_$o=y" "@$OUT/build/$base-guest-debug/.config"
		done
		# The guest flavor's own debug fragment (configs/kernel/debug/guest/)
		# overrides debug.config's inline KASAN, and the report says so.
		expect_line "debug guest .config: KASAN inline off" "# CONFIG_KASAN_INLINE is not set" "@$OUT/build/$base-guest-debug/.config"
		expect_match "debug guest report: KASAN_OUTLINE listed" '^debug: +yes \(configs/kernel/debug: .*PROVE_LOCKING.*KASAN_OUTLINE' "@$OUT/build/$base-guest-debug/config-report.txt"
		expect_no_match "debug guest report: no KASAN_INLINE" '^debug: .*KASAN_INLINE' "@$OUT/build/$base-guest-debug/config-report.txt"
		expect_no_match "debug guest .config: no tiny allocator" '^CONFIG_(SLOB|SLUB_TINY)=y' "@$OUT/build/$base-guest-debug/.config"
		# ... and drops what only the guest's full path and 9p share use
		# (configs/kernel/debug/guest/quick-path-only.config), while the
		# quick path's needs stay.
		for o in INET EXT4_FS BPF_SYSCALL NET_9P 9P_FS AUTOFS_FS; do
			expect_no_match "debug guest .config: $o off" "^CONFIG_$o=" "@$OUT/build/$base-guest-debug/.config"
		done
		for o in NET TASKSTATS MIGRATION KSM MODULES; do
			expect_line "debug guest .config: $o kept" "CONFIG_$o=y" "@$OUT/build/$base-guest-debug/.config"
		done
	done
fi

if selected kernel; then
	# 6.12 first, then 6.1 (ccache makes the second run of each quick). 6.1
	# compiles in every fresh OUT (KB_BUILD_CACHE=store: kept in the
	# machine's build cache, never restored from it), so the first build's
	# checks run there; 6.12 starts from the build cache when it holds the
	# build (tools/kbuild/cache.sh), checked then as a restore.
	for base in 6.12 6.1; do
		cache_mode=${KB_BUILD_CACHE:-1}
		[ "$base" != 6.1 ] || [ "$cache_mode" = 0 ] || cache_mode=store
		echo "== make kernel BASE=$base FLAVOR=guest KB_BUILD_CACHE=$cache_mode"
		# The build of these knobs, and its identity file, by path.
		bdir=$OUT/build/$base-guest
		id=$bdir/mmbatch-build.env
		rc=0; $make_cmd --no-print-directory -C "$TOP" config BASE=$base FLAVOR=guest >"$T/cfg-$base.out" 2>&1 || rc=$?
		expect_status "make config BASE=$base FLAVOR=guest" 0 "$rc"
		expect_eq "make config: last line" "$bdir/.config" "$(tail -n1 "$T/cfg-$base.out")"
		expect_eq "identity after make config: CONFIG" "$bdir/.config" "$(bid_get "$id" CONFIG 2>&1)"
		first=1
		[ ! -s "$bdir/.mmbatch-objcount" ] || first=0
		set +e
		env KB_BUILD_CACHE=$cache_mode $make_cmd --no-print-directory -C "$TOP" kernel BASE=$base FLAVOR=guest 2>&1 | tee "$T/k-$base.out" | grep --line-buffered -E '^(build|config|series): '
		rc=${PIPESTATUS[0]}
		set -e
		expect_status "make kernel BASE=$base FLAVOR=guest" 0 "$rc"
		entry=$(sed -n 's/^build: restored from the build cache: \([^ ]*\) .*/\1/p' "$T/k-$base.out")
		if [ "$cache_mode" != 1 ]; then
			expect_eq "KB_BUILD_CACHE=$cache_mode: not restored" "" "$entry"
		elif [ -n "$entry" ]; then
			expect_match "restored: nothing compiled" '^build: .* done in [0-9]+ s \(0 objects compiled.*, restored from the build cache\)$' "@$T/k-$base.out"
			expect_eq "restored: the image the cache entry was kept with" "$(sed -n 's/^IMAGE_HASH=//p' "$entry/meta" 2>&1)" "$(bid_get "$id" IMAGE_HASH 2>&1)"
		elif [ $first = 0 ]; then
			skip "a restore from the build cache" "$bdir was built before: only a dir's first build starts from the cache"
		else
			skip "a restore from the build cache" "it held no 6.12 guest build of this tree and config (this run compiled it and keeps it)"
		fi
		if [ $first = 1 ] && grep -q '^build: .* phase compile' "$T/k-$base.out"; then
			# The first build of the dir: the total from kbuild's dry run,
			# within 10% of what the build then compiled.
			planned=$(sed -n 's/^build: first build of this dir: .* (objects total \([0-9]*\);.*/\1/p' "$T/k-$base.out")
			done_n=$(sed -n 's/^build: .* done in [0-9]* s (\([0-9]*\) objects compiled.*/\1/p' "$T/k-$base.out")
			expect_match "first build: kbuild's dry run gives the objects total" '^[0-9]+$' "$planned"
			expect_eq "first build: no phase but prepare before the dry run's total" "" \
				"$(sed -n '/^build: first build of this dir:/q; / phase /p' "$T/k-$base.out" | grep -v ' phase prepare')"
			expect_match "first build: the counter shows that total" "objects [0-9]+/$planned\$|objects [0-9]+/$planned\)|objects [0-9]+/$planned, ETA" "@$T/k-$base.out"
			expect_eq "first build: the total within 10% of the $done_n objects compiled" yes \
				"$(awk -v p="${planned:-0}" -v d="${done_n:-0}" 'BEGIN { print (d > 0 && p >= d * 0.9 && p <= d * 1.1) ? "yes" : "no: " p " planned" }')"
		else
			skip "first build's objects total" "$bdir was built before (its .mmbatch-objcount is there), restored from the build cache or nothing compiled: the dry-run total shows on a dir's first build only"
		fi
		expect_eq "make kernel: last line" "$bdir/arch/x86/boot/bzImage" "$(tail -n1 "$T/k-$base.out")"
		image=$(bid_get "$id" IMAGE 2>&1 || true)
		expect_eq "identity IMAGE" "$bdir/arch/x86/boot/bzImage" "$image"
		expect_eq "identity IMAGE_HASH = sha256 of the bzImage" "$(sha <"$image" 2>&1)" "$(bid_get "$id" IMAGE_HASH 2>&1)"
		expect_eq "identity CONFIG_HASH = sha256 of the .config" "$(sha <"$bdir/.config")" "$(bid_get "$id" CONFIG_HASH 2>&1)"
		expect_eq "identity BUILD_DIR" "$bdir" "$(bid_get "$id" BUILD_DIR 2>&1)"
		release=$(bid_get "$id" KERNELRELEASE 2>&1 || true)
		expect_match "release" "^$(re_quote "$base")\.[0-9]+-mmbatch[0-9]+-guest\$" "$release"
		expect_eq "identity KERNELRELEASE = the build's kernel.release" "$(cat "$bdir/include/config/kernel.release" 2>&1)" "$release"
		expect_contains "file $image" "Linux kernel x86 boot executable bzImage, version $release " "$(file -b "$image" 2>&1)"
		expect_contains "config report" "release:      $release" "@$bdir/config-report.txt"
		expect_line "guest .config" "CONFIG_ADVISE_SYSCALLS=y" "@$bdir/.config"
		# The suffix outside autoconf.h: builds that differ only in their
		# release (extra patches, the next series) keep ccache direct hits.
		expect_line "guest .config: the release suffix is not in the config" 'CONFIG_LOCALVERSION=""' "@$bdir/.config"
		expect_eq "the build dir's localversion-mmbatch: the release after the kernel version" \
			"${release#"$(bid_get "$id" KVERSION 2>&1)"}" "$(cat "$bdir/localversion-mmbatch" 2>&1)"
		rc=0; BASE=$base FLAVOR=guest "$kb/config.sh" >"$T/cfg2-$base.out" 2>&1 || rc=$?
		expect_contains "config.sh again after the build" "config: $release: up to date" "@$T/cfg2-$base.out"
		expect_eq "identity IMAGE kept by an unchanged config" "$image" "$(bid_get "$id" IMAGE 2>&1)"
	done
fi

if selected cache; then
	# The machine's build cache (tools/kbuild/cache.sh) with the kernel
	# test's 6.12 guest build in it: the same build restored into another
	# build dir, then under another OUT (another tree's path, as a clean
	# clone has), each compiling nothing, giving the image the entry was
	# kept with, and naming no path of the entry's build.
	id=$OUT/build/6.12-guest/mmbatch-build.env
	cdir=$(bash -c '. "$1/tools/kbuild/lib.sh"; . "$1/tools/kbuild/cache.sh"; kb_cache_dir' _ "$TOP")
	entry=''
	if hash0=$(bid_get "$id" IMAGE_HASH 2>/dev/null); then
		entry=$(grep -lx "IMAGE_HASH=$hash0" "$cdir"/*/meta 2>/dev/null | head -n 1 || true)
		entry=${entry%/meta}
	fi
	if [ "${KB_BUILD_CACHE:-1}" != 1 ]; then
		skip "build cache" "KB_BUILD_CACHE=${KB_BUILD_CACHE} in the environment: no restore"
	elif [ -z "$entry" ]; then
		skip "build cache" "no entry of $OUT's 6.12 guest build in $cdir (the kernel test keeps it when it builds; ONLY=pipeline/kernel)"
	else
		old_tree=$(sed -n 's/^TREE=//p' "$entry/meta") old_build=$(sed -n 's/^BUILD_DIR=//p' "$entry/meta")
		# restore NAME OUT BUILD_DIR: source, series, config and build of
		# the 6.12 guest into BUILD_DIR under OUT; the output in $T/NAME.out.
		restore() {
			local rc=0 p tree
			env OUT="$2" KB_BUILD_DIR="$3" BASE=6.12 FLAVOR=guest PROGRESS_SECONDS=100000 \
				bash -c 'for s in source series config build; do "$0/$s.sh" >/dev/null || exit; done' "$kb" >"$T/$1.out" 2>&1 || rc=$?
			expect_ok "$1: source, series, config, build" "$rc" "@$T/$1.out"
			expect_line "$1: restored from the entry" "build: restored from the build cache: $entry (the same tree, .config, release and toolchain; built in $old_build)" "@$T/$1.out"
			expect_match "$1: nothing compiled" '^build: .* done in [0-9]+ s \(0 objects compiled.*, restored from the build cache\)$' "@$T/$1.out"
			expect_eq "$1: the image the entry was kept with" "$hash0" "$(bid_get "$3/mmbatch-build.env" IMAGE_HASH 2>&1)"
			tree=$(bid_get "$3/mmbatch-build.env" TREE 2>/dev/null || true)
			for p in "$old_build" "$old_tree"; do
				case $3 in "$p"*) continue ;; esac
				[ "$p" != "$tree" ] || continue
				expect_eq "$1: no text file names the entry's $p" "" "$(names_path "$p" "$3" "$tree")"
			done
		}
		# names_path OLD DIR TREE: the first 3 text files under DIR that name
		# the path OLD once DIR's and TREE's own paths are taken out of them:
		# a clone whose path ends in the entry's (CI's clone of a tree the
		# entry was built in) has the entry's paths inside each of its own.
		names_path() {
			local re f own=(-e "s|$2||g")
			[ -z "$3" ] || own+=(-e "s|$3||g")
			re="$(re_quote "$1")([^-a-z0-9]|\$)"
			LC_ALL=C grep -rlE --binary-files=without-match "$re" "$2" 2>/dev/null |
				while IFS= read -r f; do
					LC_ALL=C sed "${own[@]}" "$f" | LC_ALL=C grep -qE "$re" && echo "$f"
				done | head -n 3
		}
		echo "== cache: the 6.12 guest into another build dir (KB_BUILD_DIR), the same tree"
		restore cache-dir "$OUT" "$T/cache-dir/pipeline-cache-6.12-guest"
		echo "== cache: the 6.12 guest under another OUT (its own tree, from the same pristine source)"
		mkdir -p "$T/cache-out/src/6.12"
		ln -s "$(dirname "$(pristine 6.12)")" "$T/cache-out/src/6.12/pristine"
		restore cache-out "$T/cache-out" "$T/cache-out/build/6.12-guest"
		rm -rf "$T/cache-out" "$T/cache-dir"
	fi
	rc=0; env KB_BUILD_CACHE=yes BASE=6.12 FLAVOR=guest "$kb/build.sh" >"$T/cache-bad.out" 2>&1 || rc=$?
	expect_status "KB_BUILD_CACHE=yes" 1 "$rc"
	expect_eq "KB_BUILD_CACHE=yes: its one line" "ERROR: KB_BUILD_CACHE='yes': expected 1 (restore and store), store or 0" "$(cat "$T/cache-bad.out")"
fi

if selected uptodate; then
	# shellcheck source=tests/pipeline/uptodate.sh
	. "$TOP/tests/pipeline/uptodate.sh"
fi
test_summary
