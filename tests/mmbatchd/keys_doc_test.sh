#!/bin/bash
# The sysctl allowlist is written down twice: in the code (`mmbatchd
# --list-keys`) and in the profile docs (configs/profiles/README.md, "The
# sysctl keys a profile may set"). The two tables must list the same keys
# with the same reasons, in the same order.
# Reads: MMBATCHD, TOP.
. "$(dirname "$0")/lib.sh"

doc=$TOP/configs/profiles/README.md
from_code=$("$MMBATCHD" --list-keys | awk -F'\t' '{ print $1 " | " $3 }')
# shellcheck disable=SC2016 # the backquotes are the table's
from_doc=$(sed -n '/^## The sysctl keys a profile may set/,/^## /p' "$doc" |
	sed -n 's/^| `\([^`]*\)` | \(.*\) |$/\1 | \2/p')
n=$(printf '%s\n' "$from_code" | grep -c .)
# Expected: the code's table (- lines of a difference), actual: the doc's (+).
expect_eq "the allowlist in ${doc#"$TOP"/} vs mmbatchd --list-keys ($n keys)" "$from_code" "$from_doc"
if [ "$n" -ge 40 ]; then pass "$n keys listed (at least 40)"
else fail "only $n keys listed (want at least 40)"; fi
