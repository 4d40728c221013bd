#!/bin/bash
# `make check-rebase`: tools/kbuild/rebase-check.sh on small fixture trees
# made from the pristine 6.12 source (only the files the series touches, the
# MANIFEST verify files and a Makefile saying 6.12.999) and on a real older
# Debian release. No kernel is built: the build step runs with a stub make
# (its command line is checked) or REBASE_BUILD=0.
#  1. clean fixture: every patch applied, every claim holds, the build step
#     calls `make kernel SRC=<tree> FLAVOR=guest`; a failing build fails;
#     the same tree packed as a linux-source .deb (NEW_SRC=file.deb); a .deb
#     of another package is refused;
#  2. fuzz fixture (a context line of a hunk changed, a file shifted):
#     `fuzz` with the hunk, its fuzz and its offset; a refreshed patch that
#     applies to the fixture with --fuzz=0 and no offset; build skipped; exit 0;
#  3. broken fixture, as a tarball (a line a patch removes changed): FAILED
#     with `hunk N FAILED at FILE:LINE`, exit 1, the tarball and the tree it
#     came from untouched, no build;
#  4. a fixture where an in-base MANIFEST claim no longer holds: BROKEN with
#     the verify line, exit 1;
#  5. bad input: unknown package version, missing path, a base without a
#     series (exit 2, one ERROR line, no half-written report);
#  6. a real older Debian release in the PKG=VERSION form (REBASE_REAL_PKG;
#     default: the newest linux-source-6.12 in the apt archive older than the
#     installed one, today 6.12.115-2~deb12u1; the installed one when there is
#     none; fetched once into out/cache/rebase/): every patch applies, every
#     claim holds, REPORT.md names that release.
# Reads: TOP, OUT, REBASE_REAL_PKG, REBASE_CHECK (the script under test;
#        default TOP/tools/kbuild/rebase-check.sh, a test hook to show the
#        tests fail on a broken copy).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
. "$TOP/tests/rebase/lib.sh"
. "$TOP/tools/kbuild/lib.sh"
rc_tool=${REBASE_CHECK:-$TOP/tools/kbuild/rebase-check.sh}
real_pkg=${REBASE_REAL_PKG:-}
if [ -z "$real_pkg" ]; then
	installed=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	real_ver=$installed
	while read -r v; do
		if dpkg --compare-versions "$v" lt "$installed" && { [ "$real_ver" = "$installed" ] || dpkg --compare-versions "$v" gt "$real_ver"; }; then
			real_ver=$v
		fi
	done < <(apt-cache madison linux-source-6.12 | awk -F'|' '{ gsub(/ /, "", $2); print $2 }')
	[ "$real_ver" != "$installed" ] || echo "note: no linux-source-6.12 older than $installed in the apt archive: using $installed itself"
	real_pkg=linux-source-6.12=$real_ver
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs NEW_SRC REBASE_BUILD REBASE_FUZZ MAKEFLAGS MFLAGS
FIXTURE_BASE=6.12 SERIES_DIR=$TOP/patches/6.12
p0010=0010-mm-derive-the-folio_batch-size-from-CONFIG_NR_CPUS.patch
p0020=0020-mm-add-proc-sys-vm-drain_percpu-to-empty-the-per-CPU.patch

pristine=$(BASE=6.12 "$TOP/tools/kbuild/source.sh" 2>/dev/null)
echo "== fixtures from $pristine (6.12.999: files of patches/6.12/series + MANIFEST verify files)"

# A stub make for the build step: records its arguments, prints a bzImage
# path as `make kernel` does, exits STUB_RC.
stub=$tmp/make-stub
cat >"$stub" <<EOF
#!/bin/sh
echo "\$*" >"$tmp/make.args"
mkdir -p "$tmp/build/arch/x86/boot"
echo KERNELRELEASE=6.12.999-mmbatch1-guest >"$tmp/build/mmbatch-build.env"
echo "$tmp/build/arch/x86/boot/bzImage"
exit \${STUB_RC:-0}
EOF
chmod +x "$stub"

# run NAME [VAR=VALUE...]: rebase-check with a private OUT; output in
# $tmp/NAME.out, exit status in $rc.
run() {
	local name=$1; shift
	rm -f "$tmp/make.args"
	rc=0; env OUT="$tmp/out" MAKE="$stub" "$@" "$rc_tool" >"$tmp/$name.out" 2>&1 || rc=$?
	sed 's/^/    | /' "$tmp/$name.out" | head -n 14
}

echo "== 1. clean fixture: applied, claims hold, the build step"
make_fixture "$pristine" "$tmp/clean" 999
run clean NEW_SRC="$tmp/clean"
assert_status "clean fixture" 0 $rc
assert_line "clean fixture" "$tmp/clean.out" "rebase-check 6.12.999: $p0010: applied"
assert_line "clean fixture" "$tmp/clean.out" "rebase-check 6.12.999: $p0020: applied"
assert_line "clean fixture" "$tmp/clean.out" "rebase-check 6.12.999: change migrate-tlb-batch (in-base): holds (4 verify lines)"
assert_line "clean fixture" "$tmp/clean.out" "rebase-check 6.12.999: change drain-percpu (patched by $p0020): holds (5 verify lines)"
assert_eq "build step command" "-C $TOP --no-print-directory kernel SRC=$tmp/clean FLAVOR=guest PATCHES=1 EXTRA_PATCHES= FRAGMENTS=" "$(cat "$tmp/make.args" 2>/dev/null)"
assert_contains "clean fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "- build (guest): ok in"
assert_contains "clean fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "6.12.999-mmbatch1-guest"
assert_line "clean fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "| $p0010 | applied |  |"
assert_line "clean fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "- verdict: OK"
run clean-buildfail NEW_SRC="$tmp/clean" STUB_RC=1
assert_status "clean fixture, failing build" 1 $rc
assert_contains "failing build" "$tmp/clean-buildfail.out" "- build (guest): FAILED after"

echo "== 1b. the clean fixture packed as a linux-source-6.12 .deb (NEW_SRC=file.deb)"
mkdir -p "$tmp/deb/DEBIAN" "$tmp/deb/usr/src" "$tmp/debsrc"
cp -a "$tmp/clean" "$tmp/debsrc/linux-source-6.12"
tar -C "$tmp/debsrc" -cJf "$tmp/deb/usr/src/linux-source-6.12.tar.xz" linux-source-6.12
printf 'Package: %s\nVersion: 6.12.999-1~test1\nArchitecture: all\nMaintainer: mmbatch <mmbatch@mmbatch.invalid>\nDescription: rebase-check test fixture\n' \
	linux-source-6.12 >"$tmp/deb/DEBIAN/control"
dpkg-deb -b --root-owner-group "$tmp/deb" "$tmp/fixture.deb" >/dev/null
run deb NEW_SRC="$tmp/fixture.deb"
assert_status "clean fixture .deb" 0 $rc
assert_line "clean fixture .deb" "$tmp/deb.out" "rebase-check 6.12.999: series patches/6.12 (version $(kb_series_version "$SERIES_DIR")) on linux-source-6.12=6.12.999-1~test1 (fixture.deb)"
assert_line "clean fixture .deb report" "$tmp/out/rebase/6.12.999-1~test1/REPORT.md" "- verdict: OK"
debtar=$(find "$tmp/out/cache/rebase" -path '*/linux-source-6.12_6.12.999-1~test1_*/linux-source-6.12.tar.xz')
assert_eq "build step command (.deb)" "-C $TOP --no-print-directory kernel SRC=$debtar FLAVOR=guest PATCHES=1 EXTRA_PATCHES= FRAGMENTS=" "$(cat "$tmp/make.args" 2>/dev/null)"
sed -i 's/^Package: .*/Package: linux-doc/' "$tmp/deb/DEBIAN/control"
dpkg-deb -b --root-owner-group "$tmp/deb" "$tmp/other.deb" >/dev/null
run otherdeb NEW_SRC="$tmp/other.deb"
assert_status "a .deb that is not linux-source" 2 $rc
assert_line "a .deb that is not linux-source" "$tmp/otherdeb.out" "ERROR: rebase-check: NEW_SRC='$tmp/other.deb': package 'linux-doc' is not a linux-source-* package"

echo "== 2. fuzz fixture: a changed context line (vm.rst) and 5 lines more above a hunk (mm/Makefile)"
make_fixture "$pristine" "$tmp/fuzz" 999
edit_line "$tmp/fuzz/Documentation/admin-guide/sysctl/vm.rst" "- dirty_ratio" "- dirty_ratio_changed_by_a_stable_update"
{ printf '# stable update\n%.0s' 1 2 3 4 5; cat "$tmp/fuzz/mm/Makefile"; } >"$tmp/fuzz/Makefile.mm" && mv "$tmp/fuzz/Makefile.mm" "$tmp/fuzz/mm/Makefile"
run fuzz NEW_SRC="$tmp/fuzz"
l_rst=$(hunk_start "$SERIES_DIR/$p0020" Documentation/admin-guide/sysctl/vm.rst 1)
l_mk=$(( $(hunk_start "$SERIES_DIR/$p0020" mm/Makefile 1) + 5 ))
assert_status "fuzz fixture" 0 $rc
assert_line "fuzz fixture" "$tmp/fuzz.out" "rebase-check 6.12.999: $p0010: applied"
assert_line "fuzz fixture" "$tmp/fuzz.out" "rebase-check 6.12.999: $p0020: fuzz"
assert_line "fuzz fixture" "$tmp/fuzz.out" "  hunk 1 at Documentation/admin-guide/sysctl/vm.rst:$l_rst: fuzz 1"
assert_line "fuzz fixture" "$tmp/fuzz.out" "  hunk 1 at mm/Makefile:$l_mk: offset +5 lines"
assert_line "fuzz fixture" "$tmp/fuzz.out" "rebase-check 6.12.999: change drain-percpu (patched by $p0020): holds (5 verify lines)"
assert_contains "fuzz fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "| $p0020 | fuzz | hunk 1 at Documentation/admin-guide/sysctl/vm.rst:$l_rst: fuzz 1; hunk 1 at mm/Makefile:$l_mk: offset +5 lines |"
assert_contains "fuzz fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "- build (guest): skipped: 1 patch(es) need fuzz"
assert_eq "make called for a series that needs fuzz" "no" "$([ -f "$tmp/make.args" ] && echo yes || echo no)"
refreshed=$tmp/out/rebase/6.12.999/refreshed/$p0020
assert_eq "refreshed patches written" "$p0020" "$(ls "$tmp/out/rebase/6.12.999/refreshed" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
assert_eq "refreshed patch keeps the Subject" "$(grep -m1 '^Subject:' "$SERIES_DIR/$p0020")" "$(grep -m1 '^Subject:' "$refreshed" 2>/dev/null)"
cp -a "$tmp/fuzz" "$tmp/fuzz-copy"
rc=0; patch -d "$tmp/fuzz-copy" -p1 --dry-run --forward --fuzz=0 <"$refreshed" >"$tmp/refreshed.out" 2>&1 || rc=$?
assert_status "refreshed patch on the fuzz fixture (--fuzz=0)" 0 $rc
assert_eq "hunks of the refreshed patch needing fuzz or offsets" 0 "$(grep -c -E 'fuzz|offset' "$tmp/refreshed.out" || true)"

echo "== 3. broken fixture as a tarball: a line that 0010 removes was changed (include/linux/pagevec.h)"
make_fixture "$pristine" "$tmp/broken/linux-6.12.999" 999
edit_line "$tmp/broken/linux-6.12.999/include/linux/pagevec.h" "#define PAGEVEC_SIZE	31" "#define PAGEVEC_SIZE	15"
tar -C "$tmp/broken" -czf "$tmp/broken.tar.gz" linux-6.12.999
l_pv=$(hunk_start "$SERIES_DIR/$p0010" include/linux/pagevec.h 1)
before_tree=$(tree_sum "$tmp/broken") before_tar=$(sha256sum <"$tmp/broken.tar.gz")
run broken NEW_SRC="$tmp/broken.tar.gz"
assert_status "broken fixture" 1 $rc
assert_line "broken fixture" "$tmp/broken.out" "rebase-check 6.12.999: $p0010: FAILED"
assert_line "broken fixture" "$tmp/broken.out" "  series: $p0010: hunk 1 FAILED at include/linux/pagevec.h:$l_pv"
assert_line "broken fixture" "$tmp/broken.out" "rebase-check 6.12.999: $p0020: applied"
assert_line "broken fixture" "$tmp/broken.out" "rebase-check 6.12.999: change pagevec-size (patched by $p0010): BROKEN"
assert_line "broken fixture" "$tmp/broken.out" "  its patch FAILED to apply"
assert_contains "broken fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "| $p0010 | FAILED | hunk 1 FAILED at include/linux/pagevec.h:$l_pv |"
assert_line "broken fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "- build (guest): skipped: 1 patch(es) FAILED"
assert_line "broken fixture report" "$tmp/out/rebase/6.12.999/REPORT.md" "- verdict: FAILED"
assert_eq "make called for a failed series" "no" "$([ -f "$tmp/make.args" ] && echo yes || echo no)"
assert_eq "tarball checksum after the check" "$before_tar" "$(sha256sum <"$tmp/broken.tar.gz")"
assert_eq "fixture tree checksum after the check" "$before_tree" "$(tree_sum "$tmp/broken")"
# The same tree given unpacked: the tree itself is not written either.
run broken-tree NEW_SRC="$tmp/broken/linux-6.12.999" REBASE_BUILD=0
assert_status "broken fixture (tree)" 1 $rc
assert_line "broken fixture (tree)" "$tmp/broken-tree.out" "  series: $p0010: hunk 1 FAILED at include/linux/pagevec.h:$l_pv"
assert_eq "fixture tree checksum after the check (tree form)" "$before_tree" "$(tree_sum "$tmp/broken")"

echo "== 4. in-base claim fixture: migrate_pages_batch() renamed in mm/migrate.c"
make_fixture "$pristine" "$tmp/claim" 999
sed -i 's/^static int migrate_pages_batch(/static int migrate_pages_batched(/' "$tmp/claim/mm/migrate.c"
run claim NEW_SRC="$tmp/claim" REBASE_BUILD=0
assert_status "in-base claim fixture" 1 $rc
assert_line "in-base claim fixture" "$tmp/claim.out" "rebase-check 6.12.999: $p0010: applied"
assert_line "in-base claim fixture" "$tmp/claim.out" "rebase-check 6.12.999: change migrate-tlb-batch (in-base): BROKEN"
assert_line "in-base claim fixture" "$tmp/claim.out" "  verify mm/migrate.c '^static[[:space:]]int[[:space:]]migrate_pages_batch\\(' no longer matches the new base"
assert_line "in-base claim fixture" "$tmp/claim.out" "rebase-check 6.12.999: change mmu-gather-force-flush (in-base): holds (3 verify lines)"
assert_line "in-base claim report" "$tmp/out/rebase/6.12.999/REPORT.md" "- MANIFEST changes: 6 (5 hold, 1 BROKEN)"
assert_line "in-base claim report" "$tmp/out/rebase/6.12.999/REPORT.md" "- build (guest): skipped (REBASE_BUILD=0); run: make kernel SRC=$tmp/claim FLAVOR=guest"

echo "== 5. bad input"
run badver NEW_SRC=linux-source-6.12=0.0.0-nosuch REBASE_BUILD=0
assert_status "unknown package version" 2 $rc
assert_contains "unknown package version" "$tmp/badver.out" "ERROR: rebase-check: NEW_SRC='linux-source-6.12=0.0.0-nosuch': apt-get download failed: E: "
run badpath NEW_SRC="$tmp/nonexistent" REBASE_BUILD=0
assert_status "missing path" 2 $rc
assert_line "missing path" "$tmp/badpath.out" "ERROR: rebase-check: NEW_SRC='$tmp/nonexistent' does not exist (expected a tarball, a tree, PKG=VERSION or a .deb)"
make_fixture "$pristine" "$tmp/otherbase" 1
sed -i 's/^PATCHLEVEL = .*/PATCHLEVEL = 10/' "$tmp/otherbase/Makefile"
run otherbase NEW_SRC="$tmp/otherbase" REBASE_BUILD=0
assert_status "a base without a series" 2 $rc
assert_line "a base without a series" "$tmp/otherbase.out" "ERROR: rebase-check: NEW_SRC is linux-6.10.1, but there is no series for base 6.10 ($TOP/patches/6.10 absent)"
assert_eq "half-written reports left" "" "$(find "$tmp/out/rebase" -name '.report.*' -printf '%f ')"

echo "== 6. the real older release $real_pkg (fetched once into out/cache/rebase/, no build)"
label=${real_pkg#*=}
rc=0; env MAKE="$stub" NEW_SRC="$real_pkg" REBASE_BUILD=0 "$rc_tool" >"$tmp/real.out" 2>&1 || rc=$?
sed 's/^/    | /' "$tmp/real.out"
assert_status "real release $real_pkg" 0 $rc
real_kver=$(echo "$label" | sed -E 's/^([0-9]+\.[0-9]+\.[0-9]+).*/\1/')
assert_line "real release report" "$OUT/rebase/$label/REPORT.md" "# rebase-check: linux-$real_kver"
while read -r name _; do
	# Offsets (`fuzz` without fuzz) are fine in an older release; FAILED is not.
	[ -n "$name" ] || continue
	res=$(sed -n "s/^rebase-check $real_kver: $name: \(applied\|fuzz\|FAILED\)\$/\1/p" "$tmp/real.out")
	case "$res" in applied|fuzz) pass "real release: $name: $res" ;;
		*) fail "real release: $name: expected 'applied' or 'fuzz', got '$res'" ;; esac
done < <(kb_series_entries "$SERIES_DIR")
nchanges=$(grep -c '^change:' "$SERIES_DIR/MANIFEST")
assert_line "real release report" "$OUT/rebase/$label/REPORT.md" "- MANIFEST changes: $nchanges ($nchanges hold, 0 BROKEN)"
assert_line "real release report" "$OUT/rebase/$label/REPORT.md" "- verdict: OK"
assert_eq "make called with REBASE_BUILD=0" "no" "$([ -f "$tmp/make.args" ] && echo yes || echo no)"

test_summary
