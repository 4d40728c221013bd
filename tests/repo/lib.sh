# shellcheck shell=bash disable=SC2034
# Shared setup for the repository tests (tests/repo/*_test.sh). Sourced.
# Gives the assertions of tests/packages/lib.sh (t_eq, t_match, t_done...),
# throwaway keys, and the package lists the tests publish.
# Reads: TOP, OUT, PKG_OUT (default $OUT/packages).

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# The tests name their kernels themselves (6.12 guest, and the next series):
# knobs from the caller's environment would build something else.
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs PKG_BUILD_DIR
OUT=${OUT:-$TOP/out}
PKG_OUT=${PKG_OUT:-$OUT/packages}
export TOP OUT
umask 022
# shellcheck source=../packages/lib.sh
. "$TOP/tests/packages/lib.sh"
MKREPO=$TOP/tools/repo/mkrepo.sh

# Agents of the throwaway gpg homes, stopped by rt_cleanup_keys.
RT_HOMES=()
rt_cleanup_keys() {
	local h
	for h in ${RT_HOMES[@]+"${RT_HOMES[@]}"}; do
		GNUPGHOME=$h gpgconf --kill gpg-agent >/dev/null 2>&1 || true
	done
}

# rt_work NAME: a scratch dir $work under OUT (not /tmp: the chroot is
# bind-mounted below it) with the chroot path $root, both removed on exit
# after the chroot's mounts and the tests' gpg agents are gone.
rt_work() {
	mkdir -p "$OUT/tmp"
	work=$(mktemp -d "$OUT/tmp/$1.XXXXXX")
	root=$work/root
	trap rt_cleanup_work EXIT
}

rt_cleanup_work() {
	rt_cleanup_keys
	"$TOP/tools/pkg/mkchroot.sh" umount "$root"
	rm -rf --one-file-system "$work"
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

# rt_release BASE FLAVOR [VAR=VALUE...]: the kernel release those knobs build.
rt_release() {
	local base=$1 flavor=$2
	shift 2
	env "$@" BASE="$base" FLAVOR="$flavor" bash -c '. "$TOP/tools/kbuild/lib.sh"; kb_init >/dev/null; echo "$KB_RELEASE"'
}

# rt_manifest_paths MANIFEST KEY...: the paths of those keys, one a line;
# fails naming the key that is missing.
rt_manifest_paths() {
	local m=$1 k v
	shift
	[ -r "$m" ] || { echo "ERROR: no manifest $m: run 'make packages'" >&2; return 1; }
	for k in "$@"; do
		v=$(sed -n "s/^$k=//p" "$m")
		[ -n "$v" ] && [ -f "$v" ] || { echo "ERROR: $m: no $k package" >&2; return 1; }
		echo "$v"
	done
}

# rt_v1_packages: every package of the current 6.12 guest build (kernel
# manifest: image, headers, meta, RPMs) and the mmbatchd DEB and RPM.
rt_v1_packages() {
	local rel
	rel=$(rt_release 6.12 guest) || return 1
	rt_manifest_paths "$PKG_OUT/kernel-$rel.paths" IMAGE_DEB HEADERS_DEB META_DEB KERNEL_RPM DEVEL_RPM &&
		rt_manifest_paths "$PKG_OUT/mmbatchd.paths" MMBATCHD_DEB MMBATCHD_RPM
}

# rt_run VAR CMD...: CMD's exit status into VAR, its output (stdout+stderr)
# into VAR_out; never fails.
rt_run() {
	local __var=$1 __rc=0 __out
	shift
	__out=$("$@" 2>&1) || __rc=$?
	printf -v "$__var" '%s' "$__rc"
	printf -v "${__var}_out" '%s' "$__out"
}

# t_fails WHAT RC OUTPUT REGEX: RC is non-zero and OUTPUT has a line
# matching REGEX (the failure is the expected one, not any failure); shows
# that line.
t_fails() {
	local hit
	if [ "$2" -eq 0 ]; then
		t_fail "$1: expected a failure, it exited 0; output: $(printf '%s\n' "$3" | tail -n 3 | tr '\n' ' ')"
		return
	fi
	hit=$(printf '%s\n' "$3" | grep -E -m 1 -- "$4" || true)
	if [ -n "$hit" ]; then
		t_pass "$1: exit $2, as expected: $hit"
	else
		t_fail "$1: exit $2, but no line matches /$4/: $(printf '%s\n' "$3" | tail -n 3 | tr '\n' ' ')"
	fi
}

# t_ok WHAT RC OUTPUT: RC is zero (else show the output's tail).
t_ok() {
	if [ "$2" -eq 0 ]; then
		t_pass "$1: exit 0"
	else
		t_fail "$1: expected exit 0, got $2; output: $(printf '%s\n' "$3" | tail -n 5 | tr '\n' ' ')"
	fi
}

# t_same WHAT EXPECTED ACTUAL: multi-line values equal; on failure the diff.
t_same() {
	if [ "$2" = "$3" ]; then
		t_pass "$1: identical ($(printf '%s\n' "$3" | grep -c .) lines)"
	else
		t_fail "$1: differs (- expected, + actual):"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed -n 's/^[<>]/    &/p' | sed 's/^    </    -/; s/^    >/    +/' | head -n 20
	fi
}
