#!/bin/bash
# `make check-rebase`: tools/kbuild/rebase-check.sh on small fixture trees
# made from the pristine 6.12 source (only the files the series touches, the
# MANIFEST verify files and a Makefile saying 6.12.999) and on a real older
# Debian release. No kernel is built: the build step runs with stub stage
# scripts (REBASE_KBUILD; what they are given is checked) or REBASE_BUILD=0.
# Tests (ONLY=rebase/NAME):
#  clean   clean fixture: every patch applied, every claim holds, the build
#          step runs the stage scripts source, series, config, build with
#          SRC=<tree> FLAVOR=guest and reads the result from the build's
#          identity file (named in the report); a failing build fails;
#  deb     the same tree packed as a linux-source .deb (NEW_SRC=file.deb); a
#          .deb of another package is refused;
#  fuzz    fuzz fixture (a context line of a hunk changed, a file shifted):
#          `fuzz` with the hunk, its fuzz and its offset; a refreshed patch
#          that applies to the fixture with --fuzz=0 and no offset; build
#          skipped; exit 0;
#  broken  broken fixture, as a tarball (a line a patch removes changed):
#          FAILED with `hunk N FAILED at FILE:LINE`, exit 1, the tarball and
#          the tree it came from untouched, no build;
#  claim   a fixture where an in-base MANIFEST claim no longer holds: BROKEN
#          with the verify line, exit 1;
#  input   bad input: unknown package version, missing path, a base without
#          a series (exit 2, one ERROR line, no half-written report);
#  real    a real older Debian release in the PKG=VERSION form
#          (REBASE_REAL_PKG; default: the newest linux-source-6.12 in the apt
#          archive older than the installed one, today 6.12.115-2~deb12u1; the
#          installed one when there is none; fetched once into
#          out/cache/rebase/): every patch applies, every claim holds,
#          REPORT.md names that release.
# Reads: TOP, OUT, ONLY (tests/lib/assert.sh's selector), REBASE_REAL_PKG,
#        REBASE_CHECK (the script under test; default
#        TOP/tools/kbuild/rebase-check.sh, a test hook to show the tests fail
#        on a broken copy).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
TEST_NAME=${TEST_STAGE:-rebase}
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
# shellcheck source=tests/rebase/lib.sh
. "$TOP/tests/rebase/lib.sh"
# shellcheck source=tools/kbuild/lib.sh
. "$TOP/tools/kbuild/lib.sh"
rc_tool=${REBASE_CHECK:-$TOP/tools/kbuild/rebase-check.sh}
real_pkg=${REBASE_REAL_PKG:-}
if selected real && [ -z "$real_pkg" ]; then
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
scratch
tmp=$T
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs NEW_SRC REBASE_BUILD REBASE_FUZZ REBASE_KBUILD KB_IDENTITY_OUT MAKEFLAGS MFLAGS
FIXTURE_BASE=6.12 SERIES_DIR=$TOP/patches/6.12
p0010=0010-mm-derive-the-folio_batch-size-from-CONFIG_NR_CPUS.patch
p0020=0020-mm-add-proc-sys-vm-drain_percpu-to-empty-the-per-CPU.patch

# Stub stage scripts for the build step (REBASE_KBUILD): each records its
# name and the knobs it got in $tmp/stages.args; the stub build.sh writes an
# identity file (tools/kbuild/identity.sh's format) for a bzImage, names it in
# KB_IDENTITY_OUT as the real config.sh and build.sh do, prints the bzImage
# path as build.sh does, and exits STUB_RC (STUB_NO_IDENTITY=1: names no
# identity file).
stubs=$tmp/kbuild-stub
stub_id=$tmp/build/mmbatch-build.env
mkdir -p "$stubs"
for stage in source series config build; do
	cat >"$stubs/$stage.sh" <<EOF
#!/bin/sh
echo "$stage.sh SRC=\$SRC FLAVOR=\$FLAVOR PATCHES=\$PATCHES EXTRA_PATCHES=\$EXTRA_PATCHES FRAGMENTS=\$FRAGMENTS KB_IDENTITY_OUT=\${KB_IDENTITY_OUT:+set}" >>"$tmp/stages.args"
[ $stage = build ] || exit 0
mkdir -p "$tmp/build/arch/x86/boot"
printf '%s\n' IDENTITY_VERSION=1 KERNELRELEASE=6.12.999-mmbatch1-guest IMAGE="$tmp/build/arch/x86/boot/bzImage" >"$stub_id"
[ -n "\${STUB_NO_IDENTITY:-}" ] || echo "$stub_id" >"\$KB_IDENTITY_OUT"
echo "$tmp/build/arch/x86/boot/bzImage"
exit \${STUB_RC:-0}
EOF
	chmod +x "$stubs/$stage.sh"
done
# stages_args SRC: what the stage scripts are given for NEW_SRC=SRC.
stages_args() {
	local stage
	for stage in source series config build; do
		echo "$stage.sh SRC=$1 FLAVOR=guest PATCHES=1 EXTRA_PATCHES= FRAGMENTS= KB_IDENTITY_OUT=set"
	done
}

# run NAME [VAR=VALUE...]: rebase-check with a private OUT; output in
# $tmp/NAME.out, exit status in $rc.
run() {
	local name=$1; shift
	rm -f "$tmp/stages.args"
	rc=0; env OUT="$tmp/out" REBASE_KBUILD="$stubs" "$@" "$rc_tool" >"$tmp/$name.out" 2>&1 || rc=$?
	sed 's/^/    | /' "$tmp/$name.out" | head -n 14
}

# The pristine 6.12 source (stage 1, made when missing), where the layout
# puts it: out/src/6.12/pristine/linux-*.
BASE=6.12 "$TOP/tools/kbuild/source.sh" >/dev/null 2>&1
pristine=
for d in "$OUT/src/6.12/pristine"/linux-*; do [ -f "$d/Makefile" ] && pristine=$d; done
echo "== fixtures from $pristine (6.12.999: files of patches/6.12/series + MANIFEST verify files)"
# called FILE: did any stage script (the stubs) run?
called() { if [ -f "$1" ]; then echo yes; else echo no; fi; }
# rel PATH: PATH as rebase-check's report names it (relative to TOP if in it).
rel() { case "$1" in "$TOP"/*) echo "${1#"$TOP"/}" ;; *) echo "$1" ;; esac; }

if selected clean; then
	echo "== clean fixture: applied, claims hold, the build step"
	make_fixture "$pristine" "$tmp/clean" 999
	run clean NEW_SRC="$tmp/clean"
	expect_status "clean fixture" 0 "$rc"
	expect_line "clean fixture" "rebase-check 6.12.999: $p0010: applied" "@$tmp/clean.out"
	expect_line "clean fixture" "rebase-check 6.12.999: $p0020: applied" "@$tmp/clean.out"
	# as many verify lines as patches/6.12/MANIFEST gives the change
	n_tlb=$(awk '/^change:/ { c = $2 } /^verify:/ && c == "migrate-tlb-batch" { n++ } END { print n + 0 }' "$TOP/patches/6.12/MANIFEST")
	expect_line "clean fixture" "rebase-check 6.12.999: change migrate-tlb-batch (in-base): holds ($n_tlb verify lines)" "@$tmp/clean.out"
	expect_line "clean fixture" "rebase-check 6.12.999: change drain-percpu (patched by $p0020): holds (5 verify lines)" "@$tmp/clean.out"
	expect_eq "build step: the stage scripts and their knobs" "$(stages_args "$tmp/clean")" "$(cat "$tmp/stages.args" 2>&1)"
	expect_contains "clean fixture report" "- build (guest): ok in" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_contains "clean fixture report" "6.12.999-mmbatch1-guest" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_contains "clean fixture report: the image, read from the identity" ", $(rel "$tmp/build/arch/x86/boot/bzImage") (" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_contains "clean fixture report: names the identity file" "; identity $(rel "$stub_id"))" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_line "clean fixture report" "| $p0010 | applied |  |" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_line "clean fixture report" "- verdict: OK" "@$tmp/out/rebase/6.12.999/REPORT.md"
	run clean-buildfail NEW_SRC="$tmp/clean" STUB_RC=1
	expect_status "clean fixture, failing build" 1 "$rc"
	expect_contains "failing build" "- build (guest): FAILED after" "@$tmp/clean-buildfail.out"
	# A build that succeeds but leaves no identity file is no build.
	run clean-noid NEW_SRC="$tmp/clean" STUB_NO_IDENTITY=1
	expect_status "clean fixture, build without an identity file" 1 "$rc"
	expect_contains "build without an identity file" "- build (guest): FAILED after" "@$tmp/clean-noid.out"
	expect_contains "build without an identity file: its log" "ERROR: build identity" "@$tmp/out/rebase/6.12.999/build.log"
fi

if selected deb; then
	echo "== the clean fixture packed as a linux-source-6.12 .deb (NEW_SRC=file.deb)"
	[ -d "$tmp/clean" ] || make_fixture "$pristine" "$tmp/clean" 999
	mkdir -p "$tmp/deb/DEBIAN" "$tmp/deb/usr/src" "$tmp/debsrc"
	cp -a "$tmp/clean" "$tmp/debsrc/linux-source-6.12"
	tar -C "$tmp/debsrc" -cJf "$tmp/deb/usr/src/linux-source-6.12.tar.xz" linux-source-6.12
	printf 'Package: %s\nVersion: 6.12.999-1~test1\nArchitecture: all\nMaintainer: mmbatch <mmbatch@mmbatch.invalid>\nDescription: rebase-check test fixture\n' \
		linux-source-6.12 >"$tmp/deb/DEBIAN/control"
	dpkg-deb -b --root-owner-group "$tmp/deb" "$tmp/fixture.deb" >/dev/null
	run deb NEW_SRC="$tmp/fixture.deb"
	expect_status "clean fixture .deb" 0 "$rc"
	expect_line "clean fixture .deb" "rebase-check 6.12.999: series patches/6.12 (version $(kb_series_version "$SERIES_DIR")) on linux-source-6.12=6.12.999-1~test1 (fixture.deb)" "@$tmp/deb.out"
	expect_line "clean fixture .deb report" "- verdict: OK" "@$tmp/out/rebase/6.12.999-1~test1/REPORT.md"
	debtar=$(find "$tmp/out/cache/rebase" -path '*/linux-source-6.12_6.12.999-1~test1_*/linux-source-6.12.tar.xz')
	expect_eq "build step (.deb): the stage scripts and their knobs" "$(stages_args "$debtar")" "$(cat "$tmp/stages.args" 2>&1)"
	sed -i 's/^Package: .*/Package: linux-doc/' "$tmp/deb/DEBIAN/control"
	dpkg-deb -b --root-owner-group "$tmp/deb" "$tmp/other.deb" >/dev/null
	run otherdeb NEW_SRC="$tmp/other.deb"
	expect_status "a .deb that is not linux-source" 2 "$rc"
	expect_line "a .deb that is not linux-source" "ERROR: rebase-check: NEW_SRC='$tmp/other.deb': package 'linux-doc' is not a linux-source-* package" "@$tmp/otherdeb.out"
fi

if selected fuzz; then
	echo "== fuzz fixture: a changed context line (vm.rst) and 5 lines more above a hunk (mm/Makefile)"
	make_fixture "$pristine" "$tmp/fuzz" 999
	edit_line "$tmp/fuzz/Documentation/admin-guide/sysctl/vm.rst" "- dirty_ratio" "- dirty_ratio_changed_by_a_stable_update"
	{ printf '# stable update\n%.0s' 1 2 3 4 5; cat "$tmp/fuzz/mm/Makefile"; } >"$tmp/fuzz/Makefile.mm" && mv "$tmp/fuzz/Makefile.mm" "$tmp/fuzz/mm/Makefile"
	run fuzz NEW_SRC="$tmp/fuzz"
	l_rst=$(hunk_start "$SERIES_DIR/$p0020" Documentation/admin-guide/sysctl/vm.rst 1)
	l_mk=$(( $(hunk_start "$SERIES_DIR/$p0020" mm/Makefile 1) + 5 ))
	expect_status "fuzz fixture" 0 "$rc"
	expect_line "fuzz fixture" "rebase-check 6.12.999: $p0010: applied" "@$tmp/fuzz.out"
	expect_line "fuzz fixture" "rebase-check 6.12.999: $p0020: fuzz" "@$tmp/fuzz.out"
	expect_line "fuzz fixture" "  hunk 1 at Documentation/admin-guide/sysctl/vm.rst:$l_rst: fuzz 1" "@$tmp/fuzz.out"
	expect_line "fuzz fixture" "  hunk 1 at mm/Makefile:$l_mk: offset +5 lines" "@$tmp/fuzz.out"
	expect_line "fuzz fixture" "rebase-check 6.12.999: change drain-percpu (patched by $p0020): holds (5 verify lines)" "@$tmp/fuzz.out"
	expect_contains "fuzz fixture report" "| $p0020 | fuzz | hunk 1 at Documentation/admin-guide/sysctl/vm.rst:$l_rst: fuzz 1; hunk 1 at mm/Makefile:$l_mk: offset +5 lines |" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_contains "fuzz fixture report" "- build (guest): skipped: 1 patch(es) need fuzz" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_eq "stage scripts called for a series that needs fuzz" "no" "$(called "$tmp/stages.args")"
	refreshed=$tmp/out/rebase/6.12.999/refreshed/$p0020
	expect_eq "refreshed patches written" "$p0020" "$(find "$tmp/out/rebase/6.12.999/refreshed" -mindepth 1 -printf '%f\n' 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "refreshed patch keeps the Subject" "$(grep -m1 '^Subject:' "$SERIES_DIR/$p0020")" "$(grep -m1 '^Subject:' "$refreshed" 2>/dev/null)"
	cp -a "$tmp/fuzz" "$tmp/fuzz-copy"
	rc=0; patch -d "$tmp/fuzz-copy" -p1 --dry-run --forward --fuzz=0 <"$refreshed" >"$tmp/refreshed.out" 2>&1 || rc=$?
	expect_status "refreshed patch on the fuzz fixture (--fuzz=0)" 0 "$rc"
	expect_eq "hunks of the refreshed patch needing fuzz or offsets" 0 "$(grep -c -E 'fuzz|offset' "$tmp/refreshed.out" || true)"
fi

if selected broken; then
	echo "== broken fixture as a tarball: a line that 0010 removes was changed (include/linux/pagevec.h)"
	make_fixture "$pristine" "$tmp/broken/linux-6.12.999" 999
	edit_line "$tmp/broken/linux-6.12.999/include/linux/pagevec.h" "#define PAGEVEC_SIZE	31" "#define PAGEVEC_SIZE	15"
	tar -C "$tmp/broken" -czf "$tmp/broken.tar.gz" linux-6.12.999
	l_pv=$(hunk_start "$SERIES_DIR/$p0010" include/linux/pagevec.h 1)
	before_tree=$(tree_sum "$tmp/broken" dates) before_tar=$(sha256sum <"$tmp/broken.tar.gz")
	run broken NEW_SRC="$tmp/broken.tar.gz"
	expect_status "broken fixture" 1 "$rc"
	expect_line "broken fixture" "rebase-check 6.12.999: $p0010: FAILED" "@$tmp/broken.out"
	expect_line "broken fixture" "  series: $p0010: hunk 1 FAILED at include/linux/pagevec.h:$l_pv" "@$tmp/broken.out"
	expect_line "broken fixture" "rebase-check 6.12.999: $p0020: applied" "@$tmp/broken.out"
	expect_line "broken fixture" "rebase-check 6.12.999: change pagevec-size (patched by $p0010): BROKEN" "@$tmp/broken.out"
	expect_line "broken fixture" "  its patch FAILED to apply" "@$tmp/broken.out"
	expect_contains "broken fixture report" "| $p0010 | FAILED | hunk 1 FAILED at include/linux/pagevec.h:$l_pv |" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_line "broken fixture report" "- build (guest): skipped: 1 patch(es) FAILED" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_line "broken fixture report" "- verdict: FAILED" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_eq "stage scripts called for a failed series" "no" "$(called "$tmp/stages.args")"
	expect_eq "tarball checksum after the check" "$before_tar" "$(sha256sum <"$tmp/broken.tar.gz")"
	expect_eq "fixture tree checksum after the check" "$before_tree" "$(tree_sum "$tmp/broken" dates)"
	# The same tree given unpacked: the tree itself is not written either.
	run broken-tree NEW_SRC="$tmp/broken/linux-6.12.999" REBASE_BUILD=0
	expect_status "broken fixture (tree)" 1 "$rc"
	expect_line "broken fixture (tree)" "  series: $p0010: hunk 1 FAILED at include/linux/pagevec.h:$l_pv" "@$tmp/broken-tree.out"
	expect_eq "fixture tree checksum after the check (tree form)" "$before_tree" "$(tree_sum "$tmp/broken" dates)"
fi

if selected claim; then
	echo "== in-base claim fixture: migrate_pages_batch() renamed in mm/migrate.c"
	make_fixture "$pristine" "$tmp/claim" 999
	sed -i 's/^static int migrate_pages_batch(/static int migrate_pages_batched(/' "$tmp/claim/mm/migrate.c"
	run claim NEW_SRC="$tmp/claim" REBASE_BUILD=0
	expect_status "in-base claim fixture" 1 "$rc"
	expect_line "in-base claim fixture" "rebase-check 6.12.999: $p0010: applied" "@$tmp/claim.out"
	expect_line "in-base claim fixture" "rebase-check 6.12.999: change migrate-tlb-batch (in-base): BROKEN" "@$tmp/claim.out"
	expect_line "in-base claim fixture" "  verify mm/migrate.c '^static[[:space:]]int[[:space:]]migrate_pages_batch\\(' no longer matches the new base" "@$tmp/claim.out"
	expect_line "in-base claim fixture" "rebase-check 6.12.999: change mmu-gather-force-flush (in-base): holds (3 verify lines)" "@$tmp/claim.out"
	expect_line "in-base claim report" "- MANIFEST changes: 6 (5 hold, 1 BROKEN)" "@$tmp/out/rebase/6.12.999/REPORT.md"
	expect_line "in-base claim report" "- build (guest): skipped (REBASE_BUILD=0); run: make kernel SRC=$(rel "$tmp/claim") FLAVOR=guest" "@$tmp/out/rebase/6.12.999/REPORT.md"
fi

if selected input; then
	echo "== bad input"
	run badver NEW_SRC=linux-source-6.12=0.0.0-nosuch REBASE_BUILD=0
	expect_status "unknown package version" 2 "$rc"
	expect_contains "unknown package version" "ERROR: rebase-check: NEW_SRC='linux-source-6.12=0.0.0-nosuch': apt-get download failed: E: " "@$tmp/badver.out"
	run badpath NEW_SRC="$tmp/nonexistent" REBASE_BUILD=0
	expect_status "missing path" 2 "$rc"
	expect_line "missing path" "ERROR: rebase-check: NEW_SRC='$tmp/nonexistent' does not exist (expected a tarball, a tree, PKG=VERSION or a .deb)" "@$tmp/badpath.out"
	make_fixture "$pristine" "$tmp/otherbase" 1
	sed -i 's/^PATCHLEVEL = .*/PATCHLEVEL = 10/' "$tmp/otherbase/Makefile"
	run otherbase NEW_SRC="$tmp/otherbase" REBASE_BUILD=0
	expect_status "a base without a series" 2 "$rc"
	expect_line "a base without a series" "ERROR: rebase-check: NEW_SRC is linux-6.10.1, but there is no series for base 6.10 ($TOP/patches/6.10 absent)" "@$tmp/otherbase.out"
	expect_eq "half-written reports left" "" "$(find "$tmp/out/rebase" -name '.report.*' -printf '%f ' 2>/dev/null)"
fi

if selected real; then
	echo "== the real older release $real_pkg (fetched once into out/cache/rebase/, no build)"
	label=${real_pkg#*=}
	rm -f "$tmp/stages.args"
	rc=0; env REBASE_KBUILD="$stubs" NEW_SRC="$real_pkg" REBASE_BUILD=0 "$rc_tool" >"$tmp/real.out" 2>&1 || rc=$?
	sed 's/^/    | /' "$tmp/real.out"
	expect_status "real release $real_pkg" 0 "$rc"
	real_kver=$(echo "$label" | sed -E 's/^([0-9]+\.[0-9]+\.[0-9]+).*/\1/')
	expect_line "real release report" "# rebase-check: linux-$real_kver" "@$OUT/rebase/$label/REPORT.md"
	while read -r name _; do
		# Offsets (`fuzz` without fuzz) are fine in an older release; FAILED is not.
		[ -n "$name" ] || continue
		expect_match "real release: $name" "^rebase-check $(re_quote "$real_kver: $name"): (applied|fuzz)\$" "@$tmp/real.out"
	done < <(kb_series_entries "$SERIES_DIR")
	nchanges=$(grep -c '^change:' "$SERIES_DIR/MANIFEST")
	expect_line "real release report" "- MANIFEST changes: $nchanges ($nchanges hold, 0 BROKEN)" "@$OUT/rebase/$label/REPORT.md"
	expect_line "real release report" "- verdict: OK" "@$OUT/rebase/$label/REPORT.md"
	expect_eq "stage scripts called with REBASE_BUILD=0" "no" "$(called "$tmp/stages.args")"
fi

test_summary
