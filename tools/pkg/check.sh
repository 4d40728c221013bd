#!/bin/bash
# The package test stage and the lint target.
#   check.sh all    check-packages: for each base in PKG_CHECK_BASES
#                   (default "6.12 6.1"), `make packages FLAVOR=guest`
#                   (the kernel builds are reused when up to date), then
#                   lint every package, content checks, a broken package
#                   that the content checks must reject, RPM scriptlets and
#                   payload, and the chroot install/purge of the image DEBs
#                   and the mmbatchd DEB (tests/packages/*_test.sh).
#   check.sh lint   lint the packages of the current BASE/FLAVOR knobs.
# Prints each step with its time; exit 1 when any step failed.
# Reads: TOP, OUT, MAKE, PKG_CHECK_BASES, PKG_OUT, the kbuild knobs.
set -eu

usage() { echo "usage: check.sh all|lint" >&2; exit 2; }
[ $# -eq 1 ] || usage

here=$(dirname "$0")
. "$here/lib.sh"
tests=$TOP/tests/packages
failed=()

# manifest_for BASE FLAVOR: the kernel paths manifest of that build.
manifest_for() {
	local rel
	rel=$(BASE=$1 FLAVOR=$2 bash -c '. "$TOP/tools/kbuild/lib.sh"; kb_init >/dev/null; echo "$KB_RELEASE"') ||
		pkg_die "check: cannot derive the kernel release of BASE=$1 FLAVOR=$2"
	echo "$PKG_OUT/kernel-$rel.paths"
}

# step NAME CMD...: run CMD, print its time, remember a failure.
step() {
	local name=$1 t0=$SECONDS rc=0
	shift
	echo "--> $name"
	"$@" || rc=$?
	if [ $rc -eq 0 ]; then
		echo "--> $name: ok in $((SECONDS - t0)) s"
	else
		echo "--> $name: FAILED (exit $rc) in $((SECONDS - t0)) s"
		failed+=("$name")
	fi
}

# paths_of MANIFEST...: every package path listed.
paths_of() { sed 's/^[A-Z_]*=//' "$@"; }

# broken_image_test MANIFEST: an image DEB without its vmlinuz must fail the
# content checks (the checks can fail).
broken_image_test() {
	local work rc=0 image
	work=$(mktemp -d)
	image=$(sed -n 's/^IMAGE_DEB=//p' "$1")
	dpkg-deb -R "$image" "$work/pkg"
	rm -f "$work/pkg/boot/vmlinuz-"*
	mkdir "$work/out"
	dpkg-deb --root-owner-group -Zgzip -b "$work/pkg" "$work/out/$(basename "$image")" >/dev/null
	sed "s|^IMAGE_DEB=.*|IMAGE_DEB=$work/out/$(basename "$image")|" "$1" >"$work/broken.paths"
	"$tests/contents_test.sh" "$work/broken.paths" >"$work/log" 2>&1 || rc=$?
	grep -E '^  FAIL|: [0-9]+ passed' "$work/log" || true
	rm -rf "$work"
	if [ $rc -eq 0 ]; then
		echo "broken image DEB (no vmlinuz): expected contents_test to fail, it passed"
		return 1
	fi
	echo "broken image DEB (no vmlinuz): contents_test failed as expected (exit $rc)"
}

case $1 in
lint)
	m=$(manifest_for "${BASE:-6.12}" "${FLAVOR:-cloud}")
	[ -r "$m" ] || pkg_die "check: no $m: run 'make packages' first"
	mapfile -t pkgs < <(paths_of "$m")
	[ ! -r "$PKG_OUT/mmbatchd.paths" ] || mapfile -t -O ${#pkgs[@]} pkgs < <(paths_of "$PKG_OUT/mmbatchd.paths")
	"$here/lint.sh" "${pkgs[@]}"
	;;
all)
	manifests=() images=()
	for base in ${PKG_CHECK_BASES:-6.12 6.1}; do
		nfailed=${#failed[@]}
		step "make packages BASE=$base FLAVOR=guest" \
			"${MAKE:-make}" --no-print-directory -C "$TOP" packages BASE="$base" FLAVOR=guest
		# A failed build leaves no fresh manifest: test nothing stale.
		[ ${#failed[@]} -eq "$nfailed" ] || continue
		m=$(manifest_for "$base" guest)
		manifests+=("$m")
		images+=("$(sed -n 's/^IMAGE_DEB=//p' "$m")")
	done
	[ ${#manifests[@]} -gt 0 ] || pkg_die "check: no package was built"
	mapfile -t pkgs < <(paths_of "${manifests[@]}" "$PKG_OUT/mmbatchd.paths")
	step "lint (lintian + rpmlint, ${#pkgs[@]} packages)" "$here/lint.sh" "${pkgs[@]}"
	first=1
	for m in "${manifests[@]}"; do
		if [ $first = 1 ]; then
			step "contents $(basename "$m") + mmbatchd" "$tests/contents_test.sh" "$m" "$PKG_OUT/mmbatchd.paths"
			step "contents test rejects a broken image DEB" broken_image_test "$m"
			first=0
		else
			step "contents $(basename "$m")" "$tests/contents_test.sh" "$m"
		fi
		step "RPM scriptlets and payload $(basename "$m")" "$tests/rpm_test.sh" "$m"
	done
	step "chroot install/purge (dracut) of ${#images[@]} image DEBs + mmbatchd" \
		"$tests/chroot_test.sh" "$(sed -n 's/^MMBATCHD_DEB=//p' "$PKG_OUT/mmbatchd.paths")" "${images[@]}"
	if [ ${#failed[@]} -gt 0 ]; then
		echo "check-packages: FAILED: ${failed[*]}"
		exit 1
	fi
	echo "check-packages: all steps passed"
	;;
*) usage ;;
esac
