#!/bin/bash
# shellcheck disable=SC2154  # rc and rc_out are set by capture (printf -v)
# The host's initramfs tool is kept: the image DEB depends on
# `dracut | linux-initramfs-tool`, so apt installs our kernel from the signed
# repository beside whatever tool the host has (initramfs-tools, as Debian's
# own images have it; Debian's dracut Conflicts: initramfs-tools), and only a
# host with neither gets dracut. In the cached Debian 12 chroot
# (tools/pkg/mkchroot.sh, which holds dracut), with the Debian archive it was
# made from still in its sources, so apt is free to pull dracut in:
#   1. initramfs-tools host: the chroot with initramfs-tools installed in
#      place of dracut. `apt-get install <meta-package> mmbatchd` from our
#      repository: apt's summary removes nothing, `dpkg-query -W` before and
#      after lists no package gone, initramfs-tools stays, dracut does not
#      come, and /boot/initrd.img-<kver> is initramfs-tools' own
#      (lsinitramfs shows its scripts/local and conf/initramfs.conf).
#   2. the same checks must FAIL on an image whose Depends is the old
#      `kmod, dracut`: apt removes initramfs-tools (its summary and the
#      package lists both say so).
#   3. a host with neither tool: the same install brings dracut, whose
#      initramfs it is (lsinitrd shows dracut's modules), and removes nothing.
#   BUILD=FILE initramfs_test.sh   (FILE: the packaged 6.12 guest build's identity)
# Reads: TOP, OUT, BUILD. Needs root and the Debian archive the chroot came from.
set -eu

usage() { echo "usage: BUILD=out/build/6.12-guest/mmbatch-build.env initramfs_test.sh" >&2; exit 2; }
[ $# -eq 0 ] && [ -n "${BUILD:-}" ] || usage
. "$(dirname "$0")/lib.sh"
mkchroot=$TOP/tools/pkg/mkchroot.sh

rt_work
chroot_repo=/srv/mmbatch-repo

pkgs=$(rt_packages "$BUILD" IMAGE_DEB META_DEB MMBATCHD_DEB) ||
	{ echo "ERROR: initramfs_test: the 6.12 guest packages are incomplete (see above)" >&2; exit 1; }
mapfile -t pkgs <<<"$pkgs"
image_deb=${pkgs[0]}
meta=$(dpkg-deb -f "${pkgs[1]}" Package)
kver=$(bid_get "$BUILD" KERNELRELEASE)
echo "$TEST_NAME: kernel $kver, meta-package $meta"
expect_eq "image Depends" "kmod, dracut | linux-initramfs-tool" "$(dpkg-deb -f "$image_deb" Depends)"

rt_make_key "$work/key" "mmbatch initramfs test key"
# publish DIR DEB...: a signed repository of the DEBs in DIR.
publish() {
	local dir=$1
	shift
	capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$dir" REPO_URL="file://$chroot_repo" "$MKREPO" "$@"
	expect_ok "mkrepo $(basename "$dir"), $# packages" "$rc" "$rc_out"
}
publish "$work/repo" "${pkgs[@]}"
# The broken image: the same package with the Depends it had before, so the
# checks below are shown to fail on it.
mkdir "$work/old"
dpkg-deb -R "$image_deb" "$work/old/tree"
sed -i 's/^Depends: .*/Depends: kmod, dracut/' "$work/old/tree/DEBIAN/control"
dpkg-deb --root-owner-group -Zgzip -b "$work/old/tree" "$work/old/$(basename "$image_deb")" >/dev/null
rm -rf "$work/old/tree"
publish "$work/repo-old" "$work/old/$(basename "$image_deb")" "${pkgs[1]}" "${pkgs[2]}"

status_of() { in_root dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true; }
installed() { in_root dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | sort; }

# new_root: a fresh copy of the cached chroot, mounted, Debian's archive in
# its sources (mmdebstrap wrote them) and apt's lists read from it.
new_root() {
	"$mkchroot" umount "$root"
	rm -rf --one-file-system "$root"
	"$mkchroot" unpack "$root"
	"$mkchroot" mount "$root"
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 0755 "$root/usr/sbin/policy-rc.d"
	capture rc in_root apt-get update
	expect_ok "apt-get update from Debian's archive" "$rc" "$rc_out"
}
# use_repo DIR: DIR as the root's mmbatch repository, as the README adds it.
use_repo() {
	rm -rf "$root$chroot_repo"
	cp -a "$1" "$root$chroot_repo"
	install -D -m 0644 "$1/mmbatch-archive-keyring.gpg" "$root/etc/apt/keyrings/mmbatch-archive-keyring.gpg"
	install -m 0644 "$1/mmbatch.sources" "$root/etc/apt/sources.list.d/mmbatch.sources"
	capture rc in_root apt-get update
	expect_ok "apt-get update with $(basename "$1")" "$rc" "$rc_out"
}
# install_kernel: installs the meta-package and mmbatchd; rc/rc_out are
# apt's, $work/before and $work/after the installed packages, $work/gone
# those of before that after lacks.
install_kernel() {
	installed >"$work/before"
	capture rc in_root apt-get install -y "$meta" mmbatchd
	installed >"$work/after"
	comm -23 "$work/before" "$work/after" >"$work/gone"
}
# kept_all WHAT: the assertions that apt removed nothing.
kept_all() {
	expect_match "$1: apt's summary" '^[0-9]+ upgraded, [0-9]+ newly installed, 0 to remove' "$rc_out"
	expect_no_match "$1: apt's summary" 'following packages will be REMOVED' "$rc_out"
	expect_eq "$1: packages gone (dpkg-query -W before and after)" "" "$(cat "$work/gone")"
}

echo "- an initramfs-tools host keeps its tool"
new_root
capture rc in_root apt-get install -y initramfs-tools
expect_ok "apt-get install initramfs-tools (the host's tool, in place of dracut)" "$rc" "$rc_out"
expect_no_line "dracut gone from the host" dracut "$(installed)"
use_repo "$work/repo"
install_kernel
expect_ok "apt-get install $meta mmbatchd" "$rc" "$rc_out"
kept_all "initramfs-tools host"
expect_line "initramfs-tools kept" initramfs-tools "@$work/after"
expect_no_line "no dracut pulled in" dracut "@$work/after"
expect_eq "linux-image-$kver" "install ok installed" "$(status_of "linux-image-$kver")"
expect_file "initrd" "$root/boot/initrd.img-$kver"
capture rc in_root lsinitramfs "/boot/initrd.img-$kver"
expect_ok "lsinitramfs" "$rc" "$rc_out"
expect_line "initrd made by initramfs-tools (its boot script)" scripts/local "$rc_out"
expect_line "initrd made by initramfs-tools (its config)" conf/initramfs.conf "$rc_out"
expect_match "initrd holds the kernel's modules" "^usr/lib/modules/$(re_quote "$kver")/modules.dep\$|^lib/modules/$(re_quote "$kver")/modules.dep\$" "$rc_out"

echo "- the same checks fail on an image that depends on dracut alone"
capture rc in_root apt-get purge -y "$meta" "linux-image-$kver" mmbatchd
expect_ok "apt-get purge of our packages" "$rc" "$rc_out"
use_repo "$work/repo-old"
install_kernel
expect_ok "apt-get install $meta mmbatchd (old Depends)" "$rc" "$rc_out"
expect_match "old Depends: apt's summary removes" '^[0-9]+ upgraded, [0-9]+ newly installed, [1-9][0-9]* to remove' "$rc_out"
expect_match "old Depends: apt's summary names it" 'following packages will be REMOVED' "$rc_out"
expect_line "old Depends: initramfs-tools gone (dpkg-query -W)" initramfs-tools "@$work/gone"

echo "- a host with neither tool gets dracut"
new_root
capture rc in_root apt-get purge -y dracut dracut-core
expect_ok "apt-get purge dracut (a host with no initramfs tool)" "$rc" "$rc_out"
expect_no_line "no initramfs-tools either" initramfs-tools "$(installed)"
use_repo "$work/repo"
install_kernel
expect_ok "apt-get install $meta mmbatchd" "$rc" "$rc_out"
kept_all "host with neither"
expect_line "dracut pulled in" dracut "@$work/after"
expect_file "initrd" "$root/boot/initrd.img-$kver"
capture rc in_root lsinitrd "/boot/initrd.img-$kver"
expect_ok "lsinitrd" "$rc" "$rc_out"
expect_match "initrd made by dracut (its modules)" '^dracut modules:$' "$rc_out"
