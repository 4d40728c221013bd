#!/bin/bash
# `make check-packages`: the packages of the guest builds, each named by its
# identity file (tools/kbuild/identity.sh) in PKG_TEST_BUILDS and packaged
# before (make guest-packages). Each test is a timed step:
#   lint              lintian + rpmlint on every package of every build
#   contents          contents_test.sh of each build (the first one also
#                     checks the mmbatchd packages)
#   contents_rejects  contents_test.sh must fail on a copy of the first
#                     build whose image DEB lacks its vmlinuz (the checks can
#                     fail)
#   rpm               rpm_test.sh of each build: scriptlets, payload = DEB's
#   chroot            chroot_test.sh: install/purge of every image DEB and
#                     the mmbatchd DEB in a Debian 12 chroot, with dracut;
#                     the debug builds' images too, installed beside the
#                     normal ones (all kernels installed at once)
#   chroot-trixie     the same packages and checks in a Debian 13 (trixie)
#                     chroot: dracut 106, systemd 257, merged /usr (the
#                     packages are built once, on Debian 12, for both)
#   mkchroot_cache    mkchroot.sh's cache with a stand-in mmdebstrap: the
#                     machine's, shared by clones, rebuilt past its age
#   debug             debug_test.sh of each debug build (PKG_TEST_DEBUG_BUILDS)
#                     against the normal build of its base: other names
#                     (+debug), disjoint file lists, rpm -i --test of both
#                     builds' RPMs together, lint of the +debug names
#   identity          identity_test.sh on the first build: what packaging
#                     records, skipping an unchanged build, refusing a changed
#                     image
# The subset selector ONLY (tests/lib/assert.sh) picks tests by these names
# (NAME or NAME_test), e.g. ONLY=packages/chroot (Debian 12 only;
# ONLY='packages/chroot*' both). Every selected test runs,
# also after a failure; run_summary (tests/lib/assert.sh) counts one result
# per test and adds up their checks.
# Reads: PKG_TEST_BUILDS (default: the guest builds of 6.12 and 6.1 at
# their fixed paths, out/build/<base>-guest/mmbatch-build.env),
# PKG_TEST_DEBUG_BUILDS (default: the debug guest build of 6.12,
# out/build/6.12-guest-debug/mmbatch-build.env; each needs the normal build
# of its base in PKG_TEST_BUILDS; "none": no debug build, the debug test
# skipped), TOP, OUT, ONLY, TEST_STAGE.
set -eu

usage() { echo "usage: PKG_TEST_BUILDS='out/build/<name>/mmbatch-build.env ...' run.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2034 # read by tests/lib/assert.sh (sourced through lib.sh)
TEST_NAME=${TEST_STAGE:-packages}
. "$here/lib.sh"

if [ -z "${PKG_TEST_BUILDS:-}" ]; then
	PKG_TEST_BUILDS="$OUT/build/6.12-guest/mmbatch-build.env $OUT/build/6.1-guest/mmbatch-build.env"
	echo "packages: PKG_TEST_BUILDS not set: the guest builds $PKG_TEST_BUILDS" >&2
fi
read -r -a builds <<<"$PKG_TEST_BUILDS"
for b in "${builds[@]}"; do
	(pk_get "$b" PACKAGED_IMAGE_HASH >/dev/null) || { echo "ERROR: packages: $b is not packaged: make guest-packages" >&2; exit 1; }
done
if [ -z "${PKG_TEST_DEBUG_BUILDS:-}" ]; then
	PKG_TEST_DEBUG_BUILDS=$OUT/build/6.12-guest-debug/mmbatch-build.env
	echo "packages: PKG_TEST_DEBUG_BUILDS not set: the debug guest build $PKG_TEST_DEBUG_BUILDS" >&2
fi
debug_builds=()
[ "$PKG_TEST_DEBUG_BUILDS" = none ] || read -r -a debug_builds <<<"$PKG_TEST_DEBUG_BUILDS"
for b in ${debug_builds[@]+"${debug_builds[@]}"}; do
	(pk_get "$b" PACKAGED_IMAGE_HASH >/dev/null) || { echo "ERROR: packages: $b is not packaged: make debug-packages-<base>" >&2; exit 1; }
done

# normal_of DEBUG_BUILD: the build of PKG_TEST_BUILDS of the same base.
normal_of() {
	local b base
	base=$(pk_get "$1" BASE) || return 1
	for b in "${builds[@]}"; do
		[ "$(pk_get "$b" BASE)" != "$base" ] || [ "$(pk_get "$b" FLAVOR)" != "$(pk_get "$1" FLAVOR)" ] || { echo "$b"; return 0; }
	done
	echo "ERROR: packages: no build of base $base in PKG_TEST_BUILDS for $1" >&2
	return 1
}

# debug_all: debug_test.sh of each debug build against its base's build.
debug_all() {
	local b n rc=0
	if [ ${#debug_builds[@]} -eq 0 ]; then skip "debug" "PKG_TEST_DEBUG_BUILDS=none"; return 0; fi
	for b in "${debug_builds[@]}"; do
		n=$(normal_of "$b") || { rc=1; continue; }
		"$here/debug_test.sh" "$n" "$b" || rc=1
	done
	return $rc
}

# contents_rejects BUILD: contents_test.sh on a copy of BUILD whose image
# DEB has no vmlinuz must fail on that.
contents_rejects() {
	# Not "rc": step's own local of that name would see contents_test's status.
	local image copy crc crc_out
	scratch
	image=$(pk_get "$1" IMAGE_DEB)
	dpkg-deb -R "$image" "$T/pkg"
	rm -f "$T/pkg/boot/vmlinuz-"*
	mkdir "$T/out"
	# Repacked with the packaging's default codec (PKG_DEB_CODEC, xz:1), so
	# the missing vmlinuz is the copy's only fault.
	dpkg-deb --root-owner-group -Zxz -z1 -b "$T/pkg" "$T/out/$(basename "$image")" >/dev/null
	copy=$T/mmbatch-build.env
	cp "$1" "$copy"
	bid_update "$copy" IMAGE_DEB="$T/out/$(basename "$image")"
	# shellcheck disable=SC2154 # test_failures is set by tests/lib/assert.sh (sourced through lib.sh)
	local failures=$test_failures
	capture crc "$here/contents_test.sh" "$copy"
	# Shown indented: the broken copy's own summary is not this stage's.
	grep -E '^  FAIL|: [0-9]+ passed' <<<"$crc_out" | sed 's/^/    /' || true
	expect_fails "contents_test on an image DEB without vmlinuz" "^  FAIL: image DEB: expected line '/boot/vmlinuz-" \
		"$crc" "$crc_out"
	rm -rf "$T"
	T=
	[ "$test_failures" -eq "$failures" ]
}

# each CMD ARG...: CMD once per build (CMD ARG... BUILD); fails when one did.
each() {
	local b rc=0
	for b in "${builds[@]}"; do "$@" "$b" || rc=1; done
	return $rc
}

# contents_all: every build's contents, the first one's mmbatchd packages too.
contents_all() {
	local b rc=0
	"$here/contents_test.sh" --mmbatchd "${builds[0]}" || rc=1
	for b in "${builds[@]:1}"; do "$here/contents_test.sh" "$b" || rc=1; done
	return $rc
}

mapfile -t pkgs < <(for b in "${builds[@]}"; do pk_packages "$b"; done | sort -u)
run_test lint "$TOP/tools/pkg/lint.sh" "${pkgs[@]}"
run_test contents contents_all
run_test contents_rejects contents_rejects "${builds[0]}"
run_test rpm each "$here/rpm_test.sh"
run_test chroot "$here/chroot_test.sh" "${builds[@]}" ${debug_builds[@]+"${debug_builds[@]}"}
run_test mkchroot_cache "$here/mkchroot_cache_test.sh"
run_test chroot-trixie "$here/chroot_test.sh" --suite trixie "${builds[@]}" ${debug_builds[@]+"${debug_builds[@]}"}
run_test identity "$here/identity_test.sh" "${builds[0]}"
run_test debug debug_all
run_summary packages
