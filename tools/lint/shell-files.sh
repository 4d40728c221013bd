#!/bin/bash
# Lists the repository's shell scripts, one path a line relative to the top
# (the git checkout at TOP, default this script's repository): every tracked
# file named *.sh, and every other tracked file whose first line is a sh or
# bash shebang (mmbatchctl, vmtest, mmbatch-smoke, the kernel hooks, test
# stubs, ...). One awk reads every first line: no process per file.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP"
git ls-files -z | xargs -0 awk '
	FNR == 1 {
		if (FILENAME ~ /\.sh$/ || $0 ~ /^#! *\/(usr\/)?bin\/(env +)?(ba)?sh( |$)/) print FILENAME
		nextfile
	}' | LC_ALL=C sort -u
