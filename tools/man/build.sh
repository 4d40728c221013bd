#!/bin/bash
# Builds one man page: docs/man/NAME.SECTION.scd through scdoc(1) into OUT
# (roff; the packages gzip it). Before scdoc, the source's placeholders are
# filled from the tree, so that the pages cannot drift from it:
#   @VERSION@       the package version (specs/mmbatchd/VERSION)
#   @KEYS_TABLE@    (a line of its own) the sysctl and sysfs allowlists as a
#                   table, from `$MMBATCHD --list-keys` (KEY<TAB>FILE<TAB>why
#                   <TAB>values)
#   @PROFILES@      (a line of its own) every configs/profiles/*.yaml: its
#                   opening comment as text, then the file as a literal block
# Any other @WORD@ left over is an error. The date is SOURCE_DATE_EPOCH
# (default: the repo's last commit), so rebuilds are byte-identical.
# Reads: TOP, MMBATCHD (required for @KEYS_TABLE@), MB_PKG_VERSION (default:
# specs/mmbatchd/VERSION), SOURCE_DATE_EPOCH.
set -eu

usage() { echo "usage: MMBATCHD=BIN build.sh SOURCE.scd OUT" >&2; exit 2; }
[ $# -eq 2 ] || usage
src=$1 out=$2
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
[ -r "$src" ] || { echo "ERROR: man: cannot read '$src'" >&2; exit 2; }
command -v scdoc >/dev/null || { echo "ERROR: man: scdoc not found (make deps-man)" >&2; exit 1; }
version=${MB_PKG_VERSION:-$(tr -d '[:space:]' <"$TOP/specs/mmbatchd/VERSION")}
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$TOP" log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH LC_ALL=C

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# scdoc_escape: stdin with scdoc's markup characters made literal.
scdoc_escape() { sed 's/[\\*_`]/\\&/g'; }

# keys_table: the allowlist as an scdoc table.
keys_table() {
	[ -n "${MMBATCHD:-}" ] && [ -x "$MMBATCHD" ] ||
		{ echo "ERROR: man: $src needs MMBATCHD (the daemon binary) for @KEYS_TABLE@" >&2; return 1; }
	"$MMBATCHD" --list-keys >"$tmp/keys"
	[ -s "$tmp/keys" ] || { echo "ERROR: man: '$MMBATCHD --list-keys' printed nothing" >&2; return 1; }
	printf '|[ *key*\n:< *values*\n:< *why a profile may set it*\n'
	cut -f1,3,4 "$tmp/keys" | scdoc_escape | awk -F'\t' '{ v = $3; gsub(/\|/, " | ", v); printf "|  *%s*\n:  %s\n:  %s\n", $1, v, $2 }'
}

# profiles: each shipped profile, its comment and its text.
profiles() {
	local f n=0
	for f in "$TOP"/configs/profiles/*.yaml; do
		n=$((n + 1))
		printf '## %s\n\n' "$(basename "$f" .yaml | scdoc_escape)"
		# The opening comment block, as a paragraph.
		awk '/^#/ { sub(/^# ?/, ""); print; next } { exit }' "$f" | scdoc_escape
		printf '\n_/usr/share/mmbatch/profiles/%s_:\n\n```\n' "$(basename "$f" | scdoc_escape)"
		# The rest of the file verbatim (its opening comment is above).
		awk 'body || !/^#/ { body = 1; print }' "$f" | sed '1{/^$/d}; s/\\/\\\\/g'
		printf '```\n\n'
	done
	[ $n -gt 0 ] || { echo "ERROR: man: no configs/profiles/*.yaml" >&2; return 1; }
}

cp "$src" "$tmp/page.scd"
if grep -qx '@KEYS_TABLE@' "$tmp/page.scd"; then
	keys_table >"$tmp/keys.scd"
	sed -i -e "/^@KEYS_TABLE@\$/{r $tmp/keys.scd" -e 'd}' "$tmp/page.scd"
fi
if grep -qx '@PROFILES@' "$tmp/page.scd"; then
	profiles >"$tmp/profiles.scd"
	sed -i -e "/^@PROFILES@\$/{r $tmp/profiles.scd" -e 'd}' "$tmp/page.scd"
fi
sed -i "s/@VERSION@/$version/g" "$tmp/page.scd"
if left=$(grep -no '@[A-Z_][A-Z_]*@' "$tmp/page.scd"); then
	echo "ERROR: man: $src: unknown placeholder(s): $(echo "$left" | paste -sd' ')" >&2
	exit 1
fi
scdoc <"$tmp/page.scd" >"$tmp/page.roff"
mkdir -p "$(dirname "$out")"
mv -f "$tmp/page.roff" "$out"
chmod 0644 "$out"
