# shellcheck shell=bash
# The build identity: ONE file per kernel build, <build dir>/mmbatch-build.env
# (e.g. out/build/6.12-guest/mmbatch-build.env), that says what the build is
# and where its outputs are. Every later stage, test and benchmark reads a
# build through this file, by path (BUILD=FILE), instead of re-deriving the
# knobs or parsing a script's last output line. Sourced, not run.
#
# Format: "KEY=VALUE" lines, each VALUE quoted by printf %q (so the file is
# also a bash script that sets those variables), after one comment line.
# Written whole, through a temp file and rename, by:
#   config.sh   (kb_write_identity)  what the build is:
#     IDENTITY_VERSION  1
#     KERNELRELEASE KVERSION BASE FLAVOR VARIANT NR_CPUS (of the .config)
#     DEBUG             1: the flavor's debug variant (DEBUG=1,
#                       configs/kernel/debug; release ends in +debug), else 0
#     SERIES_VERSION SERIES_HASH
#     KNOB_SRC KNOB_PATCHES KNOB_NR_CPUS KNOB_LOCALVERSION   the knobs given
#     EXTRA_PATCHES_HASH FRAGMENTS_HASH SIGN_FPR   (empty when not used)
#     TREE TREE_HASH BUILD_DIR CONFIG CONFIG_HASH (sha256 of the .config)
#     SOURCE_DATE_EPOCH KBUILD_BUILD_TIMESTAMP KBUILD_BUILD_USER KBUILD_BUILD_HOST
#   build.sh    (bid_update)  IMAGE (the bzImage) IMAGE_HASH
#   tools/pkg/packages.sh (bid_update)  the package paths:
#     IMAGE_DEB HEADERS_DEB DBG_DEB META_DEB KERNEL_RPM DEVEL_RPM
#     DEBUGINFO_RPM MMBATCHD_DEB MMBATCHD_RPM, and PACKAGED_IMAGE_HASH (the
#     IMAGE_HASH they were made from)
# A new .config (CONFIG_HASH) or tree drops IMAGE and the package keys; a new
# image (IMAGE_HASH) drops the package keys: the file never names outputs
# of an older build.
#
#   kb_write_identity FILE       (needs kb_init's KB_* variables)
#   bid_update FILE KEY=VALUE... set keys, keep the others
#   bid_unset FILE KEY...        remove those keys (outputs no longer valid)
#   bid_get FILE KEY             print KEY's value; fails naming FILE and KEY
#                                when the file or the key is missing or empty,
#                                or for a package key when PACKAGED_IMAGE_HASH
#                                is not IMAGE_HASH
#   bid_check FILE               FILE is an identity file (one line error)

# Keys that name outputs, dropped when what they came from changes.
BID_IMAGE_KEYS="IMAGE IMAGE_HASH"
BID_PACKAGE_KEYS="IMAGE_DEB HEADERS_DEB DBG_DEB META_DEB KERNEL_RPM DEVEL_RPM DEBUGINFO_RPM MMBATCHD_DEB MMBATCHD_RPM PACKAGED_IMAGE_HASH"

bid_die() { echo "ERROR: $*" >&2; exit 1; }

bid_check() {
	[ -n "$1" ] || bid_die "build identity: no file given (BUILD=out/build/<name>/mmbatch-build.env)"
	[ -f "$1" ] && [ -r "$1" ] || bid_die "build identity $1: no such file (build it first, e.g. make kernel BASE=6.12 FLAVOR=guest)"
	grep -qx 'IDENTITY_VERSION=1' "$1" || bid_die "build identity $1: not an identity file (no IDENTITY_VERSION=1 line)"
}

# _bid_read FILE: "KEY<TAB>VALUE" lines (values unquoted by bash itself).
_bid_read() {
	# shellcheck disable=SC1090 # the file is ours, written by bid_write
	(
		set -e
		keys=$(sed -n 's/^\([A-Z][A-Z0-9_]*\)=.*/\1/p' "$1")
		. "$1"
		for k in $keys; do printf '%s\t%s\n' "$k" "${!k}"; done
	)
}

bid_get() {
	local v
	bid_check "$1"
	v=$(_bid_read "$1" | awk -F'\t' -v k="$2" '$1 == k { sub(/^[^\t]*\t/, ""); print; exit }')
	[ -n "$v" ] || bid_die "build identity $1: $2 is not set$(case " $BID_IMAGE_KEYS " in *" $2 "*) echo " (not built yet: make kernel with the same knobs)" ;; esac)$(case " $BID_PACKAGE_KEYS " in *" $2 "*) echo " (not packaged yet: BUILD=$1 tools/pkg/packages.sh, or make packages with the same knobs)" ;; esac)"
	# A package of another image than the build's is never handed out.
	case " $BID_PACKAGE_KEYS " in *" $2 "*)
		[ "$2" = PACKAGED_IMAGE_HASH ] ||
			[ "$(_bid_read "$1" | awk -F'\t' '$1 == "PACKAGED_IMAGE_HASH" { p = $2 } $1 == "IMAGE_HASH" { i = $2 } END { print (p != "" && p == i) }')" = 1 ] ||
			bid_die "build identity $1: $2 is of another image than IMAGE_HASH (PACKAGED_IMAGE_HASH differs): package it again (BUILD=$1 tools/pkg/packages.sh)"
	esac
	printf '%s\n' "$v"
}

# _bid_write FILE: "KEY<TAB>VALUE" lines on stdin, written whole.
_bid_write() {
	local file=$1 tmp k v
	tmp=$(mktemp "$file.XXXXXX")
	{
		echo "# mmbatch build identity (tools/kbuild/identity.sh): what this build is and where its outputs are"
		while IFS=$'\t' read -r k v; do
			printf '%s=%q\n' "$k" "$v"
		done
	} >"$tmp"
	chmod 0644 "$tmp"
	mv -f "$tmp" "$file"
}

bid_update() {
	local file=$1 kv k old new drop=
	shift
	bid_check "$file"
	old=$(_bid_read "$file")
	new=$old
	for kv in "$@"; do
		k=${kv%%=*}
		[[ "$k" =~ ^[A-Z][A-Z0-9_]*$ ]] && [ "$k" != "$kv" ] || bid_die "bid_update: '$kv': expected KEY=VALUE"
		# A new image makes the packages of the old one stale.
		if [ "$k" = IMAGE_HASH ] && [ "$(printf '%s\n' "$old" | awk -F'\t' '$1 == "IMAGE_HASH" { print $2 }')" != "${kv#*=}" ]; then
			drop=$BID_PACKAGE_KEYS
		fi
		new=$(printf '%s\n' "$new" | awk -F'\t' -v k="$k" '$1 != k')
		new+=$'\n'"$k"$'\t'"${kv#*=}"
	done
	if [ -n "$drop" ]; then
		for k in $drop; do
			case " $* " in *" $k="*) continue ;; esac
			new=$(printf '%s\n' "$new" | awk -F'\t' -v k="$k" '$1 != k')
		done
	fi
	printf '%s\n' "$new" | grep -v '^$' | _bid_write "$file"
}

bid_unset() {
	local file=$1 k new
	shift
	bid_check "$file"
	new=$(_bid_read "$file")
	for k in "$@"; do
		[[ "$k" =~ ^[A-Z][A-Z0-9_]*$ ]] || bid_die "bid_unset: '$k': expected a KEY"
		[ "$k" != IDENTITY_VERSION ] || bid_die "bid_unset: IDENTITY_VERSION stays"
		new=$(printf '%s\n' "$new" | awk -F'\t' -v k="$k" '$1 != k')
	done
	printf '%s\n' "$new" | grep -v '^$' | _bid_write "$file"
}

kb_write_identity() {
	local file=$1 chash keep=
	chash=$(sha256sum <"$KB_BUILD/.config" | cut -c1-64)
	# Outputs recorded for this same config and tree stay valid.
	if [ -f "$file" ] && grep -qx 'IDENTITY_VERSION=1' "$file" &&
		[ "$(bid_get "$file" CONFIG_HASH 2>/dev/null)" = "$chash" ] &&
		[ "$(bid_get "$file" TREE_HASH 2>/dev/null)" = "$KB_TREE_HASH" ] &&
		[ "$(bid_get "$file" KERNELRELEASE 2>/dev/null)" = "$KB_RELEASE" ]; then
		keep=$(_bid_read "$file" | awk -F'\t' -v keys=" $BID_IMAGE_KEYS $BID_PACKAGE_KEYS " 'index(keys, " " $1 " ")')
	fi
	{
		printf '%s\t%s\n' IDENTITY_VERSION 1 KERNELRELEASE "$KB_RELEASE" KVERSION "$KB_KVERSION" \
			BASE "$KB_BASE" FLAVOR "$KB_FLAVOR" VARIANT "$KB_VARIANT${KB_XHASH:+-$KB_XHASH}" \
			DEBUG "$KB_DEBUG" \
			NR_CPUS "$(sed -n 's/^CONFIG_NR_CPUS=//p' "$KB_BUILD/.config")" \
			SERIES_VERSION "$KB_SERIES_VERSION" SERIES_HASH "$KB_SERIES_HASH" \
			KNOB_SRC "${KB_SRC_PATH:-}" KNOB_PATCHES "${PATCHES:-1}" KNOB_NR_CPUS "$KB_NR_CPUS" \
			KNOB_LOCALVERSION "${LOCALVERSION:-}" EXTRA_PATCHES_HASH "$KB_XHASH" \
			FRAGMENTS_HASH "$KB_FHASH" SIGN_FPR "$KB_SIGN_FPR" \
			TREE "$KB_TREE" TREE_HASH "$KB_TREE_HASH" BUILD_DIR "$KB_BUILD" \
			CONFIG "$KB_BUILD/.config" CONFIG_HASH "$chash" \
			SOURCE_DATE_EPOCH "$SOURCE_DATE_EPOCH" KBUILD_BUILD_TIMESTAMP "$KBUILD_BUILD_TIMESTAMP" \
			KBUILD_BUILD_USER "$KBUILD_BUILD_USER" KBUILD_BUILD_HOST "$KBUILD_BUILD_HOST"
		[ -z "$keep" ] || printf '%s\n' "$keep"
	} | _bid_write "$file"
}
