# shellcheck shell=bash
# The three kernels a canary cycle boots, read from their build identity
# files (tools/kbuild/identity.sh, sourced first) before anything is built
# or booted; shared by tests/canary/vm_run.sh and tests/rollout/vm_run.sh.
#   canary_kernels LABEL GOOD_VAR BAD_VAR NEW_VAR
# takes the names of the variables that hold the identity files: GOOD is
# installed and booted first (its MMBATCHD_DEB and IMAGE too), BAD must be
# the build with the fault patch (EXTRA_PATCHES_HASH), NEW a good kernel.
# Sets good, good_deb, bad, bad_deb, new, new_deb, ddeb (GOOD's mmbatchd
# package) and probe (GOOD's image, to probe KVM with). A variable that is
# not set, a missing key or a missing package ends the caller with one
# line (bid_die) naming LABEL.
# shellcheck disable=SC2034 # the variables are the caller's
canary_kernels() {
	local label=$1 v d
	for v in "$2" "$3" "$4"; do
		[ -n "${!v:-}" ] || bid_die "$label: $v is not set: name the kernel by its identity file ($v=out/build/<name>/mmbatch-build.env)"
	done
	good=$(bid_get "${!2}" KERNELRELEASE)
	good_deb=$(bid_get "${!2}" IMAGE_DEB)
	bad=$(bid_get "${!3}" KERNELRELEASE)
	bad_deb=$(bid_get "${!3}" IMAGE_DEB)
	new=$(bid_get "${!4}" KERNELRELEASE)
	new_deb=$(bid_get "${!4}" IMAGE_DEB)
	ddeb=$(bid_get "${!2}" MMBATCHD_DEB)
	probe=$(bid_get "${!2}" IMAGE)
	[ -n "$(bid_get "${!3}" EXTRA_PATCHES_HASH 2>/dev/null || true)" ] ||
		bid_die "$label: ${!3}: EXTRA_PATCHES_HASH is not set: BAD must be the build with the fault patch"
	for d in "$good_deb" "$bad_deb" "$new_deb" "$ddeb"; do
		[ -f "$d" ] || bid_die "$label: a package an identity file names does not exist: $d"
	done
}
