#!/bin/bash
# The man pages of docs/man/ against the daemon and the package: mmbatchd
# --help prints the SYNOPSIS of mmbatchd(8), --version the package version
# (specs/mmbatchd/VERSION), and specs/mmbatchd/files.list installs a page
# for every program it puts in /usr/bin or /usr/sbin, from a docs/man source
# (lintian's binary-without-manpage, rpmlint's no-manual-page-for-binary).
# Reads: MMBATCHD, TOP.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../lib/man.sh
. "$TOP/tests/lib/man.sh"

expect_synopsis "mmbatchd" "$TOP/docs/man/mmbatchd.8.scd" "$(help_usage "$MMBATCHD")"
expect_version "mmbatchd" "$MMBATCHD"
# The comparison can fail: a page whose SYNOPSIS lost an option differs.
setup
sed 's/ \[--foreground\]//' "$TOP/docs/man/mmbatchd.8.scd" > "$T/broken.8.scd"
if [ "$(man_synopsis "$T/broken.8.scd")" != "$(help_usage "$MMBATCHD")" ]; then
	pass "a SYNOPSIS without [--foreground] differs from --help, as it must"
else
	fail "a SYNOPSIS without [--foreground] compared equal to --help"
fi

list=$TOP/specs/mmbatchd/files.list
progs=$(awk '!/^#/ && NF >= 4 && $2 ~ "^/usr/s?bin/" { n = split($2, p, "/"); print p[n] }' "$list" | sort -u)
if [ -n "$progs" ]; then pass "$list installs programs: $(paste -sd" " <<< "$progs")"
else fail "no programs in $list"; fi
for prog in $progs; do
	page=$(awk -v p="$prog" '!/^#/ && $1 ~ "^@MAN@/" p "\\.[1-8]$" && $2 ~ "^/usr/share/man/man[1-8]/$" { print $1; exit }' "$list")
	if [ -z "$page" ]; then
		fail "$prog: $list installs it but no @MAN@/$prog.N page"
		continue
	fi
	src=$TOP/docs/man/${page#@MAN@/}.scd
	expect_file "$prog: $list installs ${page#@MAN@/}, its source" "$src"
done
