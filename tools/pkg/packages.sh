#!/bin/bash
# Stage 5: every package from ONE kernel build, both formats, into $PKG_OUT
# (default out/packages/): the kernel DEBs and RPMs (stage-kernel.sh, then
# kernel-deb.sh and kernel-rpm.sh from the same staged tree) and, unless
# PKG_MMBATCHD=0, the mmbatchd DEB and RPM (mmbatchd-pkg.sh).
#
# The build is named by its identity file, BUILD=FILE (tools/kbuild/
# identity.sh, e.g. out/build/6.12-guest/mmbatch-build.env), and the package
# paths are written into that same file (bid_update), which is what tests,
# the repositories and the VM harness read:
#   IMAGE_DEB HEADERS_DEB [DBG_DEB] [META_DEB] KERNEL_RPM DEVEL_RPM
#   [DEBUGINFO_RPM] MMBATCHD_DEB MMBATCHD_RPM, and PACKAGED_IMAGE_HASH: the
#   IMAGE_HASH of the image in those packages
# Packages already recorded for this image (PACKAGED_IMAGE_HASH =
# IMAGE_HASH), in $PKG_OUT, and newer than their inputs (the packaging
# scripts and specs, the build's modules; its config report as packaged) are
# not made again ("skipped");
# the same holds for the mmbatchd packages and their inputs
# (mmbatchd-pkg.sh --inputs). Packaging starts by removing the package keys,
# so a failed run leaves none, and records them only when the image is still
# the one IMAGE_HASH names.
# The DEBs and RPMs are made at the same time from the staged tree, with
# the compressors PKG_DEB_CODEC and PKG_RPM_PAYLOAD (lib.sh); each phase
# prints its time and each package its size.
# Prints every package path, one a line, last.
#   BUILD=FILE packages.sh
#   packages.sh --from-knobs   BUILD unset: the build the kbuild knobs name
#                              (BASE FLAVOR NR_CPUS ...), what `make packages`
#                              does; says which on stderr
# Reads: BUILD, PKG_OUT, PKG_STAGE, PKG_MMBATCHD (default 1), PKG_DEB_CODEC,
# PKG_RPM_PAYLOAD, PKG_THREADS, the kbuild knobs
# (only with --from-knobs and no BUILD).
set -eu

usage() {
	echo "usage: BUILD=out/build/<name>/mmbatch-build.env packages.sh [--from-knobs]" >&2
	exit 2
}
from_knobs=0
case $# in
0) ;;
1) [ "$1" = --from-knobs ] || usage; from_knobs=1 ;;
*) usage ;;
esac

here=$(dirname "$0")
. "$here/lib.sh"
# A bad codec knob fails here, before any package key is dropped.
pkg_check_codecs
if [ -z "${BUILD:-}" ] && [ $from_knobs = 1 ]; then
	BUILD=$(pkg_build_of_knobs) || exit 1
	pkg_note "package: BUILD not set: the build of the knobs (BASE=${BASE:-6.12} FLAVOR=${FLAVOR:-cloud} ...): $BUILD"
fi
[ -n "${BUILD:-}" ] ||
	pkg_die "package: BUILD is not set: name the build by its identity file, e.g. BUILD=out/build/6.12-guest/mmbatch-build.env (or make packages BASE=... FLAVOR=...)"
bid_check "$BUILD"
# Builds of this build dir (config.sh, build.sh: exclusive) wait until the
# packages are made and recorded; packaging only reads it.
build_dir=$(bid_get "$BUILD" BUILD_DIR) || exit 1
exec 8>"$build_dir.lock"
if ! flock -n -s 8; then
	pkg_note "package: waiting for lock $build_dir.lock (a build of the same dir runs)"
	flock -s 8
fi
pkg_load_build
export BUILD=$PKG_BUILD
mkdir -p "$PKG_OUT"
PKG_OUT=$(realpath "$PKG_OUT")

# run_into VAR CMD...: CMD's output lines into array VAR; CMD's failure is ours.
list_tmp=$(mktemp)
trap 'rm -f "$list_tmp" "$list_tmp".*' EXIT
run_into() {
	local var=$1
	shift
	"$@" >"$list_tmp" || pkg_die "package: $(basename "$1") failed (see above)"
	mapfile -t "$var" <"$list_tmp"
}

# in_background NAME CMD...: CMD in the background, its output lines to
# $list_tmp.NAME, its stderr to $list_tmp.NAME.err, and "STATUS SECONDS" to
# $list_tmp.NAME.done when it ends.
in_background() {
	local name=$1
	shift
	(
		t=$SECONDS rc=0
		"$@" >"$list_tmp.$name" 2>"$list_tmp.$name.err" || rc=$?
		echo "$rc $((SECONDS - t))" >"$list_tmp.$name.done"
	) &
}

# key_for PATH: the identity key of a package file.
key_for() {
	case $(basename "$1") in
		linux-image-*-dbg_*.deb) echo DBG_DEB ;;
		linux-image-mmbatch-*.deb) echo META_DEB ;;
		linux-image-*.deb) echo IMAGE_DEB ;;
		linux-headers-*.deb) echo HEADERS_DEB ;;
		mmbatch-kernel-*-devel-*.rpm) echo DEVEL_RPM ;;
		mmbatch-kernel-*-debuginfo-*.rpm) echo DEBUGINFO_RPM ;;
		mmbatch-kernel-*.rpm) echo KERNEL_RPM ;;
		mmbatchd_*.deb) echo MMBATCHD_DEB ;;
		mmbatchd-*.rpm) echo MMBATCHD_RPM ;;
		*) pkg_die "package: unexpected package name $1" ;;
	esac
}

# recorded KEY... [-- OPTIONAL_KEY...]: the files the identity records for
# the KEYs, one a line; fails, printing why, when a KEY is not recorded or a
# recorded file is gone or not in $PKG_OUT.
recorded() {
	local k v opt=0
	for k in "$@"; do
		[ "$k" != -- ] || { opt=1; continue; }
		if ! v=$(bid_get "$PKG_BUILD" "$k" 2>/dev/null); then
			[ $opt = 1 ] && continue
			echo "no $k recorded"
			return 1
		fi
		[ -f "$v" ] || { echo "$k $v is gone"; return 1; }
		[ "$(dirname "$v")" = "$PKG_OUT" ] || { echo "$k $v is not in PKG_OUT=$PKG_OUT"; return 1; }
		echo "$v"
	done
}

# oldest FILES: the oldest of FILES (one a line).
oldest() { printf '%s\n' "$1" | xargs -d '\n' ls -1tr -- | head -n 1; }

# newer_input FILE PATH...: why FILE is stale: the first PATH (a file, or a
# file or directory under one) newer than FILE, or nothing.
newer_input() {
	local file=$1 newer
	shift
	newer=$(find "$@" -newer "$file" -print -quit 2>/dev/null || true)
	[ -z "$newer" ] || echo "${newer#"$TOP"/} is newer than $(basename "$file")"
}

# kernel_stale: why the kernel packages of this image must be made (again),
# or nothing when the recorded ones are current.
kernel_stale() {
	local files old why deb rpm made wanted
	if [ "$(bid_get "$PKG_BUILD" PACKAGED_IMAGE_HASH 2>/dev/null || true)" != "$IMAGE_HASH" ]; then
		echo "not packaged from this image yet (PACKAGED_IMAGE_HASH is not IMAGE_HASH)"
		return 0
	fi
	files=$(recorded IMAGE_DEB HEADERS_DEB KERNEL_RPM DEVEL_RPM -- DBG_DEB META_DEB DEBUGINFO_RPM) || {
		echo "$files"
		return 0
	}
	if pkg_is_enabled DEBUG_INFO && ! (bid_get "$PKG_BUILD" DBG_DEB >/dev/null 2>&1); then
		echo "no DBG_DEB recorded for a build with debug info"
		return 0
	fi
	# Another build of the same release (e.g. signed) makes the same file
	# names: the recorded packages must still hold this image.
	deb=$(bid_get "$PKG_BUILD" IMAGE_DEB) rpm=$(bid_get "$PKG_BUILD" KERNEL_RPM)
	[ "$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./boot/vmlinuz-$KERNELRELEASE" | sha256sum | cut -c1-64)" = "$IMAGE_HASH" ] || {
		echo "$(basename "$deb") holds another image than IMAGE_HASH"
		return 0
	}
	[ "$(rpm2cpio "$rpm" | cpio -i --quiet --to-stdout "./lib/modules/$KERNELRELEASE/vmlinuz" | sha256sum | cut -c1-64)" = "$IMAGE_HASH" ] || {
		echo "$(basename "$rpm") holds another image than IMAGE_HASH"
		return 0
	}
	old=$(oldest "$files")
	why=$(newer_input "$old" "$TOP/tools/pkg/lib.sh" "$TOP/tools/pkg/packages.sh" "$TOP/tools/pkg/stage-kernel.sh" \
		"$TOP/tools/pkg/kernel-deb.sh" "$TOP/tools/pkg/kernel-rpm.sh" "$TOP/specs/deb" "$TOP/specs/mmbatch-kernel.spec")
	# Packages made with other compressors than the knobs ask for now.
	if [ -z "$why" ]; then
		made=$(pkg_codecs_of "$deb" "$rpm") wanted=$(pkg_codecs_wanted)
		[ "$made" = "$wanted" ] ||
			why="made with compressors '$made', the knobs ask for '$wanted' (PKG_DEB_CODEC's codec, PKG_RPM_PAYLOAD)"
	fi
	# The .config is in CONFIG_HASH (a new one drops the package keys); the
	# report, rewritten by every config run, by content: the staged copy is
	# what the packages carry.
	[ -n "$why" ] || cmp -s "$BUILD_DIR/config-report.txt" "$PKG_STAGE/$KERNELRELEASE/doc/config-report.txt" ||
		why="$BUILD_DIR/config-report.txt is not the packaged one ($PKG_STAGE/$KERNELRELEASE/doc/)"
	# The modules are not in IMAGE_HASH: a module rebuilt alone counts too.
	[ -n "$why" ] || why=$(find "$BUILD_DIR" -name '*.ko' -newer "$old" -printf "module %P is newer than ${old##*/}\n" -quit)
	echo "$why"
}

# mmbatchd_stale: why the mmbatchd packages must be made (again), or nothing
# when both files mmbatchd-pkg.sh makes are in $PKG_OUT and newer than every
# input (whichever build's packaging made them: they do not depend on it).
mmbatchd_stale() {
	local files f inputs
	files=$("$here/mmbatchd-pkg.sh" --outputs) || { echo "mmbatchd-pkg.sh --outputs failed"; return 0; }
	while IFS= read -r f; do
		[ -f "$f" ] || { echo "no $f yet"; return 0; }
	done <<<"$files"
	inputs=$("$here/mmbatchd-pkg.sh" --inputs 2>/dev/null) || { echo "mmbatchd-pkg.sh --inputs failed"; return 0; }
	mapfile -t inputs <<<"$inputs"
	newer_input "$(oldest "$files")" "${inputs[@]}"
}

# Two runs for the same release would share $PKG_STAGE/<release>/ (staging,
# then both formats read it): the second waits for the first.
mkdir -p "$PKG_STAGE"
exec 9>"$PKG_STAGE/$KERNELRELEASE.lock"
flock 9

t0=$SECONDS
all=()
why=$(kernel_stale)
if [ -z "$why" ]; then
	pkg_note "package: $KERNELRELEASE: skipped, the packages of this image (PACKAGED_IMAGE_HASH = IMAGE_HASH ${IMAGE_HASH:0:16}) are in $PKG_OUT and newer than their inputs"
	mapfile -t all < <(recorded IMAGE_DEB HEADERS_DEB KERNEL_RPM DEVEL_RPM -- DBG_DEB META_DEB DEBUGINFO_RPM)
else
	pkg_note "package: $KERNELRELEASE (base $BASE, series $SERIES_VERSION, flavor $FLAVOR) from $BUILD_DIR: $why"
	# From here on the file names no packages until these are made.
	# shellcheck disable=SC2086 # a list of keys
	bid_unset "$PKG_BUILD" $BID_PACKAGE_KEYS
	debs=() rpms=()
	stage=$("$here/stage-kernel.sh")
	echo "package: staged in $((SECONDS - t0)) s: $(pkg_size "$stage") in $stage" >&2
	staged=$(sha256sum <"$stage/boot/vmlinuz" | cut -c1-64)
	[ "$staged" = "$IMAGE_HASH" ] ||
		pkg_die "package: the staged image $stage/boot/vmlinuz ($staged) is not IMAGE_HASH of $PKG_BUILD ($IMAGE_HASH): the image changed while packaging"
	# Both formats at once from the one staged tree (each only reads it):
	# on N cores each compressor gets its share instead of waiting for
	# the other's single-threaded phases (tar and cpio, file digests).
	t1=$SECONDS
	in_background deb "$here/kernel-deb.sh" "$stage"
	in_background rpm "$here/kernel-rpm.sh" "$stage"
	wait
	read -r deb_rc t_deb <"$list_tmp.deb.done"
	read -r rpm_rc t_rpm <"$list_tmp.rpm.done"
	# Their notes, one format after the other (not interleaved).
	cat "$list_tmp.deb.err" "$list_tmp.rpm.err" >&2
	[ "$deb_rc" -eq 0 ] || pkg_die "package: kernel-deb.sh failed (exit $deb_rc, see above)"
	[ "$rpm_rc" -eq 0 ] || pkg_die "package: kernel-rpm.sh failed (exit $rpm_rc, see above)"
	mapfile -t debs <"$list_tmp.deb"
	mapfile -t rpms <"$list_tmp.rpm"
	[ ${#debs[@]} -ge 2 ] && [ ${#rpms[@]} -ge 2 ] || pkg_die "package: kernel packaging failed (see above)"
	for f in "${debs[@]}" "${rpms[@]}"; do
		echo "package:   $(basename "$f"): $(pkg_size "$f")" >&2
	done
	echo "package: DEBs ($PKG_DEB_CODEC) and RPMs ($PKG_RPM_PAYLOAD) side by side in $((SECONDS - t1)) s (DEBs in $t_deb s, RPMs in $t_rpm s; $PKG_THREADS threads for dpkg-deb)" >&2
	all=("${debs[@]}" "${rpms[@]}")
	now=$(bid_get "$PKG_BUILD" IMAGE_HASH) || exit 1
	[ "$now" = "$IMAGE_HASH" ] ||
		pkg_die "package: $PKG_BUILD: IMAGE_HASH changed while packaging ($IMAGE_HASH -> $now): packages not recorded, run again"
	kv=()
	for p in "${all[@]}"; do kv+=("$(key_for "$p")=$p"); done
	bid_update "$PKG_BUILD" "${kv[@]}" PACKAGED_IMAGE_HASH="$IMAGE_HASH"
fi

if [ "${PKG_MMBATCHD:-1}" = 1 ]; then
	why=$(mmbatchd_stale)
	if [ -z "$why" ]; then
		pkg_note "package: mmbatchd: skipped, its packages are newer than their inputs (mmbatchd-pkg.sh --inputs)"
		mapfile -t tools < <("$here/mmbatchd-pkg.sh" --outputs)
	else
		pkg_note "package: mmbatchd: $why"
		t1=$SECONDS
		tools=()
		# The daemon packages date from the repo, not from this kernel build.
		run_into tools env -u SOURCE_DATE_EPOCH "$here/mmbatchd-pkg.sh"
		[ ${#tools[@]} -eq 2 ] || pkg_die "package: mmbatchd packaging failed (see above)"
		echo "package: mmbatchd DEB+RPM in $((SECONDS - t1)) s: $(for f in "${tools[@]}"; do printf '%s %s; ' "$(basename "$f")" "$(pkg_size "$f")"; done)" >&2
	fi
	kv=()
	for p in "${tools[@]}"; do
		k=$(key_for "$p")
		[ "$(bid_get "$PKG_BUILD" "$k" 2>/dev/null || true)" = "$p" ] || kv+=("$k=$p")
	done
	[ ${#kv[@]} -eq 0 ] || bid_update "$PKG_BUILD" "${kv[@]}"
	all+=("${tools[@]}")
fi

pkg_note "package: ${#all[@]} packages in $((SECONDS - t0)) s, recorded in $PKG_BUILD:"
printf '%s\n' "${all[@]}"
