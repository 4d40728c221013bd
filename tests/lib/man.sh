# The man pages against the programs (sourced by tests/*/ that check a
# program's --help and --version; needs tests/lib/assert.sh first).
#
# man_synopsis PAGE.scd         the SYNOPSIS lines of an scdoc source, one
#                               form a line, scdoc markup (* _ \ ++) removed
# help_usage CMD...             the usage lines CMD --help prints ("usage: "
#                               and the indent removed)
# expect_synopsis WHAT PAGE.scd USAGE   assertion: the two equal, both printed
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
	elif [ "$synopsis" = "$usage" ]; then
		pass "$what: --help usage = SYNOPSIS of ${page#"$TOP"/}:"
		printf '%s\n' "$usage" | sed 's/^/        /'
	else
		fail "$what: --help usage differs from the SYNOPSIS of ${page#"$TOP"/}:"
		printf '    expected (SYNOPSIS):\n%s\n    actual (--help):\n%s\n' \
			"$(printf '%s\n' "$synopsis" | sed 's/^/        /')" "$(printf '%s\n' "$usage" | sed 's/^/        /')" >&2
	fi
}

expect_version() {
	local what=$1 name
	shift
	name=$(basename "$1")
	expect_eq "$what --version" "$name $(tr -d '[:space:]' < "$TOP/specs/mmbatchd/VERSION")" "$("$@" --version 2>&1)"
}
