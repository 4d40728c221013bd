# shellcheck shell=bash disable=SC2034
# Shared setup of the repository tests (tests/repo/*_test.sh). Sourced.
# The assertions are tests/lib/assert.sh's; this file adds throwaway keys,
# the scratch dir with its chroot, and the packages a build's identity file
# (tools/kbuild/identity.sh) records.
#   rt_work                scratch dir $T (= $work) with the chroot path $root;
#                          at exit the chroot's mounts and the tests' gpg
#                          agents go first, then the dir
#   in_root CMD...         CMD in the chroot $root with a clean environment
#                          (root's PATH, LC_ALL=C, apt non-interactive)
#   rt_make_key DIR NAME   a throwaway signing key (see below)
#   rt_packages BUILD KEY...  the package files BUILD records under the KEYs,
#                          one a line; fails naming the file and the key
#   rt_http_serve          after rt_work: an http server on a free port of
#                          127.0.0.1 serving $work/served (stopped at exit);
#                          sets rt_url
#   rt_serve_copy REPO     $work/served becomes a fresh copy of REPO (each
#                          tampering starts from the signed original)
#   rt_next_series BUILD   build (once) and package the next series version
#                          of BUILD's 6.12 guest kernel; its identity file
#                          is $rt_next_id (set when this file is sourced)
# Reads: TOP, OUT.

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# The tests name their kernels themselves (the 6.12 guest by its identity
# file, and the next series): knobs from the caller's environment would
# build something else.
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs
OUT=${OUT:-$TOP/out}
export TOP OUT
umask 022
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
# shellcheck source=../../tools/kbuild/identity.sh
. "$TOP/tools/kbuild/identity.sh"
MKREPO=$TOP/tools/repo/mkrepo.sh

# Agents of the throwaway gpg homes, stopped at exit.
RT_HOMES=()
rt_cleanup_keys() {
	local h
	for h in ${RT_HOMES[@]+"${RT_HOMES[@]}"}; do
		GNUPGHOME=$h gpgconf --kill gpg-agent >/dev/null 2>&1 || true
	done
}
cleanup_hook=rt_cleanup_keys

rt_work() {
	scratch
	work=$T
	root=$work/root
	cleanup_hook=rt_cleanup_work
}

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C DEBIAN_FRONTEND=noninteractive "$@"; }

rt_cleanup_work() {
	[ -z "${rt_http_pid:-}" ] || kill "$rt_http_pid" 2>/dev/null || true
	rt_cleanup_keys
	"$TOP/tools/pkg/mkchroot.sh" umount "$root"
	rm -rf --one-file-system "$T"
	T=
}

# rt_make_key DIR NAME: a throwaway signing key in DIR/gnupg; its secret
# part exported to DIR/key.asc (the REPO_KEY=FILE form), its public part to
# DIR/pub.gpg. Prints nothing.
rt_make_key() {
	local dir=$1 name=$2
	mkdir -p "$dir/gnupg"
	chmod 0700 "$dir/gnupg"
	RT_HOMES+=("$dir/gnupg")
	GNUPGHOME=$dir/gnupg gpg --batch --quiet --passphrase '' \
		--quick-generate-key "$name <test@mmbatch.example.org>" rsa3072 sign 1d
	GNUPGHOME=$dir/gnupg gpg --batch --quiet --armor --export-secret-keys >"$dir/key.asc"
	GNUPGHOME=$dir/gnupg gpg --batch --quiet --export >"$dir/pub.gpg"
}

rt_packages() {
	local build=$1 k v
	shift
	for k in "$@"; do
		v=$(bid_get "$build" "$k") || return 1
		[ -f "$v" ] || { echo "ERROR: build identity $build: $k $v: no such file" >&2; return 1; }
		echo "$v"
	done
}

# rt_next_series BUILD: the next series version (a copy of patches/ with
# VERSION + 1, through the pipeline knobs PATCHES_ROOT and KB_BUILD_DIR,
# ccache: the kbuild stage scripts, then tools/pkg/packages.sh with that
# build's identity file, the kernel's packages only). The build dir is
# REPO_TEST_NEXT_BUILD (default $OUT/build/6.12-guest-reponext: the same
# depth as the pipeline's, so ccache's relative paths hit), its packages go
# to REPO_TEST_NEXT_OUT (default $OUT/repo-test/packages). The output is
# the stage scripts'; run it in capture (a subshell): it sets nothing.
rt_next_build=${REPO_TEST_NEXT_BUILD:-$OUT/build/6.12-guest-reponext}
rt_next_id=$rt_next_build/mmbatch-build.env
rt_next_series() {
	local build=$1 patches series image
	local next_out=${REPO_TEST_NEXT_OUT:-$OUT/repo-test/packages}
	series=$(bid_get "$build" SERIES_VERSION) || return 1
	# Built already (by the other test of this run): package it only, which
	# packages.sh skips when the packages are newer than their inputs.
	image=$(bid_get "$rt_next_id" IMAGE 2>/dev/null) || image=
	if [ -n "$image" ] && [ -f "$image" ] &&
		[ "$(bid_get "$rt_next_id" SERIES_VERSION 2>/dev/null)" = $((series + 1)) ] &&
		[ "$(bid_get "$rt_next_id" KVERSION 2>/dev/null)" = "$(bid_get "$build" KVERSION)" ]; then
		env BUILD="$rt_next_id" PKG_OUT="$next_out" PKG_MMBATCHD=0 "$TOP/tools/pkg/packages.sh"
		return
	fi
	patches=$(_scratch_dir patches-next)
	cp -a "$TOP/patches/." "$patches"
	# Same tree and config, another release: a new build dir seeded with
	# the build's (config.sh KB_SEED_FROM) lets kbuild rebuild only what the
	# release reaches (utsrelease.h, vermagic, the link) instead of every
	# object through ccache (measured: docs/results/2026-12-03-check-budget.md).
	local from
	from=$(bid_get "$build" BUILD_DIR) || return 1
	echo $((series + 1)) >"$patches/6.12/VERSION"
	env PATCHES_ROOT="$patches" KB_BUILD_DIR="$rt_next_build" KB_SEED_FROM="$from" BASE=6.12 FLAVOR=guest \
		bash -c 'for s in source series config build; do "$0/$s.sh" >/dev/null || exit; done' "$TOP/tools/kbuild" &&
		env BUILD="$rt_next_id" PKG_OUT="$next_out" PKG_MMBATCHD=0 "$TOP/tools/pkg/packages.sh" || { rm -rf "$patches"; return 1; }
	rm -rf "$patches"
}

# dnf reads file:// URLs on the machine it runs on, not in an install root
# or chroot: the tests' RPM hosts fetch our repository over http.
rt_http_serve() {
	local port
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	rt_url=http://127.0.0.1:$port
	/usr/bin/python3 -m http.server --bind 127.0.0.1 --directory "$work/served" "$port" >"$work/http.log" 2>&1 &
	rt_http_pid=$!
}

rt_serve_copy() {
	rm -rf "$work/served"
	cp -a "$1" "$work/served"
}
