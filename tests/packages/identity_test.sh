#!/bin/bash
# shellcheck disable=SC2154 # rc_out is set by capture (printf -v)
# The build identity (tools/kbuild/identity.sh) as packaging keeps it
# (tools/pkg/packages.sh):
#   1. a packaged build's file names every package (files that exist),
#      PACKAGED_IMAGE_HASH = IMAGE_HASH, and the image DEB's vmlinuz is that
#      image byte for byte; no .paths manifests are left beside the packages;
#   2. packaging it again is skipped: the identity file and the packages stay
#      as they are;
#   3. packages.sh refuses a build whose image changed since it was
#      recorded, and one named by no (or a missing) identity file, each with
#      one line naming the file and the key;
#   4. a record of packages made from an older image is not handed out
#      (bid_get fails naming file and key), nor skipped: packaging starts by
#      removing it, so a failed run leaves no package keys;
#   5. a new IMAGE_HASH (a rebuilt image) drops the package keys.
# 3-5 on copies of the identity file with a fake build dir in scratch (no
# kernel is built or packaged).
#   identity_test.sh BUILD   (a packaged build's identity file)
# Reads: TOP, OUT.
set -eu

usage() { echo "usage: identity_test.sh out/build/<name>/mmbatch-build.env" >&2; exit 2; }
[ $# -eq 1 ] && [ -r "$1" ] || usage
build=$(realpath "$1")
. "$(dirname "$0")/lib.sh"
packages_sh=$TOP/tools/pkg/packages.sh
scratch
sha() { sha256sum <"$1" | cut -c1-64; }

echo "- the packaged build $build"
image_hash=$(pk_get "$build" IMAGE_HASH)
expect_eq "PACKAGED_IMAGE_HASH" "$image_hash" "$(pk_get "$build" PACKAGED_IMAGE_HASH)"
for k in IMAGE_DEB HEADERS_DEB KERNEL_RPM DEVEL_RPM MMBATCHD_DEB MMBATCHD_RPM; do
	expect_file "$k" "$(pk_get "$build" "$k")"
done
image_deb=$(pk_get "$build" IMAGE_DEB)
kver=$(pk_get "$build" KERNELRELEASE)
pkg_out=$(dirname "$image_deb")
expect_eq "vmlinuz in the image DEB is IMAGE (sha256)" "$image_hash" \
	"$(dpkg-deb --fsys-tarfile "$image_deb" | tar -xOf - "./boot/vmlinuz-$kver" | sha256sum | cut -c1-64)"
expect_eq "manifests beside the packages (the identity file records them)" "" \
	"$(cd "$pkg_out" && find . -maxdepth 1 -name '*.paths' | sort)"

echo "- packaging it again: skipped"
id_before=$(sha "$build")
dates_before=$(pk_get "$build" IMAGE_DEB | xargs stat -c '%Y %n'; pk_get "$build" MMBATCHD_DEB | xargs stat -c '%Y %n')
capture rc env BUILD="$build" PKG_OUT="$pkg_out" "$packages_sh"
expect_ok "packages.sh again" "$rc" "$rc_out"
expect_match "packages.sh again" "^package: $(re_quote "$kver"): skipped, " "$rc_out"
expect_match "packages.sh again, mmbatchd" '^package: mmbatchd: skipped, ' "$rc_out"
expect_line "packages.sh again prints the recorded image DEB" "$image_deb" "$rc_out"
expect_eq "identity file after the skipped run (sha256)" "$id_before" "$(sha "$build")"
expect_eq "package dates after the skipped run" "$dates_before" \
	"$(pk_get "$build" IMAGE_DEB | xargs stat -c '%Y %n'; pk_get "$build" MMBATCHD_DEB | xargs stat -c '%Y %n')"

echo "- refusals"
capture rc env -u BUILD "$packages_sh"
expect_fails "packages.sh without BUILD" '^ERROR: .*BUILD' "$rc" "$rc_out"
capture rc env BUILD="$T/none/mmbatch-build.env" "$packages_sh"
expect_fails "packages.sh, BUILD names no file" "^ERROR: build identity $(re_quote "$T")/none/mmbatch-build.env: no such file" "$rc" "$rc_out"

# A fake build: the real identity, copied, with its own build dir and image;
# packages recorded from an older image.
fake=$T/build
mkdir -p "$fake/include/config" "$fake/arch/x86/boot" "$T/pkgs"
echo "$kver" >"$fake/include/config/kernel.release"
image=$fake/arch/x86/boot/bzImage
echo "image one" >"$image"
id=$fake/mmbatch-build.env
cp "$build" "$id"
bid_update "$id" BUILD_DIR="$fake" IMAGE="$image" IMAGE_HASH="$(sha "$image")"
bid_update "$id" IMAGE_DEB="$image_deb" MMBATCHD_DEB="$(pk_get "$build" MMBATCHD_DEB)" \
	PACKAGED_IMAGE_HASH="$(echo "image zero" | sha256sum | cut -c1-64)"

echo "image two" >"$image"
capture rc env BUILD="$id" PKG_OUT="$T/pkgs" PKG_STAGE="$T/stage" "$packages_sh"
expect_fails "packages.sh, image changed since it was recorded" \
	"^ERROR: package: $(re_quote "$id"): IMAGE $(re_quote "$image") changed since the build recorded IMAGE_HASH" "$rc" "$rc_out"
expect_eq "packages made" "" "$(ls "$T/pkgs")"

echo "- a record of packages from an older image"
echo "image one" >"$image"
capture rc bid_get "$id" IMAGE_DEB
expect_fails "bid_get IMAGE_DEB recorded for an older image" \
	"^ERROR: build identity $(re_quote "$id"): IMAGE_DEB is of another image than IMAGE_HASH" "$rc" "$rc_out"
capture rc env BUILD="$id" PKG_OUT="$T/pkgs" PKG_STAGE="$T/stage" "$packages_sh"
expect_no_match "packages.sh on it" 'skipped' "$rc_out"
expect_match "packages.sh on it" "^package: $(re_quote "$kver") .*: not packaged from this image yet" "$rc_out"
# The fake build dir has no .config: staging it must fail.
expect_fails "packages.sh on a fake build dir" "^ERROR: package: no $(re_quote "$fake")/config-report.txt" "$rc" "$rc_out"
capture rc bid_get "$id" IMAGE_DEB
expect_fails "bid_get IMAGE_DEB after the failed run" "^ERROR: build identity $(re_quote "$id"): IMAGE_DEB is not set" "$rc" "$rc_out"
capture rc bid_get "$id" PACKAGED_IMAGE_HASH
expect_fails "bid_get PACKAGED_IMAGE_HASH after the failed run" \
	"^ERROR: build identity $(re_quote "$id"): PACKAGED_IMAGE_HASH is not set" "$rc" "$rc_out"
expect_eq "packages made" "" "$(ls "$T/pkgs")"

echo "- a rebuilt image drops the package keys"
cp "$build" "$T/rebuilt.env"
bid_update "$T/rebuilt.env" IMAGE_HASH="$(echo "a rebuilt image" | sha256sum | cut -c1-64)"
for k in IMAGE_DEB KERNEL_RPM MMBATCHD_DEB PACKAGED_IMAGE_HASH; do
	capture rc bid_get "$T/rebuilt.env" "$k"
	expect_fails "bid_get $k after a new IMAGE_HASH" "^ERROR: build identity $(re_quote "$T")/rebuilt.env: $k is not set" "$rc" "$rc_out"
done
expect_eq "KERNELRELEASE after a new IMAGE_HASH" "$kver" "$(pk_get "$T/rebuilt.env" KERNELRELEASE)"
