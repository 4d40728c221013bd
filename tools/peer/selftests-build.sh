#!/bin/bash
# Builds the kernel's own mm selftests from a build's source tree, statically
# (the quick-path guest is a busybox initramfs without a C library), and
# stages the build's test modules, for tools/peer/selftests-initramfs.sh.
#   selftests-build.sh BUILD_IDENTITY
# BUILD_IDENTITY: a build's mmbatch-build.env (tools/kbuild/identity.sh); its
# TREE is the source (6.1 keeps the tests in tools/testing/selftests/vm/,
# 6.12 in .../mm/), its BUILD_DIR the modules (test_hmm.ko,
# memory-notifier-error-inject.ko, installed with kbuild's modules_install,
# which runs depmod). The tests are built with the kernel's own selftests
# Makefile (OUTPUT=, KHDR_INCLUDES= the tree's `make headers`,
# EXTRA_CFLAGS=-static) against libnuma-dev's and libcap-dev's static
# archives. Cached by the tree and this script; prints the staging directory
# (last line), which holds:
#   bin/        the test binaries and scripts of the tests in
#               tools/peer/selftests-<base>.list (a test that did not build is
#               missing: the guest runner reports it as a failure)
#   build.log   the selftests build's output; built.txt, failed.txt
#   modules/<release>/lib/modules/<release>/...   the build's modules
# A selftest source fix we carry (tools/peer/selftests-fixes/<base>/*.patch,
# each saying why) is applied to a copy of the selftests directory, never to
# the tree. A list entry ./TEST@NAME is a variant: TEST built again with
# tools/peer/selftests-variants/<base>/TEST@NAME.patch (a later upstream
# version of the test, run beside the tree's own).
# Reads: OUT (default out/ of this repo).
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
die() { echo "ERROR: selftests-build: $*" >&2; exit 1; }
[ $# -eq 1 ] || { echo "usage: selftests-build.sh BUILD_IDENTITY" >&2; exit 2; }
build=$1
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
bid_check "$build"
base=$(bid_get "$build" BASE) tree=$(bid_get "$build" TREE) tree_hash=$(bid_get "$build" TREE_HASH)
bdir=$(bid_get "$build" BUILD_DIR) krel=$(bid_get "$build" KERNELRELEASE)
list=$here/selftests-$base.list
[ -f "$list" ] || die "no test list for base $base ($list)"
for d in mm vm; do
	src=$tree/tools/testing/selftests/$d
	[ -f "$src/migration.c" ] && break
done
[ -f "$src/migration.c" ] || die "$tree: no mm selftests (tools/testing/selftests/mm or vm)"
for lib in libnuma.a libcap.a; do
	[ -f "/usr/lib/x86_64-linux-gnu/$lib" ] || die "no static $lib (make deps-vm installs libnuma-dev, libcap-dev)"
done
[ -x /bin/bash-static ] || die "no /bin/bash-static (make deps-vm installs bash-static): test_hmm.sh and mem-on-off-test.sh need bash"

fixes=()
for f in "$here/selftests-fixes/$base"/*.patch; do [ -f "$f" ] && fixes+=("$f"); done
variant_patches=()
for f in "$here/selftests-variants/$base"/*.patch; do [ -f "$f" ] && variant_patches+=("$f"); done
key=$( { echo "$tree_hash"; sha256sum "$0" "$list" ${fixes[@]+"${fixes[@]}"} ${variant_patches[@]+"${variant_patches[@]}"} | cut -c1-64; } | sha256sum | cut -c1-16)
# One stage per tree (the patched and the vanilla tree of a base each keep
# theirs: a run that boots both builds them once); a new key for the same
# tree (this script, the list or a fix changed) replaces that tree's stage.
tree_tag=$base-$(printf '%s' "$tree_hash" | sha256sum | cut -c1-8)
stage=$out/peer/selftests/$tree_tag-$key
# One builder per tree at a time: make check builds the quick guests'
# selftests ahead (check-prebuild) while a guest-lane stage may ask for them;
# the second waits here and then finds them built.
mkdir -p "$out/peer/selftests"
exec 9>"$out/peer/selftests/$tree_tag.lock"
flock 9
if [ ! -f "$stage/.done" ]; then
	rm -rf "$out/peer/selftests/$tree_tag"-*
	mkdir -p "$stage/bin"
	work=$stage/work
	mkdir -p "$work"
	# The kernel's UAPI headers, as the selftests Makefile expects them.
	make -s -C "$tree" O="$work/kbuild" headers > "$stage/build.log" 2>&1 ||
		{ tail -n 20 "$stage/build.log" >&2; die "make headers in $tree failed (log: $stage/build.log)"; }
	# A copy of the selftests (the tree stays pristine for the kernel build:
	# the Makefiles write local_config.* beside the sources), with our fixes
	# of the tests applied, in an overlay of the tree: every other entry a
	# symlink, so the tests' "../../../../mm/gup_test.h" and the Makefiles'
	# top_srcdir resolve as in the tree.
	ov=$work/src
	mkdir -p "$ov/tools/testing"
	for e in "$tree"/* "$tree"/tools/* "$tree"/tools/testing/*; do
		r=${e#"$tree/"}
		case $r in tools|tools/testing|tools/testing/selftests) continue ;; esac
		ln -s "$e" "$ov/$r"
	done
	cp -a "$tree/tools/testing/selftests" "$ov/tools/testing/selftests"
	rel=${src#"$tree/tools/testing/selftests/"}
	for f in ${fixes[@]+"${fixes[@]}"}; do
		patch -s -p1 -d "$ov/tools/testing/selftests" < "$f" >> "$stage/build.log" 2>&1 ||
			die "$f does not apply to $tree's selftests (log: $stage/build.log)"
		echo "selftests-build: applied ${f#"$top/"}" >> "$stage/build.log"
	done
	# What the list runs: every ./WORD of its commands, and FLAGS' needs=A+B
	# (binaries a script runs, e.g. test_hmm.sh runs hmm-tests).
	targets=$(awk '!/^[ \t]*(#|$)/ {
		for (i = 5; i <= NF; i++) if ($i ~ /^\.\//) { sub(/^\.\//, "", $i); print $i }
		n = split($4, fl, ",")
		for (j = 1; j <= n; j++) if (fl[j] ~ /^needs=/) { sub(/^needs=/, "", fl[j]); m = split(fl[j], nd, "+"); for (k = 1; k <= m; k++) print nd[k] }
	}' "$list" | sort -u)
	bins=() scripts=() variants=()
	for t in $targets; do
		case $t in *@*) variants+=("$t") ;; *.sh) scripts+=("$t") ;; *) bins+=("$t") ;; esac
	done
	# -k: one test that does not build must not hide the others.
	make -C "$ov/tools/testing/selftests/$rel" -k -j"$(nproc)" OUTPUT="$stage/bin" \
		KHDR_INCLUDES="-isystem $work/kbuild/usr/include" EXTRA_CFLAGS="-O2 -static" \
		"${bins[@]/#/$stage/bin/}" >> "$stage/build.log" 2>&1 || true
	for s in "${scripts[@]}"; do
		for d in "$ov/tools/testing/selftests/$rel" "$ov/tools/testing/selftests/memory-hotplug"; do
			[ -f "$d/$s" ] && { cp "$d/$s" "$stage/bin/$s"; break; }
		done
	done
	# Variants: TEST@NAME is TEST built once more with
	# tools/peer/selftests-variants/<base>/TEST@NAME.patch applied (e.g. a
	# later upstream version of a test, run beside the tree's own).
	for v in ${variants[@]+"${variants[@]}"}; do
		vp=$here/selftests-variants/$base/$v.patch
		[ -f "$vp" ] || die "$list runs ./$v but there is no $vp"
		vd=$work/variant-$v
		cp -a "$ov/tools/testing/selftests/$rel" "$vd"
		patch -s -p1 -d "$vd" < "$vp" >> "$stage/build.log" 2>&1 || die "$vp does not apply (log: $stage/build.log)"
		echo "selftests-build: variant $v: applied ${vp#"$top/"}" >> "$stage/build.log"
		# The copy sits where its Makefile expects its own directory.
		rm -rf "$ov/tools/testing/selftests/$rel.variant"
		mv "$vd" "$ov/tools/testing/selftests/$rel.variant"
		mkdir -p "$work/vout"
		if make -C "$ov/tools/testing/selftests/$rel.variant" -k OUTPUT="$work/vout" \
			KHDR_INCLUDES="-isystem $work/kbuild/usr/include" EXTRA_CFLAGS="-O2 -static" \
			"$work/vout/${v%@*}" >> "$stage/build.log" 2>&1; then
			cp "$work/vout/${v%@*}" "$stage/bin/$v"
		fi
		rm -rf "$ov/tools/testing/selftests/$rel.variant" "$work/vout"
	done
	: > "$stage/built.txt"; : > "$stage/failed.txt"
	for t in $targets; do
		if [ -f "$stage/bin/$t" ]; then echo "$t" >> "$stage/built.txt"; else echo "$t" >> "$stage/failed.txt"; fi
	done
	rm -rf "$work"
	touch "$stage/.done"
fi
[ ! -s "$stage/failed.txt" ] || echo "selftests-build: did not build (see $stage/build.log): $(tr '\n' ' ' < "$stage/failed.txt")" >&2

# The build's modules (test_hmm, memory-notifier-error-inject), per image.
image_hash=$(bid_get "$build" IMAGE_HASH)
mods=$stage/modules/$krel-${image_hash:0:12}
if [ ! -f "$mods/.done" ]; then
	rm -rf "$mods"
	mkdir -p "$mods"
	make -s -C "$tree" O="$bdir" INSTALL_MOD_PATH="$mods" INSTALL_MOD_STRIP=1 modules_install > "$mods.log" 2>&1 ||
		{ tail -n 20 "$mods.log" >&2; die "modules_install of $bdir failed (log: $mods.log)"; }
	touch "$mods/.done"
fi
echo "$stage"
