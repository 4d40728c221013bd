#!/bin/bash
# Prints the grouped target list from the '## group: target  text' comments in
# the given makefiles.
set -eu
grep -h '^## ' "$@" | sed 's/^## //' | sort -s -t: -k1,1 | awk -F': ' '
	$1 != group { group = $1; printf "\n%s:\n", group }
	{ sub(/^[^:]*: /, ""); printf "  %s\n", $0 }'
