#!/bin/bash
# tests/builds/guard.sh on synthetic builds logs and a synthetic testing.md
# (no build): one configuration compiled in two dirs fails naming both
# stages and dirs; another extra-patches hash, a seeded derived build, a
# restore, a partial BUILD_TARGETS build and no-op reruns of one dir pass; a
# dir compiled twice, a compiled build with no row, a stale row in a full run
# (not in a partial one), an empty log of a full run, a malformed line and a
# missing section fail. Then the repository's docs/developing/testing.md
# against a log of the builds it lists, tools/kbuild/lib.sh's kb_build_knobs
# and kb_log_build (the line build.sh appends) on a synthetic identity file,
# and tools/kbuild/build.sh itself with a stand-in kbuild Makefile (no
# compiler): one line per build, full or partial, none for a failed one,
# and nothing else it prints changed.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
guard=$TOP/tests/builds/guard.sh

# A hash of 64 hex digits from a word.
h() { printf '%s' "$1" | sha256sum | cut -c1-64; }
C612=$(h config-6.12) C61=$(h config-6.1) CDBG=$(h config-6.12-debug)
S612=$(h series-6.12) S61=$(h series-6.1) XBAD=x$(h bad | cut -c1-8)

# entry STAGE DIR KNOBS CONFIG SERIES EXTRA TARGETS SEED HOW OBJECTS: a log line.
entry() {
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$1" "$2" "6.x-mmbatch1-guest" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" 100 150 - -
}
G612() { entry "$1" /o/build/6.12-guest "BASE=6.12 FLAVOR=guest" "$C612" "$S612" - all - "$2" "$3"; }
G61() { entry "$1" /o/build/6.1-guest "BASE=6.1 FLAVOR=guest" "$C61" "$S61" - all - "$2" "$3"; }

cat >"$T/doc.md" <<'DOC'
# Building and testing

### The kernel builds of make check

| knobs | made by | how | for | cold | warm |
| --- | --- | --- | --- | --- | --- |
| `BASE=6.12 FLAVOR=guest` | check-pipeline | full | every stage | 1066 s | — |
| `BASE=6.1 FLAVOR=guest` | check-pipeline | full | 6.1 | 876 s | — |
| `BASE=6.1 FLAVOR=guest EXTRA_PATCHES=bad.patch` | check-prebuild | full | canary | — | — |
| `BASE=6.12 FLAVOR=guest SERIES=other` | check-repo | seeded from 6.12 | repo | — | — |
| `BASE=6.12 FLAVOR=guest BUILD_TARGETS=mm/` | check-distcc | partial | distcc | — | — |

### The next section

| `BASE=6.12 FLAVOR=cloud` | not a row of the list |
DOC

# guard NAME [ONLY]: the guard on $T/NAME.tsv and the synthetic doc, as a
# full run (no ONLY) or a partial one; status in rc, output in $T/NAME.out.
guard() {
	rc=0
	MMBATCH_CHECK_ONLY=${2:-} "$guard" "$T/$1.tsv" "$T/doc.md" >"$T/$1.out" 2>&1 || rc=$?
}

# Every row's knobs, so a full run has no stale row; the distcc and repo
# lines as make check writes them.
rest() {
	entry prebuild /o/x/xbad/build/6.1-guest-xbad "BASE=6.1 FLAVOR=guest EXTRA_PATCHES=bad.patch" "$C61" "$S61" "$XBAD" all - compiled 40
	entry repo /o/build/6.12-guest-reponext "BASE=6.12 FLAVOR=guest SERIES=other" "$C612" "$S612" - all /o/build/6.12-guest compiled 9
	entry distcc /o/test-distcc/6.12-guest-distcc "BASE=6.12 FLAVOR=guest BUILD_TARGETS=mm/" "$C612" "$S612" - mm/ /o/build/6.12-guest compiled 120
}

step "the builds of a good run pass, their table and totals printed"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest; G612 vm compiled 0; G612 packages compiled 0; } >"$T/good.tsv"
guard good
expect_ok "guard on a good full run" "$rc" "@$T/good.out"
expect_match "the table's header" '^  stage +knobs +how +objects +wall_s +cpu_s$' "@$T/good.out"
expect_match "a row of the table" '^  prebuild +BASE=6\.1 FLAVOR=guest EXTRA_PATCHES=bad\.patch +compiled +40 +100 +150$' "@$T/good.out"
expect_line "the totals of the compiled builds, the up-to-date ones apart" "compiled: 5 builds, 3269 objects, 500 s (wall, summed), cpu 750 s; up to date (kbuild compiled nothing): 2, 200 s, cpu 300 s; restored: 0" "@$T/good.out"
expect_line "the objects compiled by a stage" "  pipeline: 2 compiled, 3100 objects, 200 s, cpu 300 s" "@$T/good.out"
expect_line "and by another" "  repo: 1 compiled, 9 objects, 100 s, cpu 150 s" "@$T/good.out"
expect_line "a stage whose kbuild runs compiled nothing" "  vm: 0 compiled, 0 objects, 0 s, cpu 0 s; 1 up to date, 100 s, cpu 150 s" "@$T/good.out"

step "one configuration compiled in two build dirs fails, naming both"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest
  entry sign /o/build/6.12-guest-signed "BASE=6.12 FLAVOR=guest" "$C612" "$S612" - all - compiled 1597; } >"$T/twice.tsv"
guard twice
expect_fails "two compiled full builds of one key" "^builds: one configuration compiled twice: stage pipeline \(/o/build/6\.12-guest, 1600 objects.* and stage sign \(/o/build/6\.12-guest-signed, 1597 objects" "$rc" "@$T/twice.out"
expect_lines "one line for the offence, one for the count" 2 "$(grep '^builds: ' "$T/twice.out")"
expect_line "the count" "builds: 1 offence(s)" "@$T/twice.out"

step "the same config and series with other extra patches: another configuration"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest
  entry canary /o/x/xother/build/6.1-guest-xother "BASE=6.1 FLAVOR=guest EXTRA_PATCHES=bad.patch" "$C61" "$S61" "x$(h other | cut -c1-8)" all - compiled 30; } >"$T/extra.tsv"
guard extra
expect_ok "the canary's BAD kernel beside the 6.1 guest (and another extra patch)" "$rc" "@$T/extra.out"

step "a build seeded from the other's dir is a derived variant"
# The repo line of rest() is seeded from the 6.12 guest, with its key.
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest; } >"$T/seeded.tsv"
guard seeded
expect_ok "the next series, seeded from the 6.12 guest" "$rc" "@$T/seeded.out"
sed 's|\t/o/build/6.12-guest\tcompiled\t9\t|\t-\tcompiled\t9\t|' "$T/seeded.tsv" >"$T/unseeded.tsv"
guard unseeded
expect_fails "the same, not seeded" "^builds: one configuration compiled twice: stage pipeline \(/o/build/6\.12-guest,.* and stage repo \(/o/build/6\.12-guest-reponext," "$rc" "@$T/unseeded.out"

step "seeds make lineages: a chain passes, a second lineage fails"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest
  entry repo /o/build/6.12-guest-reponext2 "BASE=6.12 FLAVOR=guest SERIES=other" "$C612" "$S612" - all /o/build/6.12-guest-reponext compiled 9; } >"$T/chain.tsv"
guard chain
expect_ok "a dir seeded from a seeded dir" "$rc" "@$T/chain.out"
{ G612 pipeline restored 0; G61 pipeline compiled 1500; rest
  entry sign /o/build/6.12-guest-signed "BASE=6.12 FLAVOR=guest" "$C612" "$S612" - all - compiled 1597; } >"$T/lineage.tsv"
guard lineage
expect_fails "the restored guest and its seeded next series, and an unseeded dir" "^builds: one configuration compiled twice: stage repo \(/o/build/6\.12-guest-reponext, 9 objects.* and stage sign \(/o/build/6\.12-guest-signed, 1597 objects" "$rc" "@$T/lineage.out"
expect_line "one offence" "builds: 1 offence(s)" "@$T/lineage.out"

step "a restore and a compile of one key"
{ G612 pipeline restored 0; G61 pipeline compiled 1500; rest
  entry pipeline /t/cache-dir/pipeline-cache-6.12-guest "BASE=6.12 FLAVOR=guest" "$C612" "$S612" - all - restored 0
  entry pipeline /t/cache-out/build/6.12-guest "BASE=6.12 FLAVOR=guest" "$C612" "$S612" - all - restored 0; } >"$T/restored.tsv"
guard restored
expect_ok "the 6.12 guest restored twice (the cache test), compiled by the next series" "$rc" "@$T/restored.out"
expect_line "restored ones are counted apart" "compiled: 4 builds, 1669 objects, 400 s (wall, summed), cpu 600 s; up to date (kbuild compiled nothing): 0, 0 s, cpu 0 s; restored: 3" "@$T/restored.out"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest
  entry pipeline /t/cache-dir/pipeline-cache-6.12-guest "BASE=6.12 FLAVOR=guest" "$C612" "$S612" - all - restored 0; } >"$T/restored2.tsv"
guard restored2
expect_ok "compiled in one dir, restored into another" "$rc" "@$T/restored2.out"

step "a partial BUILD_TARGETS build of the guest's key"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest
  entry distcc /o/test-distcc/other "BASE=6.12 FLAVOR=guest BUILD_TARGETS=mm/" "$C612" "$S612" - mm/ - compiled 120; } >"$T/partial.tsv"
guard partial
expect_ok "mm/ of the 6.12 guest's configuration, not seeded" "$rc" "@$T/partial.out"

step "one build dir compiled again"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest; G612 vm compiled 12; } >"$T/rebuilt.tsv"
guard rebuilt
expect_fails "the 6.12 guest compiled again by check-vm" "^builds: /o/build/6\.12-guest compiled twice under one key \(targets all, .*\): stage pipeline \(1600 objects\) and stage vm \(12 objects\): a wasted rebuild$" "$rc" "@$T/rebuilt.out"

step "a compiled build with no row"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest
  entry pipeline /o/build/6.12-guest-debug "BASE=6.12 FLAVOR=guest DEBUG=1" "$CDBG" "$S612" - all - compiled 2000; } >"$T/norow.tsv"
guard norow
expect_fails "the debug guest, not in the list" '^builds: knobs "BASE=6\.12 FLAVOR=guest DEBUG=1" compiled by stage pipeline \(/o/build/6\.12-guest-debug\) have no row in ' "$rc" "@$T/norow.out"
guard norow pipeline
expect_fails "also in a partial run" '^builds: knobs "BASE=6\.12 FLAVOR=guest DEBUG=1" .* have no row' "$rc" "@$T/norow.out"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500; rest
  entry pipeline /t/x "BASE=6.12 FLAVOR=cloud" "$(h cloud)" "$S612" - all - restored 0; } >"$T/norow-restored.tsv"
guard norow-restored
expect_ok "a restored build needs no row (and a row outside the section is none)" "$rc" "@$T/norow-restored.out"

step "a stale row"
{ G612 pipeline compiled 1600; G61 pipeline compiled 1500
  entry prebuild /o/x/xbad/build/6.1-guest-xbad "BASE=6.1 FLAVOR=guest EXTRA_PATCHES=bad.patch" "$C61" "$S61" "$XBAD" all - compiled 40
  entry repo /o/build/6.12-guest-reponext "BASE=6.12 FLAVOR=guest SERIES=other" "$C612" "$S612" - all /o/build/6.12-guest compiled 9; } >"$T/stale.tsv"
guard stale
expect_fails "the distcc row with no build, a full run" '^builds: row "BASE=6\.12 FLAVOR=guest BUILD_TARGETS=mm/" of .*doc\.md:11: no build of these knobs in this full run \(a stale row\)$' "$rc" "@$T/stale.out"
guard stale 'pipeline prebuild repo'
expect_ok "the same in a partial run (ONLY)" "$rc" "@$T/stale.out"
expect_line "which says so" "rows with no build not checked: not a full run (ONLY=pipeline prebuild repo)" "@$T/stale.out"
rc=0; env -u MMBATCH_CHECK_ONLY "$guard" "$T/stale.tsv" "$T/doc.md" >"$T/stale-unknown.out" 2>&1 || rc=$?
expect_ok "the same, not run by check.sh (MMBATCH_CHECK_ONLY unset)" "$rc" "@$T/stale-unknown.out"
expect_contains "which says so" "rows with no build not checked: not known to be a full run" "@$T/stale-unknown.out"

step "an empty log, a malformed line, no section"
: >"$T/empty.tsv"
guard empty
expect_fails "an empty log of a full run" '^builds: .*empty\.tsv: no build logged in a full make check' "$rc" "@$T/empty.out"
guard empty harness
expect_ok "an empty log of a partial run" "$rc" "@$T/empty.out"
{ G612 pipeline compiled 1600; printf 'pipeline\t/o/build/x\tshort\n'; } >"$T/malformed.tsv"
guard malformed pipeline
expect_fails "a line of 3 fields" '^builds: .*malformed\.tsv:2: 3 fields, expected 15' "$rc" "@$T/malformed.out"
rc=0; MMBATCH_CHECK_ONLY=pipeline "$guard" "$T/good.tsv" "$T/good.tsv" >"$T/nosec.out" 2>&1 || rc=$?
expect_fails "a doc without the section" '^builds: .*good\.tsv: no section "### The kernel builds of make check"$' "$rc" "@$T/nosec.out"
rc=0; "$guard" "$T/none.tsv" "$T/doc.md" >"$T/nolog.out" 2>&1 || rc=$?
expect_fails "no log file" "^builds: .*none\.tsv: no builds log$" "$rc" "@$T/nolog.out"

step "the repository's list: docs/developing/testing.md"
# The builds make check makes, by knobs (what the list must hold, no more).
{
	G612 pipeline restored 0
	G61 pipeline compiled 1500
	entry pipeline /o/build/6.12-guest-debug "BASE=6.12 FLAVOR=guest DEBUG=1" "$CDBG" "$S612" - all - compiled 2000
	entry prebuild /o/x/xbad/build/6.1-guest-xbad "BASE=6.1 FLAVOR=guest EXTRA_PATCHES=6.1-migrate-skip-flush.patch" "$C61" "$S61" "$XBAD" all - compiled 40
	entry repo /o/build/6.12-guest-reponext "BASE=6.12 FLAVOR=guest SERIES=other" "$C612" "$S612" - all /o/build/6.12-guest compiled 9
	entry distcc /o/test-distcc/6.12-guest-distcc "BASE=6.12 FLAVOR=guest BUILD_TARGETS=mm/" "$C612" "$S612" - mm/ /o/build/6.12-guest compiled 120
} >"$T/repo-list.tsv"
rc=0; MMBATCH_CHECK_ONLY='' "$guard" "$T/repo-list.tsv" "$TOP/docs/developing/testing.md" >"$T/repo-list.out" 2>&1 || rc=$?
expect_ok "every build of make check has its row, and every row its build" "$rc" "@$T/repo-list.out"
# The canary's BAD patch, as mk/vm-canary.mk names it.
bad=$(sed -n "s|^CANARY_BAD_PATCH := \\\$(TOP)/||p" "$TOP/mk/vm-canary.mk")
expect_eq "the canary's BAD patch (mk/vm-canary.mk CANARY_BAD_PATCH)" patches/test/6.1-migrate-skip-flush.patch "$bad"

step "tools/kbuild/lib.sh: kb_build_knobs and kb_log_build"
# lib.sh in a scratch TOP and OUT, a synthetic build as kb_init leaves it
# (K_*: its knobs), then the command given.
cat >"$T/lib-run.sh" <<'EOS'
. "$1"
shift
KB_BASE=6.12 KB_FLAVOR=guest KB_DEBUG=${K_DEBUG:-0} KB_VARIANT=${K_VARIANT:-mmbatch} KB_NR_CPUS=${K_NR:-}
KB_SIGN_KEY=${K_SIGN:-} KB_SRC_PATH='' KB_SERIES_DIR=$PATCHES_ROOT/6.12
"$@"
EOS
# lib CMD...: CMD after lib.sh, with TOP $T/top, OUT $T/top/out.
lib() {
	env TOP="$T/top" OUT="$T/top/out" PATCHES_ROOT="${PATCHES_ROOT:-$T/top/patches}" \
		bash "$T/lib-run.sh" "$TOP/tools/kbuild/lib.sh" "$@"
}
mkdir -p "$T/top/patches/6.12" "$T/top/tests/fx/6.12"
expect_eq "the guest" "BASE=6.12 FLAVOR=guest" "$(lib kb_build_knobs)"
expect_eq "every knob, in order" \
	"BASE=6.12 FLAVOR=guest DEBUG=1 PATCHES=0 NR_CPUS=64 EXTRA_PATCHES=a.patch+b.patch FRAGMENTS=f.config SIGN_KEY=yes SERIES=tests/fx/6.12 BUILD_TARGETS=mm/+fs/" \
	"$(K_DEBUG=1 K_VARIANT=vanilla K_NR=64 K_SIGN=/k.pem EXTRA_PATCHES="/p/a.patch  b.patch" FRAGMENTS=/c/f.config \
		PATCHES_ROOT=$T/top/tests/fx BUILD_TARGETS=" mm/ fs/" lib kb_build_knobs)"
expect_eq "a series under OUT (a scratch copy)" "BASE=6.12 FLAVOR=guest SERIES=other" "$(PATCHES_ROOT=$T/top/out/test-tmp/patches-next.1 lib kb_build_knobs)"
expect_eq "a series outside TOP" "BASE=6.12 FLAVOR=guest SERIES=other" "$(PATCHES_ROOT=/elsewhere lib kb_build_knobs)"
mkdir -p "$T/b/seeded"
echo "/o/build/6.12-guest" >"$T/b/seeded/.mmbatch-seed"
printf '%s\n' "# identity" IDENTITY_VERSION=1 "BUILD_DIR=$T/b/seeded" KERNELRELEASE=6.12.9-mmbatch2-guest \
	"CONFIG_HASH=$C612" "SERIES_HASH=$S612" "EXTRA_PATCHES_HASH=''" >"$T/b/seeded/mmbatch-build.env"
id=$T/b/seeded/mmbatch-build.env
rc=0
{
	PATCHES_ROOT=$T/top/out/p MMBATCH_BUILDS_LOG=$T/lib.tsv MMBATCH_CHECK_STAGE=repo \
		lib kb_log_build "$id" all compiled 9 34 $((3 * $(getconf CLK_TCK))) 5 4 &&
	PATCHES_ROOT=$T/top/out/p MMBATCH_BUILDS_LOG=$T/lib.tsv MMBATCH_CHECK_STAGE='' \
		lib kb_log_build "$id" mm/ restored 0 1 0 '' '' &&
	MMBATCH_BUILDS_LOG='' lib kb_log_build /nonexistent all compiled 0 0 0 - -
} >"$T/lib.out" 2>&1 || rc=$?
expect_ok "kb_log_build" "$rc" "@$T/lib.out"
expect_eq "its lines" \
	"repo|$T/b/seeded|6.12.9-mmbatch2-guest|BASE=6.12 FLAVOR=guest SERIES=other|$C612|$S612|-|all|/o/build/6.12-guest|compiled|9|34|3|5|4
-|$T/b/seeded|6.12.9-mmbatch2-guest|BASE=6.12 FLAVOR=guest SERIES=other|$C612|$S612|-|mm/|/o/build/6.12-guest|restored|0|1|0|-|-" \
	"$(tr '\t' '|' <"$T/lib.tsv")"
# shellcheck disable=SC2016 # expanded by eval, after lib.sh
expect_eq "its fields, as lib.sh names them (KB_BUILDS_LOG_FIELDS)" 15 "$(lib eval 'set -- $KB_BUILDS_LOG_FIELDS; echo $#')"
rc=0; MMBATCH_CHECK_ONLY=repo "$guard" "$T/lib.tsv" "$T/doc.md" >"$T/lib-guard.out" 2>&1 || rc=$?
expect_ok "the guard reads them" "$rc" "@$T/lib-guard.out"

step "tools/kbuild/build.sh appends its line, with a stand-in kbuild"
# A pristine "source" of one Makefile, the tree and build dir kb_init names
# for it, and a stand-in kbuild Makefile in the tree (no compiler runs):
# a full build (the first of its dir, then again), a partial one
# (BUILD_TARGETS), and a failing one, which appends nothing.
fk=$T/fake
mkdir -p "$fk/out/src/6.12/pristine/linux-6.12.9"
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 9\nEXTRAVERSION =\n' >"$fk/out/src/6.12/pristine/linux-6.12.9/Makefile"
echo stand-in >"$fk/out/src/6.12/pristine/.stamp"
# kbuild_env VAR=VALUE... CMD...: CMD in a clean environment for the kbuild scripts.
kbuild_env() { env -i PATH="$PATH" HOME="$HOME" TOP="$TOP" OUT="$fk/out" BASE=6.12 FLAVOR=guest CCACHE=0 KB_BUILD_CACHE=0 "$@"; }
# shellcheck disable=SC2016 # expanded by that bash
names=$(kbuild_env bash -c '. "$1/tools/kbuild/lib.sh"; kb_init; printf "%s\n" "$KB_TREE" "$KB_TREE_HASH" "$KB_BUILD" "$KB_RELEASE"' _ "$TOP")
{ read -r ftree; read -r fhash; read -r fbuild; read -r frel; } <<<"$names"
case $ftree:$fbuild in "$fk"/out/tree/*:"$fk"/out/build/*) ;; *) fail "kb_init named tree '$ftree' and build dir '$fbuild', not under $fk/out"; exit 1 ;; esac
mkdir -p "$ftree" "$fbuild"
echo "$fhash" >"$ftree/.mmbatch-tree"
echo CONFIG_NR_CPUS=8 >"$fbuild/.config"
# shellcheck disable=SC2016 # make's $(O)
{
	printf '%s\n' all: '	@echo "  CC      mm/a.o"' '	@echo "  CC      mm/b.o"' '	@echo "  LD      vmlinux"'
	printf '%s\n' '	@mkdir -p $(O)/arch/x86/boot $(O)/include/config' '	@echo image >$(O)/arch/x86/boot/bzImage'
	printf '%s\n' "	@echo $frel >\$(O)/include/config/kernel.release"
	printf '%s\n' prepare: '	@echo "  HOSTCC  scripts/basic/fixdep"' mm/: '	@echo "  CC      mm/a.o"' fail: '	@exit 1'
} >"$ftree/Makefile"
blog=$T/build.tsv
: >"$blog"
bsh=$TOP/tools/kbuild/build.sh
rc=0; kbuild_env MMBATCH_BUILDS_LOG="$blog" MMBATCH_CHECK_STAGE=pipeline "$bsh" >"$T/b1.out" 2>"$T/b1.err" || rc=$?
expect_ok "build.sh, a dir's first full build" "$rc" "@$T/b1.err"
rc=0; kbuild_env MMBATCH_BUILDS_LOG="$blog" MMBATCH_CHECK_STAGE=vm "$bsh" >"$T/b2.out" 2>"$T/b2.err" || rc=$?
expect_ok "build.sh again" "$rc" "@$T/b2.err"
rc=0; kbuild_env "$bsh" >"$T/b3.out" 2>"$T/b3.err" || rc=$?
expect_ok "build.sh again, no builds log" "$rc" "@$T/b3.err"
expect_eq "what it prints with a builds log and without (times aside)" \
	"$(sed -E 's/[0-9]+ s\b/N s/g' "$T/b3.err"; cat "$T/b3.out")" "$(sed -E 's/[0-9]+ s\b/N s/g' "$T/b2.err"; cat "$T/b2.out")"
rc=0; kbuild_env MMBATCH_BUILDS_LOG="$blog" MMBATCH_CHECK_STAGE=distcc BUILD_TARGETS=" mm/ " "$bsh" >"$T/b4.out" 2>"$T/b4.err" || rc=$?
expect_ok "build.sh BUILD_TARGETS=mm/" "$rc" "@$T/b4.err"
rc=0; kbuild_env MMBATCH_BUILDS_LOG="$blog" MMBATCH_CHECK_STAGE=distcc BUILD_TARGETS=fail "$bsh" >"$T/b5.out" 2>"$T/b5.err" || rc=$?
expect_status "build.sh of a failing target" 1 "$rc"
chash=$(sha256sum <"$fbuild/.config" | cut -c1-64)
shash=$(bash -c '. "$1/tools/kbuild/identity.sh"; bid_get "$2" SERIES_HASH' _ "$TOP" "$fbuild/mmbatch-build.env")
expect_eq "its lines: one per build, none for the failed one (all but wall_s and cpu_s)" \
	"pipeline|$fbuild|$frel|BASE=6.12 FLAVOR=guest|$chash|$shash|-|all|-|compiled|3|-|-
vm|$fbuild|$frel|BASE=6.12 FLAVOR=guest|$chash|$shash|-|all|-|compiled|0|-|-
distcc|$fbuild|$frel|BASE=6.12 FLAVOR=guest BUILD_TARGETS=mm/|$chash|$shash|-|mm/|-|compiled|1|-|-" \
	"$(cut -f1-11,14-15 "$blog" | tr '\t' '|')"
expect_eq "wall_s and cpu_s: whole seconds" "" "$(cut -f12-13 "$blog" | grep -vE '^[0-9]+	[0-9]+$' || true)"

test_summary
