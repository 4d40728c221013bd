#!/bin/bash
# The selftests check shown to fail on a kernel broken on purpose:
#   selftests-breaker.sh GOOD_IDENTITY BROKEN_IDENTITY
# GOOD: the patched 6.1 guest; BROKEN: the same with
# patches/test/6.1-migrate-one-retry.patch (make selftests-breaker-kernel),
# whose migration gives up on a busy folio after 2 passes. Both boot
# tools/peer/selftests-run.sh with 6.1's migration tests (the tree's own,
# which fails at the first page move_pages(2) reports as not moved, and
# migration@retry100) and compaction_test. Then the run's rows go through
# tools/peer/selftests-compare.sh with GOOD in the vanilla twin's place:
# the check must report a regression of BROKEN (a test or case GOOD passes
# and BROKEN does not), and this script passes exactly when it does.
# Report: $OUT/peer/selftests-breaker-report.txt (the run's report, then
# the comparison). Reads: OUT, and what selftests-run.sh reads.
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
export OUT=$out
[ $# -eq 2 ] || { echo "usage: selftests-breaker.sh GOOD_IDENTITY BROKEN_IDENTITY" >&2; exit 2; }
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
bid_check "$1"
bid_check "$2"
good=$(bid_get "$1" KERNELRELEASE) broken=$(bid_get "$2" KERNELRELEASE)
[ "$good" != "$broken" ] || { echo "ERROR: selftests-breaker: both builds are $good" >&2; exit 2; }
report=$out/peer/selftests-breaker-report.txt
rc=0
"$here/selftests-run.sh" --set full --only migration,migration@retry100,compaction_test \
	--report "$out/peer/selftests-breaker-run.txt" "$1" "$2" || rc=$?
echo "selftests-breaker: selftests-run exit $rc (a failure of the broken kernel's tests is expected)"
rows=$out/peer/selftests/run/rows.txt
# GOOD stands in for the vanilla twin
awk -v g="$good" '$4 == g { $2 = "vanilla" } { print }' "$rows" > "$out/peer/selftests-breaker-rows.txt"
crc=0
"$here/selftests-compare.sh" "$out/peer/selftests-breaker-rows.txt" > "$out/peer/selftests-breaker-compare.txt" || crc=$?
{ cat "$out/peer/selftests-breaker-run.txt"; echo "# the comparison, $good as the twin (exit $crc)"; cat "$out/peer/selftests-breaker-compare.txt"; } > "$report"
sed 's/^/  /' "$out/peer/selftests-breaker-compare.txt"
echo "selftests-breaker: report $report"
if [ "$crc" = 1 ] && grep -q "^regression: $broken " "$out/peer/selftests-breaker-compare.txt"; then
	echo "selftests-breaker: ok: the check caught the broken kernel ($broken regresses against $good)"
	exit 0
fi
echo "selftests-breaker: FAILED: the check did not catch the broken kernel (compare exit $crc)" >&2
exit 1
