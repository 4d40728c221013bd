# shellcheck shell=bash disable=SC2034
# Shared setup of the repository tests (tests/repo/*_test.sh). Sourced.
# The assertions are tests/lib/assert.sh's; this file adds throwaway keys,
# the scratch dir with its chroot, and the packages a build's identity file
# (tools/kbuild/identity.sh) records.
#   rt_work                scratch dir $T (= $work) with the chroot path $root;
#                          at exit the chroot's mounts and the tests' gpg
#                          agents go first, then the dir
#   rt_make_key DIR NAME   a throwaway signing key (see below)
#   rt_packages BUILD KEY...  the package files BUILD records under the KEYs,
#                          one a line; fails naming the file and the key
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

rt_cleanup_work() {
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
