#!/bin/bash
# The allowlists (sysctl and sysfs) are written down twice: in the code
# (`mmbatchd --list-keys`) and in the profile docs (configs/profiles/README.md,
# "The keys a profile may set"). The two tables must list the same keys with
# the same values (the schema) and reasons, in the same order.
# Reads: MMBATCHD, TOP.
. "$(dirname "$0")/lib.sh"

doc=$TOP/configs/profiles/README.md
from_code=$("$MMBATCHD" --list-keys | awk -F'\t' '{ v = $4; gsub(/\|/, "\\|", v); print $1 " | " v " | " $3 }')
# shellcheck disable=SC2016 # the backquotes are the table's
from_doc=$(sed -n '/^## The keys a profile may set/,/^## /p' "$doc" |
	sed -n 's/^| `\([^`]*\)` | \(.*\) |$/\1 | \2/p')
n=$(printf '%s\n' "$from_code" | grep -c .)
# Expected: the code's table (- lines of a difference), actual: the doc's (+).
expect_eq "the allowlist in ${doc#"$TOP"/} vs mmbatchd --list-keys ($n keys)" "$from_code" "$from_doc"
if [ "$n" -ge 50 ]; then pass "$n keys listed (at least 50)"
else fail "only $n keys listed (want at least 50)"; fi
