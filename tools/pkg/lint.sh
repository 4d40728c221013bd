#!/bin/bash
# Lints packages: lintian on every .deb, rpmlint on every .rpm, each with its
# waiver file (every waiver carries its reason on the same line):
#   specs/lint/lintian.waivers   TAG  # reason
#   specs/lint/rpmlint.waivers   addFilter("REGEX")  # reason   (rpmlintrc)
# Prints the linters' findings and one summary line per linter; exit 1 when
# either reports an error after the waivers. Warnings are shown, not fatal.
#   lint.sh PACKAGE.deb|PACKAGE.rpm...
#   BUILD=FILE lint.sh [--from-knobs]   every package the build identity FILE
#                      records (tools/pkg/packages.sh); --from-knobs: BUILD
#                      unset, the build the kbuild knobs name (make packages-lint)
# Reads: BUILD, LINT_LINTIAN_WAIVERS, LINT_RPMLINT_WAIVERS (other waiver files).
set -eu

usage() {
	echo "usage: lint.sh PACKAGE.deb|PACKAGE.rpm..." >&2
	echo "       BUILD=out/build/<name>/mmbatch-build.env lint.sh [--from-knobs]" >&2
	exit 2
}

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ $# -eq 0 ] || { [ $# -eq 1 ] && [ "$1" = --from-knobs ]; }; then
	. "$(dirname "$0")/lib.sh"
	if [ -z "${BUILD:-}" ]; then
		[ $# -eq 1 ] || usage
		BUILD=$(pkg_build_of_knobs) || exit 1
		pkg_note "lint: BUILD not set: the build of the knobs (BASE=${BASE:-6.12} FLAVOR=${FLAVOR:-cloud} ...): $BUILD"
	fi
	bid_get "$BUILD" PACKAGED_IMAGE_HASH >/dev/null || exit 1
	mapfile -t pkgs < <(pkg_packages_of "$BUILD")
	set -- "${pkgs[@]}"
fi
lintian_waivers=${LINT_LINTIAN_WAIVERS:-$TOP/specs/lint/lintian.waivers}
rpmlint_waivers=${LINT_RPMLINT_WAIVERS:-$TOP/specs/lint/rpmlint.waivers}
debs=() rpms=()
for f in "$@"; do
	[ -f "$f" ] || { echo "ERROR: lint: no such package '$f'" >&2; exit 2; }
	case $f in
		*.deb) debs+=("$f") ;;
		*.rpm) rpms+=("$f") ;;
		*) echo "ERROR: lint: '$f' is neither .deb nor .rpm" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check_waivers FILE REGEX: every non-comment line matches REGEX and ends in
# a '# reason'; prints the waived items (the first field) one a line.
check_waivers() {
	local file=$1 n=0 line
	[ -r "$file" ] || { echo "ERROR: lint: cannot read waiver file $file" >&2; exit 2; }
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in ''|'#'*) continue ;; esac
		if ! [[ "$line" =~ $2[[:space:]]+#[[:space:]]*[^[:space:]] ]]; then
			echo "ERROR: lint: $file:$n: expected a waiver and '# reason' on the line" >&2
			exit 2
		fi
		echo "${line%%[[:space:]]*}"
	done <"$file"
}

errors=0
if [ ${#debs[@]} -gt 0 ]; then
	check_waivers "$lintian_waivers" '^[a-z0-9][a-z0-9.+-]*' >"$tmp/lintian.tags"
	# lintian's own exit status also counts waived errors: count the lines.
	lintian --tag-display-limit 0 --suppress-tags-from-file "$tmp/lintian.tags" "${debs[@]}" >"$tmp/lintian.out" 2>&1 || true
	cat "$tmp/lintian.out"
	e=$(grep -c '^E: ' "$tmp/lintian.out" || true)
	w=$(grep -c '^W: ' "$tmp/lintian.out" || true)
	echo "lint: lintian: ${#debs[@]} packages, $e errors, $w warnings, $(wc -l <"$tmp/lintian.tags") tags waived (${lintian_waivers#"$TOP"/})"
	errors=$((errors + e))
fi
if [ ${#rpms[@]} -gt 0 ]; then
	# One waiver file for all our RPMs: a filter unused by this set is fine.
	check_waivers "$rpmlint_waivers" '^addFilter\(r?"[^"]+"\)' >/dev/null
	rpmlint --ignore-unused-rpmlintrc -r "$rpmlint_waivers" "${rpms[@]}" >"$tmp/rpmlint.out" 2>&1 || true
	grep -E '^[^ ]+: [EW]: ' "$tmp/rpmlint.out" || true
	summary=$(grep -E 'packages and [0-9]+ specfiles checked' "$tmp/rpmlint.out" || true)
	if ! [[ "$summary" =~ ([0-9]+)\ errors,\ ([0-9]+)\ warnings ]]; then
		cat "$tmp/rpmlint.out" >&2
		echo "ERROR: lint: rpmlint printed no summary (output above)" >&2
		exit 1
	fi
	e=${BASH_REMATCH[1]}
	echo "lint: rpmlint: ${#rpms[@]} packages, $e errors, ${BASH_REMATCH[2]} warnings (${rpmlint_waivers#"$TOP"/})"
	errors=$((errors + e))
fi
[ "$errors" -eq 0 ] || { echo "lint: FAILED: $errors errors" >&2; exit 1; }
