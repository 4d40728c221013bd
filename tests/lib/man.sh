# shellcheck shell=bash
# The man pages against the programs (sourced by tests/*/ that check a
# program's --help and --version; needs tests/lib/assert.sh first).
#
# man_synopsis PAGE.scd         the SYNOPSIS lines of an scdoc source, one
#                               form a line, scdoc markup (* _ \ ++) removed
# help_usage CMD...             the usage lines CMD --help prints ("usage: "
#                               and the indent removed)
# expect_synopsis WHAT PAGE.scd USAGE   expect_eq of the two (USAGE printed)
# expect_version WHAT CMD...    assertion: CMD --version prints
#                               "NAME VERSION" (specs/mmbatchd/VERSION)

man_synopsis() {
	awk '/^# SYNOPSIS$/ { on = 1; next } on && /^# / { exit } on && NF' "$1" |
		sed -e 's/++$//' -e 's/\\\*/\x01/g; s/\\_/\x02/g; s/[*_]//g; s/\x01/*/g; s/\x02/_/g' -e 's/\\\(.\)/\1/g'
}

help_usage() {
	"$@" --help | awk 'NR == 1 { if (sub(/^usage: /, "")) { print; next } exit }
		/^       [^ ]/ { sub(/^ +/, ""); print; next } { exit }'
}

expect_synopsis() {
	local what=$1 page=$2 usage=$3 synopsis
	synopsis=$(man_synopsis "$page")
	if [ -z "$synopsis" ]; then
		fail "$what: no SYNOPSIS in $page"
		return 0
	fi
	# Expected: the page's SYNOPSIS (- lines of a difference), actual: --help (+).
	expect_eq "$what: --help usage vs the SYNOPSIS of ${page#"$TOP"/}" "$synopsis" "$usage"
	printf '%s\n' "$usage" | sed 's/^/        /'
}

expect_version() {
	local what=$1 name
	shift
	name=$(basename "$1")
	expect_eq "$what --version" "$name $(tr -d '[:space:]' < "$TOP/specs/mmbatchd/VERSION")" "$("$@" --version 2>&1)"
}
