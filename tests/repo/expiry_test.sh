#!/bin/bash
# shellcheck disable=SC2154  # rc and rc_out are set by capture (printf -v)
# The apt Release of tools/repo/mkrepo.sh expires (freeze/replay attacks: a
# mirror that keeps serving an old, correctly signed Release). With a tiny
# .deb made here (no kernel build) and a throwaway key:
#   1. REPO_VALID_DAYS=0, -1, abc, 7d, 08, 3651: refused with one ERROR line
#      naming REPO_VALID_DAYS, exit non-zero; nothing written to a new repo,
#      an existing repo left byte for byte as it was;
#   2. the signed Release (InRelease, verified with gpgv and the published
#      keyring) has Date and Valid-Until = Date + REPO_VALID_DAYS days
#      (default 7);
#   3. mkrepo again with the same package re-signs it: a later Date and
#      Valid-Until, the Packages index byte-identical;
#   4. in the cached Debian 12 chroot (tools/pkg/mkchroot.sh), with the
#      published key and mmbatch.sources as they are: `apt-get update`
#      accepts the fresh repo; a Release made by the same tool
#      (apt-ftparchive release, same fields, ValidTime=-3600) and properly
#      signed with the repo key, so only its expiry is wrong, is refused with
#      apt's "expired" error and a non-zero exit, and its index is not used.
#   expiry_test.sh
# Reads: TOP, OUT. Needs root (chroot).
set -eu

usage() { echo "usage: expiry_test.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
. "$(dirname "$0")/lib.sh"
mkchroot=$TOP/tools/pkg/mkchroot.sh

rt_work
repo=$work/repo
chroot_repo=/srv/mmbatch-repo
probe=mmbatch-expiry-probe

# A tiny package to publish.
mkdir -p "$work/probe/DEBIAN"
cat >"$work/probe/DEBIAN/control" <<EOF
Package: $probe
Version: 1
Architecture: all
Maintainer: mmbatch tests <test@mmbatch.example.org>
Description: empty package for the Release expiry test
EOF
dpkg-deb --root-owner-group -Zgzip --build "$work/probe" "$work/${probe}_1_all.deb" >/dev/null
deb=$work/${probe}_1_all.deb

rt_make_key "$work/key" "mmbatch expiry test key"
# mkrepo ENV...: publish the probe into $repo with ENV; status in rc.
mkrepo() {
	capture rc env -u REPO_VALID_DAYS REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" \
		REPO_URL="file://$chroot_repo" "$@" "$MKREPO" "$deb"
}
rel=$repo/deb/dists/bookworm
field() { sed -n "s/^$1: //p" "$2"; }
# span FROM TO: seconds from date FROM to date TO, or why there are none.
span() {
	local a b
	if [ -n "$1" ] && [ -n "$2" ] && a=$(date -u -d "$1" +%s 2>/dev/null) && b=$(date -u -d "$2" +%s 2>/dev/null); then
		echo $((b - a))
	else
		echo "no dates ('$1', '$2')"
	fi
}
# later WHAT FROM TO: TO is a later date than FROM.
later() { expect_match "$1: '$2' -> '$3', seconds later" '^[1-9][0-9]*$' "$(span "$2" "$3")"; }
tree_sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }

echo "- REPO_VALID_DAYS refusals (nothing written)"
for bad in 0 -1 abc 7d 08 3651; do
	rm -rf "$repo"
	mkrepo REPO_VALID_DAYS="$bad"
	expect_fails "REPO_VALID_DAYS=$bad, new repo" "^ERROR: repo: REPO_VALID_DAYS='$(re_quote "$bad")': " "$rc" "$rc_out"
	expect_eq "REPO_VALID_DAYS=$bad: lines printed" 1 "$(printf '%s\n' "$rc_out" | grep -c .)"
	expect_absent "REPO_VALID_DAYS=$bad: repo" "$repo"
done
rm -rf "$repo"
mkrepo
expect_ok "mkrepo, REPO_VALID_DAYS unset" "$rc" "$rc_out"
expect_match "mkrepo says until when" "valid until .*REPO_VALID_DAYS=7 \(the default\)" "$rc_out"
before=$(tree_sums "$repo")
mkrepo REPO_VALID_DAYS=-1
expect_fails "REPO_VALID_DAYS=-1, existing repo" "^ERROR: repo: REPO_VALID_DAYS='-1': " "$rc" "$rc_out"
expect_eq "existing repo after the refusal" "$before" "$(tree_sums "$repo")"

echo "- Date and Valid-Until in the signed Release"
# signed_release: the Release text inside InRelease, once gpgv verified it
# with the published keyring (empty when it does not verify).
signed_release() {
	gpgv --keyring "$repo/mmbatch-archive-keyring.gpg" --output - "$rel/InRelease" 2>/dev/null || true
}
expect_match "InRelease verifies with the published keyring (default validity)" '^Origin: mmbatch$' "$(signed_release)"
d=$(signed_release | sed -n 's/^Date: //p') v=$(signed_release | sed -n 's/^Valid-Until: //p')
expect_match "signed Date" '^Date: [A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} \+0000$' "Date: $d"
expect_match "signed Valid-Until" '^Valid-Until: [A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} \+0000$' "Valid-Until: $v"
expect_eq "Valid-Until - Date, default (s)" $((7 * 86400)) "$(span "$d" "$v")"
age=$(span "$d" "$(date -u -R)")
expect_eq "Date is the signing time (0..120 s ago)" yes "$([[ "$age" =~ ^[0-9]+$ ]] && [ "$age" -le 120 ] && echo yes || echo "no: Date '$d', $age s ago")"

rm -rf "$repo"
mkrepo REPO_VALID_DAYS=2
expect_ok "mkrepo REPO_VALID_DAYS=2" "$rc" "$rc_out"
d1=$(signed_release | sed -n 's/^Date: //p') v1=$(signed_release | sed -n 's/^Valid-Until: //p')
expect_eq "Valid-Until - Date, REPO_VALID_DAYS=2 (s)" $((2 * 86400)) "$(span "$d1" "$v1")"
packages1=$(cat "$rel/main/binary-amd64/Packages" "$rel/main/binary-amd64/Packages.gz" | sha256sum)

echo "- make repo again, no new package: a fresh signature"
sleep 2
mkrepo REPO_VALID_DAYS=2
expect_ok "mkrepo again, same package" "$rc" "$rc_out"
d2=$(signed_release | sed -n 's/^Date: //p') v2=$(signed_release | sed -n 's/^Valid-Until: //p')
later "Date moved on" "$d1" "$d2"
later "Valid-Until moved on" "$v1" "$v2"
expect_eq "Packages, Packages.gz unchanged" "$packages1" "$(cat "$rel/main/binary-amd64/Packages" "$rel/main/binary-amd64/Packages.gz" | sha256sum)"
expect_match "Release.gpg verifies" 'Good signature' "$(gpgv --keyring "$repo/mmbatch-archive-keyring.gpg" "$rel/Release.gpg" "$rel/Release" 2>&1 || echo FAILED)"

echo "- apt in the Debian 12 chroot"
t0=$SECONDS
"$mkchroot" unpack "$root"
"$mkchroot" mount "$root"
echo "$TEST_NAME: chroot unpacked and mounted in $((SECONDS - t0)) s"
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
install -D -m 0644 "$repo/mmbatch-archive-keyring.gpg" "$root/etc/apt/keyrings/mmbatch-archive-keyring.gpg"
install -m 0644 "$repo/mmbatch.sources" "$root/etc/apt/sources.list.d/mmbatch.sources"
to_chroot() {
	rm -rf "$root$chroot_repo"
	cp -a "$repo" "$root$chroot_repo"
}
apt_update() {
	rm -rf "$root/var/lib/apt/lists"
	mkdir -p "$root/var/lib/apt/lists/partial"
	capture rc in_root apt-get update
}
dist=$root$chroot_repo/deb/dists/bookworm

to_chroot
apt_update
expect_ok "apt-get update, fresh repo" "$rc" "$rc_out"
expect_no_match "apt-get update output, fresh repo" '^(W|E|Err):' "$rc_out"
capture rc in_root apt-cache show "$probe"
expect_ok "apt-cache show $probe (the index was taken)" "$rc" "$rc_out"

# The same tool, the same fields, a validity that ended an hour ago; signed
# with the repo key: a replayed Release that once was valid.
to_chroot
rm "$dist/InRelease" "$dist/Release" "$dist/Release.gpg"
opts=()
for f in Origin Label Suite Codename Architectures Components Description; do
	opts+=(-o "APT::FTPArchive::Release::$f=$(field "$f" "$rel/Release")")
done
(cd "$dist" && apt-ftparchive "${opts[@]}" -o APT::FTPArchive::Release::ValidTime=-3600 release .) >"$work/Release.expired"
mv "$work/Release.expired" "$dist/Release"
GNUPGHOME=$work/key/gnupg gpg --batch --yes --quiet --digest-algo SHA256 --clearsign -o "$dist/InRelease" "$dist/Release"
GNUPGHOME=$work/key/gnupg gpg --batch --yes --quiet --digest-algo SHA256 --armor --detach-sign -o "$dist/Release.gpg" "$dist/Release"
expect_eq "expired Release = published one but for Date and Valid-Until" \
	"$(grep -Ev '^(Date|Valid-Until):' "$rel/Release")" "$(grep -Ev '^(Date|Valid-Until):' "$dist/Release")"
expect_eq "expired Release: Valid-Until - Date (s)" -3600 "$(span "$(field Date "$dist/Release")" "$(field Valid-Until "$dist/Release")")"
expect_match "expired InRelease verifies with the repo keyring" \
	'Good signature' "$(gpgv --keyring "$repo/mmbatch-archive-keyring.gpg" "$dist/InRelease" 2>&1 || echo FAILED)"
apt_update
expect_fails "apt-get update, expired Release (InRelease)" '^E: Release file for .* is (expired|no longer valid)' "$rc" "$rc_out"
printf '%s\n' "$rc_out" | sed -n 's/^/    apt: /p' | grep -E '^    apt: (E|W|Err):' || true
capture rc in_root apt-cache show "$probe"
expect_fails "apt-cache show $probe after the refused update (index not used)" "No packages found|Unable to locate" "$rc" "$rc_out"

rm "$dist/InRelease"
apt_update
expect_fails "apt-get update, expired Release (Release.gpg only)" '^E: Release file for .* is (expired|no longer valid)' "$rc" "$rc_out"
