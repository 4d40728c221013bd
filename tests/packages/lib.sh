# shellcheck shell=bash
# Shared setup of the package tests (tests/packages/*_test.sh). Sourced.
# The assertions are tests/lib/assert.sh's; the builds come as identity
# files (tools/kbuild/identity.sh), read by path with bid_get.
#   pk_get BUILD KEY    KEY of the identity file BUILD (fails naming both)
#   pk_packages BUILD   every package file BUILD records, one a line
#   pk_kver DEB         the kernel release of an image DEB (its Package name)
#   deb_list DEB        installed paths ("/x", symlinks as "/x -> target")
# Reads: TOP, OUT.

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
# shellcheck source=../../tools/kbuild/identity.sh
. "$TOP/tools/kbuild/identity.sh"

pk_get() { bid_get "$1" "$2"; }
pk_packages() {
	local k
	for k in $BID_PACKAGE_KEYS; do
		[ "$k" = PACKAGED_IMAGE_HASH ] || (bid_get "$1" "$k" 2>/dev/null) || true
	done
}
pk_kver() { dpkg-deb -f "$1" Package | sed 's/^linux-image-//'; }
deb_list() { dpkg-deb -c "$1" | awk '{ $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +\./, ""); print }' | sed 's|/$||'; }
