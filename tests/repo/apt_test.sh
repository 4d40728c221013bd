#!/bin/bash
# shellcheck disable=SC2154  # rc and rc_out are set by capture (printf -v)
# The apt side of tools/repo/mkrepo.sh, end to end in the cached Debian 12
# chroot (tools/pkg/mkchroot.sh), with a throwaway key:
#   1. publish the current 6.12 guest packages; in the chroot install the
#      exported key and the generated mmbatch.sources (Signed-By:) as they
#      are, the repo copied to the file:// path they name; the Debian mirror
#      is removed, so only our repo is there;
#   2. `apt-get update` must FAIL for: a tampered InRelease, a tampered
#      Release with only Release.gpg, a Packages file that does not match the
#      signed Release, and a repo signed by another key; it must pass for the
#      untouched repo;
#   3. `apt-get install` the kernel meta-package and mmbatchd: the image
#      package is installed and dracut made /boot/initrd.img-<kver>;
#   4. build the next series version (a copy of patches/ with VERSION + 1,
#      through the pipeline knobs PATCHES_ROOT and KB_BUILD_DIR, ccache: the
#      kbuild stage scripts, then tools/pkg/packages.sh with that build's
#      identity file), publish it into the same repo; `apt-get upgrade` keeps the meta-package
#      back (it needs a new package), `apt-get full-upgrade` installs the new
#      image next to the old one, with its initrd.
#   BUILD=FILE apt_test.sh   (FILE: the packaged 6.12 guest build's identity)
# Reads: TOP, OUT, BUILD, REPO_TEST_NEXT_BUILD and REPO_TEST_NEXT_OUT
# (where the next series is built and packaged: lib.sh rt_next_series).
# Needs root.
set -eu

usage() { echo "usage: BUILD=out/build/6.12-guest/mmbatch-build.env apt_test.sh" >&2; exit 2; }
[ $# -eq 0 ] && [ -n "${BUILD:-}" ] || usage
. "$(dirname "$0")/lib.sh"
mkchroot=$TOP/tools/pkg/mkchroot.sh

rt_work
repo=$work/repo
chroot_repo=/srv/mmbatch-repo

v1=$(rt_packages "$BUILD" IMAGE_DEB HEADERS_DEB META_DEB KERNEL_RPM DEVEL_RPM MMBATCHD_DEB MMBATCHD_RPM) ||
	{ echo "ERROR: apt_test: the 6.12 guest packages are incomplete (see above)" >&2; exit 1; }
mapfile -t v1 <<<"$v1"
meta_deb=$(rt_packages "$BUILD" META_DEB)
mmbatchd_deb=$(rt_packages "$BUILD" MMBATCHD_DEB)
kver1=$(bid_get "$BUILD" KERNELRELEASE)
meta=$(dpkg-deb -f "$meta_deb" Package)
echo "$TEST_NAME: kernel $kver1, meta-package $meta"

rt_make_key "$work/key" "mmbatch apt test key"
rt_make_key "$work/other" "some other key"
publish() {
	capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" REPO_URL="file://$chroot_repo" "$MKREPO" "$@"
	expect_ok "mkrepo, $# packages" "$rc" "$rc_out"
}
publish "${v1[@]}"

t0=$SECONDS
"$mkchroot" unpack "$root"
"$mkchroot" mount "$root"
echo "$TEST_NAME: chroot unpacked and mounted in $((SECONDS - t0)) s"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"
# Only our repo: no mirror to fall back on, nothing fetched from outside.
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
install -D -m 0644 "$repo/mmbatch-archive-keyring.gpg" "$root/etc/apt/keyrings/mmbatch-archive-keyring.gpg"
install -m 0644 "$repo/mmbatch.sources" "$root/etc/apt/sources.list.d/mmbatch.sources"
expect_line "mmbatch.sources" "Signed-By: /etc/apt/keyrings/mmbatch-archive-keyring.gpg" "$(cat "$repo/mmbatch.sources")"

# to_chroot: the repo as published, into the chroot (fresh copy, so each
# tampering starts from the signed original).
to_chroot() {
	rm -rf "$root$chroot_repo"
	cp -a "$repo" "$root$chroot_repo"
}
# apt_update: `apt-get update` from empty lists; status in rc, output in rc_out.
apt_update() {
	rm -rf "$root/var/lib/apt/lists"
	mkdir -p "$root/var/lib/apt/lists/partial"
	capture rc in_root apt-get update
}
dist=$root$chroot_repo/deb/dists/bookworm

echo "- apt-get update rejects what the key did not sign"
to_chroot
sed -i 's/^Label: mmbatch$/Label: mmbatch-tampered/' "$dist/InRelease"
expect_match "tampered InRelease differs from the signed one" 'mmbatch-tampered' "$(grep '^Label:' "$dist/InRelease")"
apt_update
expect_fails "apt-get update, tampered InRelease" 'BADSIG' "$rc" "$rc_out"

to_chroot
rm "$dist/InRelease"
sed -i 's/^Label: mmbatch$/Label: mmbatch-tampered/' "$dist/Release"
apt_update
expect_fails "apt-get update, tampered Release (Release.gpg only)" 'BADSIG' "$rc" "$rc_out"

to_chroot
printf '\nPackage: injected\nVersion: 1\nArchitecture: amd64\nFilename: pool/main/injected_1_amd64.deb\nSize: 1\nDescription: x\n' \
	>>"$dist/main/binary-amd64/Packages"
gzip -9nc "$dist/main/binary-amd64/Packages" >"$dist/main/binary-amd64/Packages.gz"
apt_update
expect_fails "apt-get update, Packages not matching the signed Release" 'Hash Sum mismatch' "$rc" "$rc_out"

to_chroot
GNUPGHOME=$work/other/gnupg gpg --batch --yes --quiet --clearsign -o "$dist/InRelease" "$dist/Release"
GNUPGHOME=$work/other/gnupg gpg --batch --yes --quiet --armor --detach-sign -o "$dist/Release.gpg" "$dist/Release"
apt_update
expect_fails "apt-get update, repo signed by another key" 'NO_PUBKEY' "$rc" "$rc_out"

echo "- the signed repo: update, install the meta-package and mmbatchd"
to_chroot
apt_update
expect_ok "apt-get update, untouched repo" "$rc" "$rc_out"
expect_no_match "apt-get update output" '^(W|E|Err):' "$rc_out"
t1=$SECONDS
capture rc in_root apt-get install -y "$meta" mmbatchd
expect_ok "apt-get install $meta mmbatchd ($((SECONDS - t1)) s)" "$rc" "$rc_out"
status_of() { in_root dpkg-query -W -f='${Status} ${Version}' "$1" 2>&1 || true; }
expect_eq "linux-image-$kver1" "install ok installed $kver1-1" "$(status_of "linux-image-$kver1")"
expect_eq "$meta" "install ok installed $(dpkg-deb -f "$meta_deb" Version)" \
	"$(status_of "$meta")"
expect_eq "mmbatchd" "install ok installed $(dpkg-deb -f "$mmbatchd_deb" Version)" \
	"$(status_of mmbatchd)"
expect_file "initrd (dracut)" "$root/boot/initrd.img-$kver1"

echo "- the next series version, published into the same repo"
series1=$(bid_get "$BUILD" SERIES_VERSION)
t1=$SECONDS
capture rc rt_next_series "$BUILD"
next_id=$rt_next_id
expect_ok "build and package BASE=6.12 FLAVOR=guest PATCHES_ROOT=<VERSION $((series1 + 1))> KB_BUILD_DIR=${next_id%/*} ($((SECONDS - t1)) s)" \
	"$rc" "$rc_out"
printf '%s\n' "$rc_out" | grep -E '^build: .*(ccache|in [0-9]+ s)|^package: [0-9]+ packages' || true
kver2=$(bid_get "$next_id" KERNELRELEASE 2>&1) || true
expect_eq "next release" "${kver1/-mmbatch$series1-/-mmbatch$((series1 + 1))-}" "$kver2"
if ! v2=$(rt_packages "$next_id" IMAGE_DEB META_DEB); then
	fail "packages of $kver2 in $next_id (see above)"
	exit 1
fi
mapfile -t v2 <<<"$v2"
publish "${v2[@]}"
to_chroot
apt_update
expect_ok "apt-get update with the next series" "$rc" "$rc_out"
capture rc in_root apt-get upgrade -y
expect_ok "apt-get upgrade" "$rc" "$rc_out"
expect_match "apt-get upgrade keeps the meta-package back (it needs a new package)" "^  $meta\$" "$rc_out"
t1=$SECONDS
capture rc in_root apt-get full-upgrade -y
expect_ok "apt-get full-upgrade ($((SECONDS - t1)) s)" "$rc" "$rc_out"
expect_eq "new image linux-image-$kver2" "install ok installed $kver2-1" "$(status_of "linux-image-$kver2")"
expect_eq "old image stays" "install ok installed $kver1-1" "$(status_of "linux-image-$kver1")"
expect_eq "$meta follows" "install ok installed $(dpkg-deb -f "${v2[1]}" Version)" "$(status_of "$meta")"
expect_file "new initrd (dracut)" "$root/boot/initrd.img-$kver2"
expect_file "old initrd" "$root/boot/initrd.img-$kver1"
