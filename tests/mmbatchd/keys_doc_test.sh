#!/bin/bash
# The sysctl allowlist is written down twice: in the code (`mmbatchd
# --list-keys`) and in the profile docs (configs/profiles/README.md, "The
# sysctl keys a profile may set"). The two tables must list the same keys
# with the same reasons, in the same order.
# Reads: MMBATCHD, TOP.
. "$(dirname "$0")/lib.sh"

doc=$TOP/configs/profiles/README.md
from_code=$("$MMBATCHD" --list-keys | awk -F'\t' '{ print $1 " | " $3 }')
from_doc=$(sed -n '/^## The sysctl keys a profile may set/,/^## /p' "$doc" |
	sed -n 's/^| `\([^`]*\)` | \(.*\) |$/\1 | \2/p')
n=$(printf '%s\n' "$from_code" | grep -c .)
if [ "$from_code" = "$from_doc" ]; then
	pass "the allowlist in $doc equals mmbatchd --list-keys ($n keys)"
else
	fail "the allowlist in $doc differs from mmbatchd --list-keys (< code, > doc):"
	diff <(printf '%s\n' "$from_code") <(printf '%s\n' "$from_doc") >&2 || true
fi
[ "$n" -ge 40 ] || fail "only $n keys listed (want at least 40)"
