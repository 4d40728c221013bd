#!/bin/bash
# shellcheck disable=SC2154  # rc and rc_out are set by capture (printf -v)
# REPO_KEY handling of tools/repo/mkrepo.sh:
#   - no REPO_KEY: refused with one ERROR line, nothing written;
#   - an unknown key id, a file without a secret key, a file that is no key:
#     refused, nothing written;
#   - REPO_KEY=<fingerprint> signs with that key of GNUPGHOME's keyring;
#   - a passphrase-protected key file signs with REPO_KEY_PASSFILE (debs and
#     RPMs) and is refused without it;
#   - REPO_KEY=generate makes a throwaway key under $OUT/repo-key once and
#     reuses it (same fingerprint) on the next run.
#   key_test.sh PACKAGE...   (a .deb and an .rpm to publish, e.g. mmbatchd's)
# Reads: TOP, OUT.
set -eu

usage() { echo "usage: key_test.sh PACKAGE.deb... PACKAGE.rpm... (at least one of each)" >&2; exit 2; }
[[ " $* " == *".deb "* && " $* " == *".rpm "* ]] || usage
. "$(dirname "$0")/lib.sh"
scratch
work=$T

echo "- refusals (nothing may be written)"
# expect_refusal WHAT REGEX ENV...: mkrepo with ENV fails with one ERROR line
# matching REGEX and leaves no repo behind.
pkgs=("$@")
expect_refusal() {
	local what=$1 re=$2 rc
	shift 2
	rm -rf "$work/repo"
	capture rc env -u REPO_KEY "$@" REPO_OUT="$work/repo" OUT="$work/out" "$MKREPO" "${pkgs[@]}"
	expect_fails "$what" "$re" "$rc" "$rc_out"
	expect_eq "$what: lines printed" 1 "$(printf '%s\n' "$rc_out" | grep -c .)"
	expect_absent "$what: repo" "$work/repo"
}
expect_refusal "no REPO_KEY" '^ERROR: repo: REPO_KEY is not set: .*REPO_KEY=generate'
mkdir -p "$work/emptyhome"
chmod 0700 "$work/emptyhome"
expect_refusal "unknown key id" "^ERROR: repo: REPO_KEY=0xDEADBEEF: no secret key found" \
	REPO_KEY=0xDEADBEEF GNUPGHOME="$work/emptyhome"
rt_make_key "$work/k" "mmbatch key test"
expect_refusal "public key only" "^ERROR: repo: REPO_KEY=$work/k/pub.gpg: no secret key found" \
	REPO_KEY="$work/k/pub.gpg"
printf 'not a key\n' >"$work/junk.asc"
expect_refusal "file that is no key" "^ERROR: repo: REPO_KEY=$work/junk.asc: gpg cannot import it" \
	REPO_KEY="$work/junk.asc"

# published_fpr: the fingerprint of the key exported into the repo.
published_fpr() { gpg --batch --with-colons --show-keys "$work/repo/mmbatch-archive-keyring.gpg" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'; }
key_fpr() { GNUPGHOME=$1 gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'; }

echo "- REPO_KEY=<fingerprint> from the caller's keyring (GNUPGHOME)"
fpr=$(key_fpr "$work/k/gnupg")
rm -rf "$work/repo"
capture rc env REPO_KEY="$fpr" GNUPGHOME="$work/k/gnupg" REPO_OUT="$work/repo" OUT="$work/out" "$MKREPO" "${pkgs[@]}"
expect_ok "mkrepo REPO_KEY=<fingerprint>" "$rc" "$rc_out"
expect_eq "published key" "$fpr" "$(published_fpr)"

echo "- a passphrase-protected key file"
mkdir -p "$work/pp/gnupg"
chmod 0700 "$work/pp/gnupg"
RT_HOMES+=("$work/pp/gnupg")
printf 'correct horse\n' >"$work/pp/pass"
ppg() { GNUPGHOME=$work/pp/gnupg gpg --batch --quiet --pinentry-mode loopback --passphrase-file "$work/pp/pass" "$@"; }
ppg --quick-generate-key "mmbatch protected test key <test@mmbatch.example.org>" rsa3072 sign 1d
ppg --armor --export-secret-keys >"$work/pp/key.asc"
rm -rf "$work/repo"
expect_refusal "protected key without REPO_KEY_PASSFILE" "^ERROR: repo: REPO_KEY=$work/pp/key.asc: cannot sign with " \
	REPO_KEY="$work/pp/key.asc"
# gpg deletes its -o output when signing fails: the probe must not name a file.
expect_eq "/dev/null after the failed signing probe" "character special file" "$(stat -c %F /dev/null)"
capture rc env REPO_KEY="$work/pp/key.asc" REPO_KEY_PASSFILE="$work/pp/pass" REPO_OUT="$work/repo" OUT="$work/out" "$MKREPO" "${pkgs[@]}"
expect_ok "mkrepo with REPO_KEY_PASSFILE" "$rc" "$rc_out"
expect_eq "published key" "$(key_fpr "$work/pp/gnupg")" "$(published_fpr)"
expect_match "RPMs signed" 'yum: [1-9][0-9]* signed now' "$rc_out"

echo "- REPO_KEY=generate: a throwaway key under OUT/repo-key, made once"
fpr_of() { GNUPGHOME=$work/out/repo-key gpg --batch --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'; }
rm -rf "$work/repo"
capture rc env REPO_KEY=generate REPO_OUT="$work/repo" OUT="$work/out" "$MKREPO" "${pkgs[@]}"
expect_ok "mkrepo REPO_KEY=generate" "$rc" "$rc_out"
expect_match "first run says it made a throwaway key" 'making a THROWAWAY signing key' "$rc_out"
RT_HOMES+=("$work/out/repo-key")
first=$(fpr_of)
expect_match "generated key fingerprint" '^[0-9A-F]{40}$' "$first"
expect_eq "exported public key is that key" "$first" "$(published_fpr)"
capture rc env REPO_KEY=generate REPO_OUT="$work/repo" OUT="$work/out" "$MKREPO" "${pkgs[@]}"
expect_ok "mkrepo REPO_KEY=generate again" "$rc" "$rc_out"
expect_match "second run reuses it" 'reusing the throwaway key' "$rc_out"
expect_eq "fingerprint after the second run" "$first" "$(fpr_of)"
