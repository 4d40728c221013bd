#!/bin/bash
# mmbench(1) against the binary: the usage lines of `mmbench --help`, then
# those of `mmbench compare --help`, are the SYNOPSIS of docs/man/mmbench.1.scd;
# --version prints the package version (specs/mmbatchd/VERSION) and takes no
# arguments.
# Reads: MMBENCH, TOP.
. "$(dirname "$0")/lib.sh"
# shellcheck source=../lib/man.sh
. "$TOP/tests/lib/man.sh"

usage=$(help_usage "$MMBENCH"; help_usage "$MMBENCH" compare)
expect_synopsis "mmbench" "$TOP/docs/man/mmbench.1.scd" "$usage"
expect_version "mmbench" "$MMBENCH"
rc=0; "$MMBENCH" --version extra >/dev/null 2>&1 || rc=$?
expect_eq "mmbench --version extra: exit status (bad input)" 2 "$rc"
