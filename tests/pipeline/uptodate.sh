# shellcheck shell=bash disable=SC2154 # T, kb, OUT: set by run.sh
# The pipeline stage's test `uptodate` (ONLY=pipeline/uptodate), sourced by
# tests/pipeline/run.sh (its T, kb, OUT and the assertions of
# tests/lib/assert.sh): build.sh's up-to-date check on the 6.12 guest build
# the kernel test made (out/build/6.12-guest; skipped where it is not
# built). A request for it with nothing changed runs no kbuild: it prints
# `build: <release> up to date: ...`, 0 objects compiled, the image path
# last, and logs a `compiled` row of 0 objects; a source file of the tree
# touched, kbuild runs, says why and compiles that object (and the image's
# wrapper under arch/x86/boot/, which kbuild remakes whenever vmlinux is
# relinked), and the next request is up to date again; that object deleted
# from the build dir, kbuild runs and makes it again; KB_FORCE_MAKE=1 runs
# kbuild. The image stays the same bytes throughout. Its kbuild runs are
# deliberate: they stay out of make check's builds log (MMBATCH_BUILDS_LOG:
# check-builds would count a second compile of the dir), the touched file
# gets its date back (the other build dirs of the tree see no change), and
# the last request leaves the dir up to date for the stages after this one.
# Costs three kbuild runs in the dir (about 15-30 s each on 2 cores).

ud_dir=$OUT/build/6.12-guest
ud_id=$ud_dir/mmbatch-build.env
if ! ud_hash0=$(bid_get "$ud_id" IMAGE_HASH 2>/dev/null); then
	skip "uptodate" "no 6.12 guest build in $ud_dir (ONLY=pipeline/kernel, or make guest-kernel-6.12, first)"
else
	ud_tree=$(bid_get "$ud_id" TREE) ud_release=$(bid_get "$ud_id" KERNELRELEASE)
	ud_image=$ud_dir/arch/x86/boot/bzImage
	# A source of the guest's mm/ whose object the build has.
	ud_src=
	for f in mm/madvise mm/mincore mm/mlock mm/mprotect; do
		if [ -f "$ud_tree/$f.c" ] && [ -f "$ud_dir/$f.o" ]; then ud_src=$f; break; fi
	done
	# ud_build NAME [VAR=V...]: build.sh for the 6.12 guest; its stdout in
	# $T/ud-NAME.out, stderr in $T/ud-NAME.err, rows in $T/ud-NAME.tsv.
	ud_build() {
		local name=$1 rc=0 t0=$SECONDS
		shift
		env -u KB_FORCE_MAKE BASE=6.12 FLAVOR=guest KB_BUILD_CACHE=0 PROGRESS_SECONDS=100000 \
			MMBATCH_BUILDS_LOG="$T/ud-$name.tsv" "$@" "$kb/build.sh" >"$T/ud-$name.out" 2>"$T/ud-$name.err" || rc=$?
		expect_ok "uptodate: $name: build.sh ($((SECONDS - t0)) s)" "$rc" "@$T/ud-$name.err"
		expect_eq "uptodate: $name: the image path, last" "$ud_image" "$(tail -n 1 "$T/ud-$name.out")"
	}
	ud_line="build: $ud_release up to date: nothing in $ud_tree or $ud_dir is newer than its last build (kbuild not run)"
	# ud_fast NAME: the request NAME was up to date.
	ud_fast() {
		expect_line "uptodate: $1: up to date" "$ud_line" "@$T/ud-$1.err"
		expect_no_match "uptodate: $1: kbuild not run" "^build: .*\(make -j" "@$T/ud-$1.err"
		expect_match "uptodate: $1: 0 objects compiled" '^build: .* done in [0-9]+ s \(0 objects compiled' "@$T/ud-$1.err"
	}
	# ud_compiled: the objects the last kbuild run compiled (its
	# build.log), but those of the image's wrapper (arch/x86/boot/).
	ud_compiled() {
		grep -E '^  (CC|AS|HOSTCC|HOSTCXX) ' "$ud_dir/build.log" | awk '{ print $NF }' |
			grep -v '^arch/x86/boot/' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//'
	}

	echo "== uptodate: the 6.12 guest asked for again ($ud_dir)"
	# The first request may run kbuild (the kernel test's make, or another
	# caller before, had another key); the second finds it up to date.
	ud_build first
	ud_build again
	ud_fast again
	expect_eq "uptodate: again: its builds log row (targets, how, objects)" "all compiled 0" "$(cut -f8,10,11 "$T/ud-again.tsv" | tr '\t' ' ')"
	if [ -z "$ud_src" ]; then
		skip "uptodate: a touched source, a deleted object" "none of mm/madvise mm/mincore mm/mlock mm/mprotect has its object in $ud_dir"
	else
		echo "== uptodate: $ud_src.c touched in the tree"
		touch -r "$ud_tree/$ud_src.c" "$T/ud-date"
		# Its date comes back whatever happens in between (run.sh's exit).
		ud_cleanup() {
			[ ! -f "$T/ud-date" ] || touch -r "$T/ud-date" "$ud_tree/$ud_src.c"
			remove_kconfig_dir
		}
		# shellcheck disable=SC2034 # run by tests/lib/assert.sh's EXIT trap
		cleanup_hook=ud_cleanup
		touch "$ud_tree/$ud_src.c"
		ud_build touched
		expect_line "uptodate: touched: kbuild runs, naming the file" "build: kbuild runs: $ud_tree/$ud_src.c changed since its last build started" "@$T/ud-touched.err"
		expect_eq "uptodate: touched: the objects compiled (but arch/x86/boot/'s)" "$ud_src.o" "$(ud_compiled)"
		expect_no_line "uptodate: touched: not up to date" "$ud_line" "@$T/ud-touched.err"
		ud_build after-touch
		ud_fast after-touch
		# Its date back: the other build dirs of this tree compiled it
		# from the same bytes.
		touch -r "$T/ud-date" "$ud_tree/$ud_src.c" && rm -f "$T/ud-date"
		ud_build date-back
		ud_fast date-back

		echo "== uptodate: $ud_src.o deleted from the build dir"
		rm -f "$ud_dir/$ud_src.o"
		ud_build deleted
		expect_match "uptodate: deleted: kbuild runs" "^build: kbuild runs: " "@$T/ud-deleted.err"
		expect_eq "uptodate: deleted: the objects compiled (but arch/x86/boot/'s)" "$ud_src.o" "$(ud_compiled)"
		expect_file "uptodate: deleted: the object made again" "$ud_dir/$ud_src.o"
	fi

	echo "== uptodate: KB_FORCE_MAKE=1"
	ud_build force KB_FORCE_MAKE=1
	expect_line "uptodate: KB_FORCE_MAKE=1: kbuild runs, saying so" "build: kbuild runs: KB_FORCE_MAKE=1" "@$T/ud-force.err"
	expect_match "uptodate: KB_FORCE_MAKE=1: kbuild's make" "^build: .*\(make -j" "@$T/ud-force.err"
	expect_match "uptodate: KB_FORCE_MAKE=1: nothing to compile" '^build: .* done in [0-9]+ s \(0 objects compiled' "@$T/ud-force.err"
	# Left up to date for the stages after this one.
	ud_build last
	ud_fast last
	expect_eq "uptodate: the image the same bytes as before (IMAGE_HASH)" "$ud_hash0" "$(bid_get "$ud_id" IMAGE_HASH 2>&1)"
fi
