#!/bin/bash
# `make check-pipeline`: the kernel pipeline's stages 1-4 on real sources
# and on fixtures (tests/pipeline/fixtures/):
#  0. SRC=PATH: a tarball and a git tree (own OUT), unpacked once, again only
#     when they change; the base is read from the tree's Makefile; bad ones
#     fail naming the path;
#  1. patches-check passes on every base; the good fixture passes, the broken
#     fixture reports each broken patch and each false MANIFEST claim;
#  2. a series with a patch that cannot apply fails with
#     `series: PATCH: hunk N FAILED at FILE:LINE` and leaves pristine source
#     and existing trees untouched; a good extra patch lands in its own tree;
#     a changed series re-dates only the files whose content changed;
#  3. the names derived from the knobs (tree, build dir, release);
#  4. a config fragment asking for impossible options fails listing each one,
#     the previous .config untouched;
#  5. `make kernel FLAVOR=guest` for 6.12, then 6.1 (ccache; these builds are
#     reused by the packaging tests and the VM harness).
# Reads: TOP, OUT, MAKE, PIPELINE_TESTS (subset of: source patches series
#        dates names config kernel; default all).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
make_cmd=${MAKE:-make}
. "$TOP/tests/pipeline/lib.sh"
fx=$TOP/tests/pipeline/fixtures
kb=$TOP/tools/kbuild
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs
wanted() { [ -z "${PIPELINE_TESTS:-}" ] || [[ " $PIPELINE_TESTS " == *" $1 "* ]]; }

if wanted source; then
	echo "== source: SRC= a tarball and a git tree (tiny trees, own OUT)"
	t=$tmp/source
	mkdir -p "$t/linux-6.12.999/mm" "$t/git"
	printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 999\nEXTRAVERSION =\n' >"$t/linux-6.12.999/Makefile"
	echo v1 >"$t/linux-6.12.999/mm/file.c"
	tar -C "$t" -czf "$t/linux-6.12.999.tar.gz" linux-6.12.999
	src() { SRC=$1 OUT=$t/out "$kb/source.sh" 2>"$t/src.err"; }
	p=$(src "$t/linux-6.12.999.tar.gz")
	assert_eq "tarball: unpacked tree named by the Makefile's version" linux-6.12.999 "${p##*/}"
	assert_eq "tarball: content" v1 "$(cat "$p/mm/file.c" 2>&1)"
	p2=$(src "$t/linux-6.12.999.tar.gz")
	assert_eq "tarball: same path again" "$p" "$p2"
	assert_contains "tarball: not unpacked twice" "$t/src.err" "unpacked already"
	echo v2 >"$t/linux-6.12.999/mm/file.c"
	tar -C "$t" -czf "$t/linux-6.12.999.tar.gz" linux-6.12.999
	touch -d '+1 min' "$t/linux-6.12.999.tar.gz"
	p=$(src "$t/linux-6.12.999.tar.gz")
	assert_eq "tarball: a changed tarball is unpacked again" v2 "$(cat "$p/mm/file.c" 2>&1)"
	assert_eq "tarball: base for the series (read from the Makefile)" 6.12 \
		"$(SRC=$t/linux-6.12.999.tar.gz OUT=$t/out bash -c '. "$0/lib.sh"; kb_init >/dev/null 2>&1; echo "$KB_BASE"' "$kb")"
	cp -a "$t/linux-6.12.999/." "$t/git/"
	git -C "$t/git" init -q && git -C "$t/git" add -A &&
		git -C "$t/git" -c user.name=t -c user.email=t@t commit -qm one
	p=$(src "$t/git")
	assert_eq "git tree: copied, named by the Makefile's version" "linux-6.12.999 v2" "${p##*/} $(cat "$p/mm/file.c" 2>&1)"
	assert_eq "git tree: .git not copied" absent "$([ -e "$p/.git" ] && echo present || echo absent)"
	src "$t/git" >/dev/null
	assert_contains "git tree: same HEAD, not copied again" "$t/src.err" "unpacked already"
	echo v3 >"$t/git/mm/file.c"
	git -C "$t/git" -c user.name=t -c user.email=t@t commit -qam two
	p=$(src "$t/git")
	assert_eq "git tree: a new commit is copied again" v3 "$(cat "$p/mm/file.c" 2>&1)"
	echo dirty >"$t/git/mm/file.c"
	p=$(src "$t/git")
	assert_eq "git tree: uncommitted changes are copied too" dirty "$(cat "$p/mm/file.c" 2>&1)"
	rc=0; src "$t/nonexistent" >/dev/null || rc=$?
	assert_status "SRC that does not exist" 1 $rc
	assert_contains "SRC that does not exist: names it" "$t/src.err" "SRC='$t/nonexistent' does not exist"
	mkdir -p "$t/two/a" "$t/two/b"
	tar -C "$t/two" -czf "$t/two.tar.gz" a b
	rc=0; src "$t/two.tar.gz" >/dev/null || rc=$?
	assert_status "tarball without one kernel directory" 1 $rc
	assert_contains "tarball without one kernel directory: names it" "$t/src.err" "$t/two.tar.gz does not hold one kernel directory"
fi

if wanted patches; then
	echo "== patches-check: every base of patches/"
	rc=0; "$kb/patches-check.sh" >"$tmp/pc.out" 2>&1 || rc=$?
	sed 's/^/    /' "$tmp/pc.out"
	assert_status "patches-check (patches/)" 0 $rc
	for base in $(find "$TOP/patches" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | grep -E '^[0-9]+\.[0-9]+$'); do
		assert_contains "patches-check summary" "$tmp/pc.out" "$base ok"
	done

	echo "== patches-check: good fixture"
	rc=0; PATCHES_ROOT=$fx/patches-good "$kb/patches-check.sh" >"$tmp/good.out" 2>&1 || rc=$?
	assert_status "patches-check (good fixture)" 0 $rc
	assert_line "good fixture" "$tmp/good.out" "patches-check 6.12: 0001-fixture-comment.patch: applied"
	assert_line "good fixture" "$tmp/good.out" "patches-check 6.12: change fixture-migrate-batch (in-base, upstream 6.3): already in base"
	assert_line "good fixture" "$tmp/good.out" "patches-check 6.12: change fixture-comment (patched by 0001-fixture-comment.patch): patched (1 verify lines: absent before, present after)"

	echo "== patches-check: broken fixture"
	rc=0; PATCHES_ROOT=$fx/patches-broken "$kb/patches-check.sh" >"$tmp/broken.out" 2>&1 || rc=$?
	assert_status "patches-check (broken fixture)" 1 $rc
	assert_line "broken fixture" "$tmp/broken.out" "patches-check 6.12: 0001-fixture-comment.patch: applied"
	assert_line "broken fixture" "$tmp/broken.out" "patches-check 6.12: 0002-fixture-broken-context.patch: FAILED"
	assert_line "broken fixture" "$tmp/broken.out" "  series: 0002-fixture-broken-context.patch: hunk 2 FAILED at CREDITS:198"
	assert_line "broken fixture" "$tmp/broken.out" "patches-check 6.12: change fixture-false-in-base (in-base, upstream 6.3): FAILED"
	assert_line "broken fixture" "$tmp/broken.out" "patches-check 6.12: change fixture-already-there (patched by 0001-fixture-comment.patch): FAILED"
	assert_line "broken fixture" "$tmp/broken.out" "  verify README '^Linux kernel$' already matches before the series"
	assert_line "broken fixture" "$tmp/broken.out" "patches-check: 6.12 FAILED"

	echo "== patches-check: malformed MANIFEST"
	mkdir -p "$tmp/bad/6.12"
	printf 'change: x\nstatus: maybe\n' >"$tmp/bad/6.12/MANIFEST"
	rc=0; PATCHES_ROOT=$tmp/bad "$kb/patches-check.sh" >"$tmp/bad.out" 2>&1 || rc=$?
	assert_status "patches-check (malformed MANIFEST)" 2 $rc
	assert_contains "malformed MANIFEST" "$tmp/bad.out" "$tmp/bad/6.12/MANIFEST:2: change x: status must be patched or in-base, got \"maybe\""
fi

if wanted series; then
	echo "== series: a patch that cannot apply"
	BASE=6.12 "$kb/source.sh" >/dev/null 2>&1
	pristine=$(BASE=6.12 "$kb/source.sh" 2>/dev/null)
	tree=$(BASE=6.12 "$kb/series.sh" 2>/dev/null)
	# The whole pristine tree; of the existing tree its stamp and the files
	# the fixture series touches.
	tree_state() { cat "$tree/.mmbatch-tree" "$tree/README" "$tree/CREDITS" | sha256sum | cut -c1-16; }
	before_p=$(tree_sum "$pristine"); before_t=$(tree_state)
	rc=0; BASE=6.12 EXTRA_PATCHES="$fx/patches-broken/6.12/0001-fixture-comment.patch $fx/patches-broken/6.12/0002-fixture-broken-context.patch" \
		"$kb/series.sh" >"$tmp/series.out" 2>&1 || rc=$?
	assert_status "series.sh with a broken patch" 1 $rc
	assert_line "series.sh message" "$tmp/series.out" "series: 0002-fixture-broken-context.patch: hunk 2 FAILED at CREDITS:198"
	assert_eq "pristine checksum after the failed series" "$before_p" "$(tree_sum "$pristine")"
	assert_eq "existing tree checksum after the failed series" "$before_t" "$(tree_state)"
	left=$(find "$OUT/tree" -mindepth 1 -maxdepth 1 -name '6.12-mmbatch-x*' -type d -printf '%f ')
	assert_eq "half-made trees left behind" "" "$left"

	echo "== series: a patch that applies, in its own tree"
	nseries=$(. "$kb/lib.sh"; BASE=6.12 kb_init; grep -c . <<<"$KB_SERIES_ENTRIES" || true)
	rc=0; BASE=6.12 EXTRA_PATCHES="$fx/patches-good/6.12/0001-fixture-comment.patch" "$kb/series.sh" >"$tmp/good-series.out" 2>&1 || rc=$?
	assert_status "series.sh with a good extra patch" 0 $rc
	xtree=$(tail -n1 "$tmp/good-series.out")
	case "$xtree" in "$OUT"/tree/6.12-mmbatch-x*) pass "extra tree is separately named: ${xtree#"$OUT"/}" ;;
		*) fail "extra tree: expected $OUT/tree/6.12-mmbatch-x<sha8>, got '$xtree'" ;; esac
	assert_eq "fixture line in the extra tree" 1 "$(grep -c 'mmbatch pipeline test fixture' "$xtree/README" || true)"
	assert_eq "fixture lines in pristine README after a good series" 0 "$(grep -c 'mmbatch pipeline test fixture' "$pristine/README")"
	rc=0; BASE=6.12 EXTRA_PATCHES="$fx/patches-good/6.12/0001-fixture-comment.patch" "$kb/series.sh" >"$tmp/again.out" 2>&1 || rc=$?
	assert_contains "second run reuses the tree (stamp)" "$tmp/again.out" "(up to date, $((nseries + 1)) patches)"
	case "$xtree" in "$OUT"/tree/6.12-mmbatch-x*) rm -rf "$xtree" "$xtree.lock" ;; esac
fi

if wanted dates; then
	echo "== series: file dates across series changes (tiny SRC tree, own OUT)"
	t=$tmp/dates
	mkdir -p "$t/src/sub" "$t/patches/6.12" "$t/a/sub" "$t/b/sub"
	printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n' >"$t/src/Makefile"
	printf 'one\ntwo\nthree\n' >"$t/src/sub/a.h"
	printf 'alpha\nbeta\ngamma\n' >"$t/src/sub/b.c"
	touch -d @1000000000 "$t/src/sub/a.h" "$t/src/sub/b.c"
	mkpatch() { # NAME FILE SED: a patch of FILE made by SED
		cp "$t/src/$2" "$t/a/$2"; sed "$3" "$t/src/$2" >"$t/b/$2"
		(cd "$t" && diff -u "a/$2" "b/$2" | sed -E '1,2s/\t.*//') >"$t/patches/6.12/$1" || true
	}
	dates() { SRC=$t/src OUT=$t/out PATCHES_ROOT=$t/patches "$kb/series.sh" >/dev/null 2>"$t/err" || cat "$t/err"
		stat -c %Y "$t/out/tree/"src-*-mmbatch/sub/a.h "$t/out/tree/"src-*-mmbatch/sub/b.c | tr '\n' ' '; }
	SRC=$t/src OUT=$t/out "$kb/source.sh" >/dev/null 2>&1
	mkpatch 0001-a.patch sub/a.h 's/two/TWO/'; mkpatch 0002-b.patch sub/b.c 's/beta/BETA/'
	printf '0001-a.patch\n0002-b.patch\n' >"$t/patches/6.12/series"
	read -r a1 b1 <<<"$(dates)"
	sleep 1.1
	mkpatch 0002-b.patch sub/b.c 's/beta/BETA2/'
	read -r a2 b2 <<<"$(dates)"
	assert_eq "a.h date after only 0002 changed (content same)" "$a1" "$a2"
	[ "$b2" -gt "$b1" ] && pass "b.c dated anew after 0002 changed ($b1 -> $b2)" || fail "b.c date: expected > $b1, got $b2"
	sleep 1.1
	printf '0002-b.patch\n' >"$t/patches/6.12/series"
	read -r a3 _ <<<"$(dates)"
	assert_eq "a.h content after 0001 was dropped" "two" "$(sed -n 2p "$t/out/tree/"src-*-mmbatch/sub/a.h)"
	[ "$a3" -gt "$a2" ] && pass "a.h (back to pristine) dated anew ($a2 -> $a3), not 1000000000" || fail "a.h date: expected > $a2, got $a3"
fi

if wanted names; then
	echo "== names derived from the knobs"
	names() {
		(set -eu; . "$kb/lib.sh"; kb_init >/dev/null 2>&1
		 echo "${KB_TREE#"$OUT"/} ${KB_BUILD#"$OUT"/} $KB_RELEASE")
	}
	v612=$(BASE=6.12 "$kb/source.sh" 2>/dev/null); v612=${v612##*/linux-}
	sv=$(. "$kb/lib.sh"; kb_series_version "$TOP/patches/6.12")
	assert_eq "BASE=6.12 FLAVOR=guest" "tree/6.12-mmbatch build/6.12-guest $v612-mmbatch$sv-guest" "$(BASE=6.12 FLAVOR=guest names)"
	assert_eq "PATCHES=0 NR_CPUS=64 FLAVOR=cloud LOCALVERSION=+t1" "tree/6.12-vanilla build/6.12-cloud-nr64-vanilla $v612-vanilla-cloud-nr64+t1" \
		"$(BASE=6.12 PATCHES=0 NR_CPUS=64 FLAVOR=cloud LOCALVERSION=+t1 names)"
	rc=0; (. "$kb/lib.sh"; FLAVOR=desktop kb_init) >"$tmp/knob.out" 2>&1 || rc=$?
	assert_status "FLAVOR=desktop" 1 $rc
	assert_line "FLAVOR=desktop" "$tmp/knob.out" "ERROR: FLAVOR='desktop': expected cloud, generic or guest"
fi

if wanted config; then
	echo "== config: a fragment asking for impossible options"
	fbuild=$(. "$kb/lib.sh"; BASE=6.12 FLAVOR=guest FRAGMENTS="$fx/config/impossible.config" kb_init; echo "$KB_BUILD")
	rm -rf "$fbuild"
	rc=0; BASE=6.12 FLAVOR=guest FRAGMENTS="$fx/config/impossible.config" "$kb/config.sh" >"$tmp/config.out" 2>&1 || rc=$?
	assert_status "config.sh with impossible.config" 1 $rc
	assert_line "config failure" "$tmp/config.out" \
		"config: CONFIG_MMBATCH_FIXTURE_NO_SUCH_OPTION requested =y, got 'is not set' (no such symbol in Kconfig) [$fx/config/impossible.config:4]"
	assert_contains "config failure" "$tmp/config.out" "config: CONFIG_KVM_INTEL requested =y, got 'is not set' (depends on "
	case "$fbuild" in "$OUT"/build/6.12-guest-f*) pass "FRAGMENTS get their own build dir: ${fbuild#"$OUT"/}" ;;
		*) fail "FRAGMENTS build dir: expected $OUT/build/6.12-guest-f<sha8>, got '$fbuild'" ;; esac
	assert_eq "files left in $fbuild after the failed config" "" "$(ls -A "$fbuild" 2>/dev/null)"
	assert_eq "build dir exists after the failed config" no "$([ -e "$fbuild" ] && echo yes || echo no)"
fi

if wanted kernel; then
	# 6.12 first, then 6.1 (ccache makes the second run of each quick).
	for base in 6.12 6.1; do
		echo "== make kernel BASE=$base FLAVOR=guest"
		rc=0; $make_cmd --no-print-directory -C "$TOP" config BASE=$base FLAVOR=guest >"$tmp/cfg-$base.out" 2>&1 || rc=$?
		assert_status "make config BASE=$base FLAVOR=guest" 0 $rc
		assert_eq "make config: last line" "$OUT/build/$base-guest/.config" "$(tail -n1 "$tmp/cfg-$base.out")"
		set +e
		$make_cmd --no-print-directory -C "$TOP" kernel BASE=$base FLAVOR=guest 2>&1 | tee "$tmp/k-$base.out" | grep --line-buffered -E '^(build|config|series): '
		rc=${PIPESTATUS[0]}
		set -e
		assert_status "make kernel BASE=$base FLAVOR=guest" 0 $rc
		image=$(tail -n1 "$tmp/k-$base.out")
		assert_eq "make kernel: last line" "$OUT/build/$base-guest/arch/x86/boot/bzImage" "$image"
		# shellcheck disable=SC1090
		(. "$OUT/build/$base-guest/mmbatch-build.env"; echo "$KERNELRELEASE") >"$tmp/rel" 2>/dev/null || echo "(no env file)" >"$tmp/rel"
		release=$(cat "$tmp/rel")
		case "$release" in "$base".*-mmbatch[0-9]*-guest) pass "release $release" ;;
			*) fail "release: expected $base.N-mmbatch<SERIES_VERSION>-guest, got '$release'" ;; esac
		assert_contains "file $image" <(file -b "$image" 2>&1) "Linux kernel x86 boot executable bzImage, version $release "
		assert_contains "config report" "$OUT/build/$base-guest/config-report.txt" "release:      $release"
		assert_line "guest .config" "$OUT/build/$base-guest/.config" "CONFIG_ADVISE_SYSCALLS=y"
	done
fi

test_summary
