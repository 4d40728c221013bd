#!/bin/bash
# check-vm's resolution step (tests/vm/run.sh --resolve, which runs
# tests/vm/guest.sh --resolve for every selected path) on scratch copies of
# a real identity file: a key the full path needs and the copy lacks fails
# the stage with one line naming the copy and the key, and nothing else is
# booted in its place. (Before the identity files, check-vm booted Debian's
# stock kernel .deb when our kernel package was missing and listed that as
# NOT-LIVE: the "no IMAGE_DEB" case below exited 0.) Boots nothing.
#   VM_BUILDS='FILE ...' resolve_test.sh   (the first FILE is copied; it
#                                          must be packaged)
# Reads: VM_BUILDS, OUT.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
read -r orig _ <<< "${VM_BUILDS:-}"
[ -n "${orig:-}" ] || { echo "ERROR: resolve_test: VM_BUILDS names no identity file to copy" >&2; exit 2; }
scratch
r=0 r_out=

# resolve VAR [ENV...]: check-vm's resolution step, every path selected.
resolve() {
	local var=$1
	shift
	capture "$var" env -u ONLY -u BUILD -u VM_DEBUG_BUILDS VM_KERNEL=built TEST_STAGE=vm "$@" "$TOP/tests/vm/run.sh" --resolve
}
# copy_without NAME KEY...: a copy of the identity file lacking KEYs.
copy_without() {
	local f=$T/$1 k
	shift
	cp "$orig" "$f"
	for k in "$@"; do sed -i "/^$k=/d" "$f"; done
	echo "$f"
}

# Control: the complete identity resolves, and names its packages.
full=$(copy_without complete.env)
resolve r VM_BUILDS="$full"
expect_ok "resolution of a complete copy of $orig" "$r" "$r_out"
expect_match "the full path installs the IMAGE_DEB the file names" "^full-[0-9.]+: IMAGE_DEB=$(re_quote "$(sed -n 's/^IMAGE_DEB=//p' "$orig")")\$" "$r_out"

# The removed fallback: no IMAGE_DEB is a failure, in one line, no stock kernel.
nodeb=$(copy_without no-image-deb.env IMAGE_DEB)
resolve r VM_BUILDS="$nodeb"
expect_fails "resolution without IMAGE_DEB" "^ERROR: build identity $(re_quote "$nodeb"): IMAGE_DEB is not set" "$r" "$r_out"
expect_eq "ERROR lines printed by that failure" 1 "$(printf '%s\n' "$r_out" | grep -c '^ERROR')"
expect_lacks "that failure boots or fetches no stock kernel" "stock" "$r_out"
# The quick path boots the image alone: no package needed.
resolve r VM_BUILDS="$nodeb" ONLY='vm/quick-*'
expect_ok "resolution without IMAGE_DEB, quick paths only (ONLY='vm/quick-*')" "$r" "$r_out"

nod=$(copy_without no-mmbatchd-deb.env MMBATCHD_DEB)
resolve r VM_BUILDS="$nod"
expect_fails "resolution without MMBATCHD_DEB" "^ERROR: build identity $(re_quote "$nod"): MMBATCHD_DEB is not set" "$r" "$r_out"

gone=$(copy_without gone-deb.env IMAGE_DEB)
echo "IMAGE_DEB=$T/no-such-linux-image.deb" >> "$gone"
resolve r VM_BUILDS="$gone"
expect_fails "resolution with IMAGE_DEB naming a missing file" "^ERROR: build identity $(re_quote "$gone"): IMAGE_DEB $(re_quote "$T")/no-such-linux-image.deb does not exist" "$r" "$r_out"

resolve r VM_BUILDS="$T/none.env"
expect_fails "resolution of a missing identity file" "^ERROR: build identity $(re_quote "$T")/none.env: no such file" "$r" "$r_out"
resolve r VM_BUILDS=
expect_fails "resolution without VM_BUILDS" "^ERROR: check-vm: no builds: VM_BUILDS=" "$r" "$r_out"
# A debug build (VM_DEBUG_BUILDS) is resolved like the others: its quick
# path needs no package, a missing identity fails.
resolve r VM_BUILDS="$full" VM_DEBUG_BUILDS="$nodeb"
expect_ok "resolution of a debug build without IMAGE_DEB (its path boots the image alone)" "$r" "$r_out"
expect_match "the debug path is named debug-<base>" "^debug-[0-9.]+: KERNELRELEASE=" "$r_out"
resolve r VM_BUILDS="$full" VM_DEBUG_BUILDS="$T/none-debug.env"
expect_fails "resolution of a missing debug identity file" "^ERROR: build identity $(re_quote "$T")/none-debug\.env: no such file" "$r" "$r_out"
capture r env -u ONLY -u VM_DEBUG_BUILDS VM_BUILDS="$full" VM_KERNEL=debian TEST_STAGE=vm "$TOP/tests/vm/run.sh" --resolve
expect_fails "resolution with an unknown VM_KERNEL" "^ERROR: VM_KERNEL='debian': expected built" "$r" "$r_out"
test_summary
