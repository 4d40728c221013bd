#!/bin/bash
# shellcheck disable=SC2154  # rc and rc_out are set by capture (printf -v)
# The yum side of tools/repo/mkrepo.sh, with a throwaway key:
#   - every published RPM passes `rpm -K` with only our key imported into a
#     scratch rpmdb, signatures required (_pkgverify_level all, what dnf's
#     gpgcheck=1 enforces); the unsigned original, a tampered copy and one
#     signed by another key fail it;
#   - repodata/repomd.xml.asc verifies with gpgv against the exported key,
#     and fails for a tampered repomd.xml;
#   - a second mkrepo run (createrepo_c --update) and a plain
#     `createrepo_c --update` after it change nothing that matters: the same
#     RPM files (not re-signed), the same package set, every repomd.xml
#     checksum matches its file, no stale metadata files;
#   - a different build under a published file name is refused and changes
#     nothing; REPO_REPLACE=1 replaces it;
#   - mmbatch.repo asks for gpgcheck=1 and repo_gpgcheck=1.
#   rpm_test.sh PACKAGE.rpm...
# Reads: TOP, OUT.
set -eu

usage() { echo "usage: rpm_test.sh PACKAGE.rpm..." >&2; exit 2; }
[ $# -gt 0 ] || usage
. "$(dirname "$0")/lib.sh"
scratch
work=$T
repo=$work/repo

rt_make_key "$work/key" "mmbatch rpm test key"
rt_make_key "$work/other" "some other key"
capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" "$MKREPO" "$@"
expect_ok "mkrepo with a key file" "$rc" "$rc_out"
[ "$rc" -eq 0 ] || exit 1

echo "- rpm -K with the exported key in a scratch rpmdb"
db=$work/rpmdb
rpm --dbpath "$db" --initdb
capture rc rpm --dbpath "$db" --import "$repo/RPM-GPG-KEY-mmbatch"
expect_ok "rpm --import RPM-GPG-KEY-mmbatch" "$rc" "$rc_out"
rpmk() { rpm --dbpath "$db" --define '_pkgverify_level all' -K "$1"; }
for p in "$@"; do
	capture rc rpmk "$repo/rpm/$(basename "$p")"
	expect_ok "rpm -K $(basename "$p")" "$rc" "$rc_out"
	expect_match "rpm -K $(basename "$p")" ': digests signatures OK$' "$rc_out"
done
one=$repo/rpm/$(basename "$1")
capture rc rpmk "$1"
expect_fails "rpm -K on the unsigned original" 'SIGNATURES NOT OK' "$rc" "$rc_out"
cp "$one" "$work/tampered.rpm"
size=$(stat -c %s "$work/tampered.rpm")
# One byte of the payload (its end), header and signature untouched.
printf '\377' | dd of="$work/tampered.rpm" bs=1 seek=$((size - 64)) conv=notrunc status=none
capture rc rpmk "$work/tampered.rpm"
expect_fails "rpm -K on a tampered copy" 'DIGESTS SIGNATURES NOT OK' "$rc" "$rc_out"
cp "$1" "$work/foreign.rpm"
rpmsign --define "__gpg $(command -v gpg)" --define "_gpg_sign_cmd_extra_args --batch --no-tty" \
	--define "_gpg_name some other key" --define "_gpg_path $work/other/gnupg" --addsign "$work/foreign.rpm" >/dev/null 2>&1
capture rc rpmk "$work/foreign.rpm"
expect_fails "rpm -K on a copy signed by another key" 'SIGNATURES NOT OK' "$rc" "$rc_out"

echo "- repomd.xml.asc"
md=$repo/rpm/repodata
capture rc gpgv --keyring "$repo/mmbatch-archive-keyring.gpg" "$md/repomd.xml.asc" "$md/repomd.xml"
expect_ok "gpgv repomd.xml.asc repomd.xml" "$rc" "$rc_out"
sed 's|</repomd>|<!-- tampered --></repomd>|' "$md/repomd.xml" >"$work/repomd.xml"
capture rc gpgv --keyring "$repo/mmbatch-archive-keyring.gpg" "$md/repomd.xml.asc" "$work/repomd.xml"
expect_fails "gpgv on a tampered repomd.xml" 'BAD signature' "$rc" "$rc_out"
conf=$(cat "$repo/mmbatch.repo")
expect_line "mmbatch.repo" "gpgcheck=1" "$conf"
expect_line "mmbatch.repo" "repo_gpgcheck=1" "$conf"

# metadata_state: repomd.xml's files each checked against its checksum (one
# "ok TYPE" or "BAD TYPE" line each), the repodata file list, the package set
# from primary.xml (pkgid and location), and the RPM files' hashes.
metadata_state() {
	awk '
		/<data type=/ { t = $0; sub(/.*<data type="/, "", t); sub(/".*/, "", t) }
		/<checksum type="sha256">/ { c = $0; sub(/.*<checksum type="sha256">/, "", c); sub(/<.*/, "", c) }
		/<location href=/ { h = $0; sub(/.*<location href="/, "", h); sub(/".*/, "", h); print t, c, h }
	' "$md/repomd.xml" | while read -r type sum href; do
		if [ "$(sha256sum <"$repo/rpm/$href" | cut -c1-64)" = "$sum" ]; then echo "ok $type"; else echo "BAD $type"; fi
	done
	echo "files: $(cd "$md" && ls | tr '\n' ' ')"
	primary=$(sed -n 's/.*<location href="\(repodata\/[^"]*primary.xml.gz\)".*/\1/p' "$md/repomd.xml")
	zcat "$repo/rpm/$primary" | sed -n 's/.*pkgid="YES">\([0-9a-f]*\)<.*/pkgid \1/p; s/.*<location href="\([^"]*\)".*/location \1/p' | sort
	(cd "$repo/rpm" && sha256sum ./*.rpm)
}

echo "- createrepo_c --update is idempotent"
before=$(metadata_state)
expect_eq "packages in primary.xml" "$#" "$(printf '%s\n' "$before" | grep -c '^location ')"
expect_no_match "repomd.xml checksums (first run)" '^BAD ' "$before"
capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" "$MKREPO" "$@"
expect_ok "mkrepo again, same packages" "$rc" "$rc_out"
expect_match "second run signs nothing" 'yum: 0 signed now' "$rc_out"
after=$(metadata_state)
expect_eq "metadata state after the second run" "$before" "$after"
capture rc createrepo_c --quiet --update --general-compress-type gz "$repo/rpm"
expect_ok "createrepo_c --update once more" "$rc" "$rc_out"
expect_eq "metadata state after a plain createrepo_c --update" "$before" "$(metadata_state)"

echo "- same file name, other content: refused unless REPO_REPLACE=1"
# tiny_rpm TEXT: a noarch test RPM whose header carries TEXT, always the same
# file name; prints its path.
tiny_rpm() {
	local top=$work/rpmbuild-$1
	mkdir -p "$top/SPECS"
	printf '%s\n' 'Name: mmbatch-repo-test' 'Version: 1' 'Release: 1' 'Summary: repo test' 'License: MIT' \
		'BuildArch: noarch' '%description' "$1" '%files' >"$top/SPECS/t.spec"
	rpmbuild -bb --quiet --define "_topdir $top" "$top/SPECS/t.spec" >/dev/null 2>&1
	echo "$top/RPMS/noarch/mmbatch-repo-test-1-1.noarch.rpm"
}
first_rpm=$(tiny_rpm first)
second_rpm=$(tiny_rpm second)
capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" "$MKREPO" "$first_rpm"
expect_ok "mkrepo adds a test RPM" "$rc" "$rc_out"
before=$(metadata_state)
capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" "$MKREPO" "$second_rpm"
expect_fails "mkrepo, other build of the same file name" 'already published with other content' "$rc" "$rc_out"
expect_eq "metadata state after the refusal" "$before" "$(metadata_state)"
capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" REPO_REPLACE=1 "$MKREPO" "$second_rpm"
expect_ok "mkrepo REPO_REPLACE=1" "$rc" "$rc_out"
expect_eq "published test RPM after REPO_REPLACE=1" second \
	"$(rpm -qp --nosignature --qf '%{DESCRIPTION}' "$repo/rpm/mmbatch-repo-test-1-1.noarch.rpm" 2>&1)"
