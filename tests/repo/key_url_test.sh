#!/bin/bash
# shellcheck disable=SC2154  # rc and rc_out are set by capture (printf -v)
# Where clients fetch the key (issue 41: mkrepo.sh accepted an http:// key
# URL; dnf imports whatever key mmbatch.repo's gpgkey= hands it, so over
# http:// anyone on the path could swap it). With a tiny .deb made here (no
# kernel build, no chroot) and a throwaway key:
#   1. refused with one ERROR line naming the variable, exit non-zero, no
#      repo written and an existing one left byte for byte as it was:
#      REPO_URL=http://... without REPO_KEY_URL (the key would come over
#      http://), REPO_KEY_URL=http://..., ftp://..., REPO_KEY_URL or REPO_URL
#      with a newline (shown escaped, on one line);
#   2. accepted: an https:// REPO_URL (gpgkey= below it); an http:// REPO_URL
#      (the signed indexes may travel over http) with REPO_KEY_URL file://
#      or https:// (gpgkey= that URL, baseurl= and URIs: http://); no
#      REPO_URL (file:// for both).
#   key_url_test.sh
# Reads: TOP, OUT.
set -eu

usage() { echo "usage: key_url_test.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
. "$(dirname "$0")/lib.sh"
scratch
work=$T

mkdir -p "$work/probe/DEBIAN"
cat >"$work/probe/DEBIAN/control" <<EOF2
Package: mmbatch-key-url-probe
Version: 1
Architecture: all
Maintainer: mmbatch tests <test@mmbatch.example.org>
Description: empty package for the key URL test
EOF2
deb=$work/mmbatch-key-url-probe_1_all.deb
dpkg-deb --root-owner-group -Zgzip --build "$work/probe" "$deb" >/dev/null
rt_make_key "$work/key" "mmbatch key URL test key"

# mkrepo REPO ENV...: publish the probe into REPO with ENV (REPO_URL and
# REPO_KEY_URL only as given); status in rc.
mkrepo() {
	local repo=$1
	shift
	capture rc env -u REPO_URL -u REPO_KEY_URL REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" OUT="$work/out" \
		"$@" "$MKREPO" "$deb"
}

# Published once: a refusal must leave it as it is.
mkrepo "$work/kept" REPO_URL=https://pkgs.example.org/mmbatch
expect_ok "mkrepo into the kept repo" "$rc" "$rc_out"
kept_sum=$(tree_sum "$work/kept" dates)

echo "- refusals (nothing written)"
# expect_refusal WHAT REGEX ENV...: one ERROR line matching REGEX, exit
# non-zero, no new repo, the kept one unchanged.
expect_refusal() {
	local what=$1 re=$2
	shift 2
	rm -rf "$work/repo"
	mkrepo "$work/repo" "$@"
	expect_fails "$what" "$re" "$rc" "$rc_out"
	expect_eq "$what: lines printed" 1 "$(printf '%s\n' "$rc_out" | grep -c .)"
	expect_absent "$what: repo" "$work/repo"
	mkrepo "$work/kept" "$@"
	expect_fails "$what (existing repo)" "$re" "$rc" "$rc_out"
	expect_eq "$what: the existing repo is unchanged" "$kept_sum" "$(tree_sum "$work/kept" dates)"
}
nl=$'\n'
expect_refusal "http:// REPO_URL, no REPO_KEY_URL" \
	"^ERROR: repo: REPO_URL='http://pkgs\.example\.org/mmbatch' would have dnf fetch the key over http:// .*REPO_KEY_URL=" \
	REPO_URL=http://pkgs.example.org/mmbatch
expect_refusal "http:// REPO_KEY_URL" \
	"^ERROR: repo: REPO_KEY_URL='http://keys\.example\.org/RPM-GPG-KEY-mmbatch': expected an https:// or file:// URL" \
	REPO_URL=https://pkgs.example.org/mmbatch REPO_KEY_URL=http://keys.example.org/RPM-GPG-KEY-mmbatch
expect_refusal "http:// REPO_KEY_URL with an http:// REPO_URL" \
	"^ERROR: repo: REPO_KEY_URL='http://pkgs\.example\.org/mmbatch/RPM-GPG-KEY-mmbatch': expected an https:// or file://" \
	REPO_URL=http://pkgs.example.org/mmbatch REPO_KEY_URL=http://pkgs.example.org/mmbatch/RPM-GPG-KEY-mmbatch
expect_refusal "ftp:// REPO_KEY_URL" "^ERROR: repo: REPO_KEY_URL='ftp://pkgs\.example\.org/k': expected an https:// or file://" \
	REPO_KEY_URL=ftp://pkgs.example.org/k
expect_refusal "REPO_KEY_URL with a newline" \
	"^ERROR: repo: REPO_KEY_URL=\\$'https://pkgs\.example\.org/k\\\\ngpgcheck=0': expected an https:// or file://" \
	"REPO_KEY_URL=https://pkgs.example.org/k${nl}gpgcheck=0"
expect_refusal "REPO_URL with a newline" \
	"^ERROR: repo: REPO_URL=\\$'https://pkgs\.example\.org/m\\\\nTrusted: yes': expected an http://, https:// or file:// URL" \
	"REPO_URL=https://pkgs.example.org/m${nl}Trusted: yes"

echo "- accepted"
# published ENV...: mkrepo into a new repo succeeds; sets repo_conf, sources.
published() {
	rm -rf "$work/repo"
	mkrepo "$work/repo" "$@"
	expect_ok "mkrepo $*" "$rc" "$rc_out"
	repo_conf=$(cat "$work/repo/mmbatch.repo" 2>/dev/null || true)
	sources=$(cat "$work/repo/mmbatch.sources" 2>/dev/null || true)
}
published REPO_URL=https://pkgs.example.org/mmbatch/
expect_line "https:// REPO_URL: gpgkey" "gpgkey=https://pkgs.example.org/mmbatch/RPM-GPG-KEY-mmbatch" "$repo_conf"
expect_line "https:// REPO_URL: baseurl" "baseurl=https://pkgs.example.org/mmbatch/rpm" "$repo_conf"
published REPO_URL=http://pkgs.example.org/mmbatch REPO_KEY_URL=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-mmbatch
expect_line "http:// REPO_URL, file:// key: gpgkey" "gpgkey=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-mmbatch" "$repo_conf"
expect_line "http:// REPO_URL, file:// key: baseurl stays http" "baseurl=http://pkgs.example.org/mmbatch/rpm" "$repo_conf"
expect_line "http:// REPO_URL, file:// key: repo_gpgcheck" "repo_gpgcheck=1" "$repo_conf"
expect_line "http:// REPO_URL: apt URIs stay http" "URIs: http://pkgs.example.org/mmbatch/deb" "$sources"
expect_line "http:// REPO_URL: apt Signed-By, a local keyring" "Signed-By: /etc/apt/keyrings/mmbatch-archive-keyring.gpg" "$sources"
published REPO_URL=http://pkgs.example.org/mmbatch REPO_KEY_URL=https://keys.example.org/RPM-GPG-KEY-mmbatch
expect_line "http:// REPO_URL, https:// key: gpgkey" "gpgkey=https://keys.example.org/RPM-GPG-KEY-mmbatch" "$repo_conf"
published
expect_line "no REPO_URL: gpgkey file://" "gpgkey=file://$(realpath "$work/repo")/RPM-GPG-KEY-mmbatch" "$repo_conf"
expect_line "no REPO_URL: baseurl file://" "baseurl=file://$(realpath "$work/repo")/rpm" "$repo_conf"
test_summary
