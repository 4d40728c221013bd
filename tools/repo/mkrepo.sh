#!/bin/bash
# `make repo`: signed apt and yum repositories from built packages, in
# $REPO_OUT (default out/repo/):
#   deb/pool/main/*.deb                   every .deb ever added (older kernels stay
#                                         installable; a re-added file must be identical)
#   deb/dists/$REPO_SUITE/{Release,InRelease,Release.gpg}   re-signed on every run
#                                         (Date, Valid-Until = Date + REPO_VALID_DAYS)
#   deb/dists/$REPO_SUITE/main/binary-amd64/Packages{,.gz}
#   rpm/*.rpm                             signed copies (rpmsign, same key)
#   rpm/repodata/{repomd.xml,repomd.xml.asc,...}   createrepo_c --update
#   mmbatch-archive-keyring.gpg           public key, binary (apt Signed-By)
#   RPM-GPG-KEY-mmbatch                   public key, armored (rpm --import, gpgkey=)
#   mmbatch.sources                       deb822 source for /etc/apt/sources.list.d/
#   mmbatch.repo                          yum/dnf repo for /etc/yum.repos.d/
#
# apt side: apt-ftparchive, not reprepro. The index is then a pure function
# of the pool directory, like createrepo_c's of the RPM directory: no database
# to drift from the files, and several versions of one package (the
# meta-package, mmbatchd) stay listed, so a fleet can pin or roll back;
# reprepro keeps one version per package name and suite.
#
#   mkrepo.sh [PACKAGE.deb|PACKAGE.rpm ...]
#   BUILD=FILE mkrepo.sh   every package the build identity FILE records
#                          (tools/kbuild/identity.sh, tools/pkg/packages.sh)
# Without arguments or BUILD: every .deb and .rpm in $REPO_PACKAGES.
# Reads: BUILD, REPO_KEY (required: key file, key id or `generate`; see
# tools/repo/lib.sh), REPO_KEY_PASSFILE, REPO_OUT (default $OUT/repo),
# REPO_PACKAGES (default $OUT/packages), REPO_URL (where clients reach
# REPO_OUT; default file://REPO_OUT), REPO_KEY_URL (where dnf fetches the
# key, mmbatch.repo's gpgkey=: https:// or file:// only; default
# REPO_URL/RPM-GPG-KEY-mmbatch), REPO_SUITE (default bookworm),
# REPO_ORIGIN (default mmbatch), REPO_REPLACE=1 (let a changed package replace
# a published one of the same file name: clients that cached it then fail),
# REPO_VALID_DAYS (default 7: how long apt accepts the signed Release).
#
# The apt Release carries Date (when it was signed) and Valid-Until (Date +
# REPO_VALID_DAYS days): apt refuses a Release past its Valid-Until, so a
# mirror or attacker that keeps serving an old, still correctly signed
# Release (freeze/replay) is found out within that time. Every run re-signs
# it, new packages or not: re-run `make repo` (e.g. daily from cron) well
# within REPO_VALID_DAYS, or clients stop updating from the repository.
#
# Reproducibility: Date is the wall-clock signing time on purpose, not
# SOURCE_DATE_EPOCH (apt-ftparchive ignores that variable, and a Release
# dated at the source's time would expire counted from the commit, not from
# the publish). So Release, InRelease and Release.gpg differ from run to
# run, as the signatures always did (gpg stamps its creation time); what is
# reproducible stays so: the packages, and Packages{,.gz}, which are a pure
# function of the pool and are byte-identical when the pool did not change.
set -eu

usage() {
	echo "usage: REPO_KEY=FILE|ID|generate mkrepo.sh [PACKAGE.deb|PACKAGE.rpm ...]" >&2
	exit 2
}
case ${1:-} in -h|--help) usage ;; esac

. "$(dirname "$0")/lib.sh"
REPO_OUT=${REPO_OUT:-$OUT/repo}
REPO_PACKAGES=${REPO_PACKAGES:-$OUT/packages}
REPO_SUITE=${REPO_SUITE:-bookworm}
REPO_ORIGIN=${REPO_ORIGIN:-mmbatch}
component=main
deb_arch=amd64
# 1..3650 days: past ten years the expiry protects nothing.
valid_days_default=7
if [ -z "${REPO_VALID_DAYS:-}" ]; then
	REPO_VALID_DAYS=$valid_days_default valid_days_note=" (the default)"
else
	[[ "$REPO_VALID_DAYS" =~ ^[1-9][0-9]{0,3}$ ]] && [ "$REPO_VALID_DAYS" -le 3650 ] ||
		repo_die "repo: REPO_VALID_DAYS='$REPO_VALID_DAYS': expected a whole number of days from 1 to 3650 (how long apt accepts the signed Release)"
	valid_days_note=
fi

# The URLs clients get, checked first. The repository may be served over
# http://: apt and dnf check every index and package against our signature.
# The key may not: it is what they check with, and dnf imports whatever key
# gpgkey= hands it (after a prompt that shows only what that key says about
# itself), so whoever sits on an http:// path signs for us. REPO_KEY_URL
# (default REPO_URL/RPM-GPG-KEY-mmbatch) must be https:// or file:// (e.g.
# file:///etc/pki/rpm-gpg/RPM-GPG-KEY-mmbatch, put there by the rollout role
# or the admin, as apt's Signed-By keyring is). Control characters and
# spaces never pass (they would end the line in the client files).
url_chars='[^[:space:][:cntrl:]]+'
if [ -n "${REPO_URL:-}" ]; then
	[[ "$REPO_URL" =~ ^(https?|file)://$url_chars$ ]] ||
		repo_die "repo: REPO_URL=${REPO_URL@Q}: expected an http://, https:// or file:// URL"
fi
if [ -n "${REPO_KEY_URL:-}" ]; then
	[[ "$REPO_KEY_URL" =~ ^(https|file)://$url_chars$ ]] ||
		repo_die "repo: REPO_KEY_URL=${REPO_KEY_URL@Q}: expected an https:// or file:// URL: dnf trusts whatever key it fetches there, and over http:// anyone on the path can swap it"
elif [[ "${REPO_URL:-}" == http://* ]]; then
	repo_die "repo: REPO_URL=${REPO_URL@Q} would have dnf fetch the key over http:// (gpgkey=${REPO_URL%/}/RPM-GPG-KEY-mmbatch), where anyone on the path can swap it: use an https:// REPO_URL, or set REPO_KEY_URL=https://... or file:///etc/pki/rpm-gpg/RPM-GPG-KEY-mmbatch (the key installed there beforehand)"
fi

# Inputs first: the key and every package, before anything is written.
work=$(mktemp -d)
trap 'repo_cleanup; rm -rf "$work"' EXIT
repo_key_init

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ] && [ -n "${BUILD:-}" ]; then
	# shellcheck source=../kbuild/identity.sh
	. "$TOP/tools/kbuild/identity.sh"
	bid_get "$BUILD" PACKAGED_IMAGE_HASH >/dev/null || exit 1
	for k in $BID_PACKAGE_KEYS; do
		[ "$k" != PACKAGED_IMAGE_HASH ] || continue
		if p=$(bid_get "$BUILD" "$k" 2>/dev/null); then pkgs+=("$p"); fi
	done
	repo_note "repo: the ${#pkgs[@]} packages of $BUILD"
elif [ ${#pkgs[@]} -eq 0 ]; then
	[ -d "$REPO_PACKAGES" ] || repo_die "repo: no $REPO_PACKAGES: run 'make packages' first"
	mapfile -t pkgs < <(find "$REPO_PACKAGES" -maxdepth 1 -type f \( -name '*.deb' -o -name '*.rpm' \) | sort)
	[ ${#pkgs[@]} -gt 0 ] || repo_die "repo: no .deb or .rpm in $REPO_PACKAGES: run 'make packages' first"
fi
debs=() rpms=()
for p in "${pkgs[@]}"; do
	[ -f "$p" ] || repo_die "repo: no such package '$p'"
	case $p in
		*.deb) dpkg-deb -f "$p" Package >/dev/null 2>&1 || repo_die "repo: $p: not a readable .deb"
			debs+=("$p") ;;
		*.rpm) rpm -qp --nosignature --nodigest "$p" >/dev/null 2>&1 || repo_die "repo: $p: not a readable .rpm"
			rpms+=("$p") ;;
		*) repo_die "repo: '$p' is neither .deb nor .rpm" ;;
	esac
done

if [ -z "${REPO_URL:-}" ]; then
	REPO_URL=file://$(realpath -m "$REPO_OUT")
	repo_note "repo: REPO_URL not set: client files point at $REPO_URL (set REPO_URL=https://... for a published repo)"
	[[ "$REPO_URL" =~ ^file://$url_chars$ ]] ||
		repo_die "repo: REPO_OUT=${REPO_OUT@Q}: its path has a space or a control character, which no client file can name: set REPO_URL"
fi
REPO_URL=${REPO_URL%/}
REPO_KEY_URL=${REPO_KEY_URL:-$REPO_URL/RPM-GPG-KEY-mmbatch}
mkdir -p "$REPO_OUT"

# is_new SRC DEST KIND: 0 when DEST must be (re)written from SRC, 1 when
# DEST already holds SRC; dies when DEST is a different build of the same
# name (unless REPO_REPLACE=1). KIND deb: file bytes; rpm: header+payload
# digests (signing changes neither).
is_new() {
	local src=$1 dest=$2 a b
	[ -e "$dest" ] || return 0
	if [ "$3" = deb ]; then
		cmp -s "$src" "$dest" && return 1
	else
		a=$(rpm -qp --nosignature --nodigest --qf '%{SHA256HEADER} %{PAYLOADDIGEST}' "$src" 2>/dev/null)
		b=$(rpm -qp --nosignature --nodigest --qf '%{SHA256HEADER} %{PAYLOADDIGEST}' "$dest" 2>/dev/null)
		[ "$a" = "$b" ] && return 1
	fi
	[ "${REPO_REPLACE:-0}" = 1 ] ||
		repo_die "repo: $dest is already published with other content than $src (same name and version): bump the package revision, or REPO_REPLACE=1"
	repo_note "repo: REPO_REPLACE=1: replacing $(basename "$dest")"
	return 0
}

# sign_detached FILE OUT [--armor] / sign_clear FILE OUT: gpg signatures,
# written beside and renamed into place.
sign_detached() {
	repo_gpg --yes --local-user "$REPO_KEY_FPR" --digest-algo SHA256 --detach-sign "${@:3}" -o "$2.tmp" "$1"
	mv -f "$2.tmp" "$2"
}
sign_clear() {
	repo_gpg --yes --local-user "$REPO_KEY_FPR" --digest-algo SHA256 --clearsign -o "$2.tmp" "$1"
	mv -f "$2.tmp" "$2"
}

# plan_deb: the .debs not yet in the pool into deb_new (dies on a conflict).
deb_new=()
plan_deb() {
	local p
	for p in ${debs[@]+"${debs[@]}"}; do
		if is_new "$p" "$REPO_OUT/deb/pool/$component/$(basename "$p")" deb; then deb_new+=("$p"); fi
	done
}

publish_deb() {
	local root=$REPO_OUT/deb pool=$REPO_OUT/deb/pool/$component p
	mkdir -p "$pool"
	for p in ${deb_new[@]+"${deb_new[@]}"}; do
		cp "$p" "$pool/.$(basename "$p").tmp"
		mv -f "$pool/.$(basename "$p").tmp" "$pool/$(basename "$p")"
	done
	# The whole dists/ tree is made aside and swapped in, signatures included.
	local new=$root/.dists.new dist
	rm -rf "$new"
	dist=$new/$REPO_SUITE
	mkdir -p "$dist/$component/binary-$deb_arch"
	(cd "$root" && apt-ftparchive packages "pool/$component") >"$dist/$component/binary-$deb_arch/Packages" 2>"$work/ftparchive.err" || {
		cat "$work/ftparchive.err" >&2
		repo_die "repo: apt-ftparchive packages failed on $pool"
	}
	gzip -9nc "$dist/$component/binary-$deb_arch/Packages" >"$dist/$component/binary-$deb_arch/Packages.gz"
	(cd "$dist" && apt-ftparchive \
		-o APT::FTPArchive::Release::Origin="$REPO_ORIGIN" \
		-o APT::FTPArchive::Release::Label="$REPO_ORIGIN" \
		-o APT::FTPArchive::Release::Suite="$REPO_SUITE" \
		-o APT::FTPArchive::Release::Codename="$REPO_SUITE" \
		-o APT::FTPArchive::Release::Architectures="$deb_arch" \
		-o APT::FTPArchive::Release::Components="$component" \
		-o APT::FTPArchive::Release::Description="mmbatch kernels and tools" \
		-o APT::FTPArchive::Release::ValidTime=$((REPO_VALID_DAYS * 86400)) \
		release .) >"$work/Release"
	# Read back: Date and Valid-Until, REPO_VALID_DAYS apart.
	local date valid_until
	date=$(sed -n 's/^Date: //p' "$work/Release")
	valid_until=$(sed -n 's/^Valid-Until: //p' "$work/Release")
	[ -n "$date" ] && [ -n "$valid_until" ] ||
		repo_die "repo: apt-ftparchive wrote no Date or no Valid-Until (Date: '$date', Valid-Until: '$valid_until')"
	[ $(($(date -u -d "$valid_until" +%s) - $(date -u -d "$date" +%s))) -eq $((REPO_VALID_DAYS * 86400)) ] ||
		repo_die "repo: Release: Valid-Until '$valid_until' is not Date '$date' + $REPO_VALID_DAYS days"
	mv "$work/Release" "$dist/Release"
	sign_clear "$dist/Release" "$dist/InRelease"
	sign_detached "$dist/Release" "$dist/Release.gpg" --armor
	mkdir -p "$root/dists"
	rm -rf "$root/dists.old"
	[ ! -d "$root/dists/$REPO_SUITE" ] || mv "$root/dists/$REPO_SUITE" "$root/dists.old"
	mv "$dist" "$root/dists/$REPO_SUITE"
	rm -rf "$root/dists.old" "$new"
	repo_note "repo: apt: ${#deb_new[@]} new of ${#debs[@]} .deb, $(grep -c '^Package: ' "$root/dists/$REPO_SUITE/$component/binary-$deb_arch/Packages") in the index, signed (InRelease, Release.gpg), valid until $valid_until (REPO_VALID_DAYS=$REPO_VALID_DAYS$valid_days_note): publish again before then"
}

# rpm_signed_by_us RPM: its header signature was made by REPO_KEY.
rpm_signed_by_us() {
	local sig id
	sig=$(rpm -qp --nosignature --nodigest --qf '%{RSAHEADER:pgpsig}' "$1" 2>/dev/null)
	[[ "$sig" =~ Key\ ID\ ([0-9a-fA-F]{16}) ]] || return 1
	id=${BASH_REMATCH[1]^^}
	[[ " $REPO_KEY_IDS " == *" $id "* ]]
}

# sign_rpm: the RPMs not yet published (or signed by another key) copied
# into $work and signed there, into tosign (dies on a conflict).
tosign=()
sign_rpm() {
	local dir=$REPO_OUT/rpm p dest
	for p in ${rpms[@]+"${rpms[@]}"}; do
		dest=$dir/$(basename "$p")
		if is_new "$p" "$dest" rpm; then
			cp "$p" "$work/$(basename "$p")"
			tosign+=("$work/$(basename "$p")")
		elif ! rpm_signed_by_us "$dest"; then
			# Same package, signed by another key (a new REPO_KEY): re-sign.
			cp "$dest" "$work/$(basename "$p")"
			tosign+=("$work/$(basename "$p")")
		fi
	done
	if [ ${#tosign[@]} -gt 0 ]; then
		# Debian's rpm names /usr/bin/gpg2, which bookworm does not ship.
		rpmsign --define "__gpg $(command -v gpg)" --define "_gpg_sign_cmd_extra_args --batch --no-tty" \
			--define "_gpg_name $REPO_KEY_FPR" --define "_gpg_path $GNUPGHOME" \
			--define "_gpg_digest_algo sha256" --addsign "${tosign[@]}" >"$work/rpmsign.log" 2>&1 || {
			cat "$work/rpmsign.log" >&2
			repo_die "repo: rpmsign failed (log above)"
		}
		for p in "${tosign[@]}"; do
			rpm_signed_by_us "$p" || repo_die "repo: rpmsign left $(basename "$p") without our signature"
		done
	fi
}

publish_rpm() {
	local dir=$REPO_OUT/rpm p n
	mkdir -p "$dir"
	for p in ${tosign[@]+"${tosign[@]}"}; do
		mv -f "$p" "$dir/$(basename "$p")"
	done
	# Existing metadata: --update reuses the entries of unchanged files.
	local update=()
	[ ! -f "$dir/repodata/repomd.xml" ] || update=(--update)
	createrepo_c --quiet ${update[@]+"${update[@]}"} --general-compress-type gz "$dir" >"$work/createrepo.log" 2>&1 || {
		cat "$work/createrepo.log" >&2
		repo_die "repo: createrepo_c failed on $dir (log above)"
	}
	sign_detached "$dir/repodata/repomd.xml" "$dir/repodata/repomd.xml.asc" --armor
	n=$(find "$dir" -maxdepth 1 -name '*.rpm' | wc -l)
	repo_note "repo: yum: ${#tosign[@]} signed now, $n RPMs in $dir, repomd.xml.asc written"
}

write_clients() {
	repo_gpg --export "$REPO_KEY_FPR" >"$work/keyring.gpg"
	repo_gpg --armor --export "$REPO_KEY_FPR" >"$work/RPM-GPG-KEY-mmbatch"
	[ -s "$work/keyring.gpg" ] || repo_die "repo: gpg exported no public key for $REPO_KEY_FPR"
	cat >"$work/mmbatch.sources" <<-EOF
		# mmbatch kernels and tools. Install the key first (fetched over
		# https:// or copied, never over plain http://: it is what apt trusts):
		#   install -Dm0644 mmbatch-archive-keyring.gpg /etc/apt/keyrings/mmbatch-archive-keyring.gpg
		Types: deb
		URIs: $REPO_URL/deb
		Suites: $REPO_SUITE
		Components: $component
		Architectures: $deb_arch
		Signed-By: /etc/apt/keyrings/mmbatch-archive-keyring.gpg
	EOF
	cat >"$work/mmbatch.repo" <<-EOF
		# mmbatch kernels and tools: packages and metadata both signed. A
		# repository dnf cannot verify is an error, not skipped.
		[mmbatch]
		name=mmbatch kernels and tools
		baseurl=$REPO_URL/rpm
		enabled=1
		gpgcheck=1
		repo_gpgcheck=1
		skip_if_unavailable=False
		gpgkey=$REPO_KEY_URL
	EOF
	local f
	for f in keyring.gpg:mmbatch-archive-keyring.gpg RPM-GPG-KEY-mmbatch mmbatch.sources mmbatch.repo; do
		chmod 0644 "$work/${f%%:*}"
		mv -f "$work/${f%%:*}" "$REPO_OUT/${f##*:}"
	done
}

t0=$SECONDS
# Every check and every signature before the first write to REPO_OUT.
plan_deb
sign_rpm
# The public key goes out first: a client that fetches the new signatures
# finds the key that made them.
write_clients
# The apt Release expires: every run signs a fresh one (the Packages index,
# made from the unchanged pool, stays byte for byte the same). The yum
# metadata has no expiry: without new RPMs it keeps its signed index as it is.
publish_deb
if [ ${#rpms[@]} -gt 0 ] || [ ! -d "$REPO_OUT/rpm/repodata" ]; then publish_rpm; fi
repo_note "repo: $REPO_OUT ready in $((SECONDS - t0)) s (key $REPO_KEY_FPR, clients: mmbatch.sources, mmbatch.repo)"
echo "$REPO_OUT"
