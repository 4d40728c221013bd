#!/bin/bash
# mmbench(1) against the binary: the usage lines of `mmbench --help`, then
# those of `mmbench compare --help`, are the SYNOPSIS of docs/man/mmbench.1.scd;
# --version prints the package version (specs/mmbatchd/VERSION) and takes no
# arguments; every option --help lists has an entry in the page's OPTIONS
# (with a negative control: a page missing one).
# Reads: MMBENCH, TOP.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../lib/man.sh
. "$TOP/tests/lib/man.sh"
setup

usage=$(help_usage "$MMBENCH"; help_usage "$MMBENCH" compare)
expect_synopsis "mmbench" "$TOP/docs/man/mmbench.1.scd" "$usage"
expect_version "mmbench" "$MMBENCH"
rc=0; "$MMBENCH" --version extra >/dev/null 2>&1 || rc=$?
expect_eq "mmbench --version extra: exit status (bad input)" 2 "$rc"

# Every option `mmbench --help` lists has its entry in the OPTIONS of
# mmbench.1.scd (the page is where the options are explained).
help_options() { grep -oE -- '^  (-o, )?--[a-z-]+' "$1" | grep -oE -- '--[a-z-]+' | sort -u; }
man_options() {
	awk '/^# OPTIONS$/ { on = 1; next } on && /^# / { exit }
		on && /^\*/ && match($0, /--[a-z-]+/) { print substr($0, RSTART, RLENGTH) }' "$1" | sort -u
}
options_missing() { comm -23 <(help_options "$1") <(man_options "$2"); }
"$MMBENCH" --help > "$T/help.txt"
expect_eq "every --help option has an entry in the OPTIONS of mmbench(1)" "" \
	"$(options_missing "$T/help.txt" "$TOP/docs/man/mmbench.1.scd")"
expect_eq "--help lists options (the check above compared something)" true \
	"$([ "$(help_options "$T/help.txt" | wc -l)" -ge 20 ] && echo true || echo false)"
# negative control: a page without the --shape entry is caught
awk '/^\*--shape\*/ { skip = 1; next } skip && /^\t/ { next } { skip = 0; print }' \
	"$TOP/docs/man/mmbench.1.scd" > "$T/no-shape.1.scd"
expect_eq "a page lacking an option's entry: the check names it" --shape \
	"$(options_missing "$T/help.txt" "$T/no-shape.1.scd")"
