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
#   5. a new IMAGE_HASH (a rebuilt image) drops the package keys;
#   6. bad codec knobs (PKG_DEB_CODEC, PKG_RPM_PAYLOAD, PKG_THREADS) fail
#      with one line naming the knob and write nothing;
#   7. packaged again (a copy of the identity file, scratch output) with
#      twice the CPUs as dpkg-deb threads: both formats made side by side,
#      each phase timed and each package sized, and the kernel packages
#      byte for byte the recorded ones; then asked for other compressors
#      (gzip), the copy's packages are made again with them, not skipped.
# 3-6 on copies of the identity file with a fake build dir in scratch (no
# kernel is built or packaged); 7 packages the real build again.
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

echo "- bad codec knobs: one line naming the knob, nothing written"
id_before=$(sha "$build")
mkdir -p "$T/pkgs-bad"
for knob in PKG_DEB_CODEC=lz4:1 PKG_DEB_CODEC=zstd:23 PKG_RPM_PAYLOAD=w9.bzdio PKG_RPM_PAYLOAD=w3T2.zstdio PKG_THREADS=0; do
	capture rc env "$knob" BUILD="$build" PKG_OUT="$T/pkgs-bad" PKG_STAGE="$T/stage-bad" "$packages_sh"
	expect_fails "packages.sh $knob" "^ERROR: package: $(re_quote "${knob%%=*}")='$(re_quote "${knob#*=}")': expected " "$rc" "$rc_out"
	expect_eq "packages.sh $knob: lines" 1 "$(grep -c . <<<"$rc_out")"
done
expect_eq "identity file after the bad knobs (sha256)" "$id_before" "$(sha "$build")"
expect_eq "packages made with bad knobs" "" "$(ls "$T/pkgs-bad")"

echo "- packaged again with twice the threads, both formats side by side: the same bytes"
# A copy of the identity file names the same build dir; the packages go to
# scratch and are recorded in the copy only.
cp "$build" "$T/threads.env"
threads=$(($(nproc) * 2))
capture rc env BUILD="$T/threads.env" PKG_OUT="$T/pkgs-threads" PKG_STAGE="$T/stage-threads" \
	PKG_THREADS="$threads" PKG_MMBATCHD=0 "$packages_sh"
expect_ok "packages.sh PKG_THREADS=$threads" "$rc" "$rc_out"
expect_match "packages.sh PKG_THREADS=$threads: both formats at once" \
	'^package: DEBs \(.*\) and RPMs \(.*\) side by side in [0-9]+ s \(DEBs in [0-9]+ s, RPMs in [0-9]+ s; '"$threads"' threads' "$rc_out"
expect_match "packages.sh PKG_THREADS=$threads: the staged size" '^package: staged in [0-9]+ s: [0-9.]+ MB in ' "$rc_out"
for k in IMAGE_DEB HEADERS_DEB KERNEL_RPM DEVEL_RPM; do
	f=$(pk_get "$T/threads.env" "$k")
	expect_match "packages.sh PKG_THREADS=$threads: the size of $k" "^package:   $(re_quote "$(basename "$f")"): [0-9.]+ MB\$" "$rc_out"
	expect_eq "$k made with $threads threads = the recorded one (sha256)" "$(sha "$(pk_get "$build" "$k")")" "$(sha "$f")"
done

echo "- the same copy asked for other compressors: made again with them, not skipped"
other_deb=gzip:9 other_rpm=w9.gzdio
[ "$(. "$TOP/tools/pkg/lib.sh" && pkg_codecs_wanted)" != "gzip $other_rpm" ] || other_deb=xz:0 other_rpm=w0.xzdio
capture rc env BUILD="$T/threads.env" PKG_OUT="$T/pkgs-threads" PKG_STAGE="$T/stage-threads" \
	PKG_DEB_CODEC=$other_deb PKG_RPM_PAYLOAD=$other_rpm PKG_MMBATCHD=0 "$packages_sh"
expect_ok "packages.sh PKG_DEB_CODEC=$other_deb PKG_RPM_PAYLOAD=$other_rpm" "$rc" "$rc_out"
expect_no_match "packages.sh with other compressors" ': skipped, ' "$rc_out"
expect_match "packages.sh with other compressors: why" \
	"^package: .*: made with compressors '[a-z]+ w[0-9T]+\.[a-z]+dio', the knobs ask for '${other_deb%%:*} $other_rpm'" "$rc_out"
expect_eq "compressors of the packages made again" "${other_deb%%:*} $other_rpm" \
	"$(. "$TOP/tools/pkg/lib.sh" && pkg_codecs_of "$(pk_get "$T/threads.env" IMAGE_DEB)" "$(pk_get "$T/threads.env" KERNEL_RPM)")"
expect_eq "identity file after packaging a copy (sha256)" "$id_before" "$(sha "$build")"
rm -rf "$T/pkgs-threads" "$T/stage-threads"

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
