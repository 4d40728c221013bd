#!/bin/bash
# `make stack-report`: configures the 6.12 guest kernel at NR_CPUS=N patched
# and with PATCHES=0 (tools/vmtest/build-kernel.sh --config-only), compiles
# the objects of mm/ and fs/ of each (BUILD_TARGETS, ccache: where every
# folio_batch and writeback_control sits on a stack), compares their stack
# frames (stack-compare.sh --objects) and writes DIR/REPORT.md (the Markdown
# table) and DIR/REPORT.txt (the plain one), printing the summary.
#   stack-report.sh DIR N
# Exits as stack-compare.sh does: 1 when a frame reaches the limit.
set -eu
[ $# -eq 2 ] || { echo "usage: stack-report.sh DIR NR_CPUS" >&2; exit 2; }
dir=$1 nr=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$dir"
objdirs="mm fs"
for v in patched vanilla; do
	p=1; [ $v = patched ] || p=0
	"$top/tools/vmtest/build-kernel.sh" --config-only -o "$dir/$v.id" BASE=6.12 FLAVOR=guest NR_CPUS="$nr" PATCHES=$p
	# build.sh with only these knobs, as build-kernel.sh runs it.
	env -u SRC -u LOCALVERSION -u EXTRA_PATCHES -u FRAGMENTS -u SIGN_KEY -u DISTCC_HOSTS -u DEBUG \
		BASE=6.12 FLAVOR=guest NR_CPUS="$nr" PATCHES=$p BUILD_TARGETS="$(printf "%s/ " $objdirs)" \
		"$here/build.sh" >/dev/null
done
rc=0
"$here/stack-compare.sh" --objects "$objdirs" "$(cat "$dir/vanilla.id")" "$(cat "$dir/patched.id")" >"$dir/REPORT.txt" || rc=$?
"$here/stack-compare.sh" --objects "$objdirs" --markdown "$(cat "$dir/vanilla.id")" "$(cat "$dir/patched.id")" >"$dir/REPORT.md" 2>/dev/null || true
tail -n 3 "$dir/REPORT.txt"
echo "stack-report: $dir/REPORT.md, $dir/REPORT.txt"
exit $rc
