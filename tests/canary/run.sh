#!/bin/bash
# `make check-canary`: the canary boot with automatic rollback, one test at a
# time, each selected by ONLY (canary/NAME) and timed:
#   ctl_test          mmbatchctl on scratch trees with the real GRUB tools,
#                     plus a broken mmbatchctl it must catch;
#   subcommands_test  mmbatchctl status, plan, verify, rollback and smoke
#                     against a fake tree with the real mmbatchd (MMBATCHD)
#                     and a stub systemctl;
#   vm                tests/canary/vm_run.sh: the whole cycle on a booted VM
#                     (GRUB on a disk, five boots): a kernel built to fail the
#                     smoke gate rolls back by itself, a good one becomes the
#                     default (its kernels: CANARY_GOOD, CANARY_BAD,
#                     CANARY_NEW identity files).
# e.g. ONLY=canary/vm. Ends with "canary: N passed, N failed, N not
# selected" over the tests, and the sum of their checks.
# Reads: TOP, OUT, MMBATCHD (default $OUT/bin/mmbatchd), ONLY, TEST_STAGE,
# and what vm_run.sh reads.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP OUT=${OUT:-$TOP/out} TEST_STAGE=${TEST_STAGE:-canary}
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs BASE FLAVOR
TEST_NAME=canary
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch

passed=0 failed=0 unselected=0 failed_names=() checks_p=0 checks_f=0 checks_s=0
# run_test NAME CMD...: like tests/vm/run.sh's: output kept, then shown;
# the test's summary line ("NAME: N passed, N failed, N skipped") adds its
# checks to the stage's.
run_test() {
	local name=$1 t0=$SECONDS rc=0 p='' f='' s=''
	shift
	if ! selected "$name"; then
		unselected=$((unselected + 1))
		return 0
	fi
	echo "canary: $name: start"
	"$@" > "$T/$name.log" 2>&1 < /dev/null || rc=$?
	cat "$T/$name.log"
	read -r p f s < <(sed -n "s/^[a-z_]*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped\$/\1 \2 \3/p" "$T/$name.log" | tail -n 1) || true
	checks_p=$((checks_p + ${p:-0})) checks_f=$((checks_f + ${f:-0})) checks_s=$((checks_s + ${s:-0}))
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1)); echo "canary: PASS $name ($((SECONDS - t0)) s, ${p:-?} ok)"
	else
		failed=$((failed + 1)) failed_names+=("$name"); echo "canary: FAIL $name (exit $rc, $((SECONDS - t0)) s, ${p:-?} ok)"
	fi
}

run_test ctl_test bash "$TOP/tests/canary/ctl_test.sh"
run_test subcommands_test bash "$TOP/tests/canary/subcommands_test.sh"
run_test vm bash "$TOP/tests/canary/vm_run.sh"
echo "canary: checks: $checks_p passed, $checks_f failed, $checks_s skipped"
echo "canary: $passed passed, $failed failed, $unselected not selected${failed_names[0]:+ (failed: ${failed_names[*]})}"
if [ $((passed + failed)) -eq 0 ]; then
	echo "ERROR: canary: ONLY='${ONLY:-}' selects no test of this stage" >&2
	exit 1
fi
[ $failed -eq 0 ]
