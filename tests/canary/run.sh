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
# e.g. ONLY=canary/vm. Ends with run_summary's lines (tests/lib/assert.sh):
# the tests' checks, then "canary: N passed, N failed, N not selected".
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

run_test ctl_test bash "$TOP/tests/canary/ctl_test.sh"
run_test subcommands_test bash "$TOP/tests/canary/subcommands_test.sh"
run_test vm bash "$TOP/tests/canary/vm_run.sh"
run_summary canary
