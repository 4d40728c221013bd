#!/bin/bash
# `make check-canary`: the canary boot with automatic rollback, timed by part:
#  1. tests/canary/ctl_test.sh   mmbatchctl on scratch trees with the real GRUB
#                                tools, plus a broken mmbatchctl it must catch;
#     tests/canary/subcommands_test.sh   mmbatchctl status, plan, verify,
#                                rollback and smoke against a fake tree with
#                                the real mmbatchd (MMBATCHD) and a stub
#                                systemctl;
#  2. tests/canary/vm_run.sh     the whole cycle on a booted VM (GRUB on a
#                                disk, five boots): a kernel built to fail the
#                                smoke gate rolls back by itself, a good one
#                                becomes the default.
# Reads: TOP, OUT, MAKE, MMBATCHD (default $OUT/bin/mmbatchd), CANARY_TESTS
# (subset of: ctl vm; default both), and what vm_run.sh reads.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP OUT=${OUT:-$TOP/out}
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs BASE FLAVOR
wanted() { [ -z "${CANARY_TESTS:-}" ] || [[ " $CANARY_TESTS " == *" $1 "* ]]; }
failed=()
for part in ctl vm; do
	wanted "$part" || continue
	t0=$SECONDS
	case $part in
	ctl)
		echo "check-canary: mmbatchctl against the GRUB tools (tests/canary/ctl_test.sh)"
		bash "$TOP/tests/canary/ctl_test.sh" || failed+=("ctl")
		echo "check-canary: mmbatchctl's daemon commands (tests/canary/subcommands_test.sh)"
		bash "$TOP/tests/canary/subcommands_test.sh" || failed+=("ctl(subcommands)")
		;;
	vm)
		echo "check-canary: the canary cycle in a VM (tests/canary/vm_run.sh)"
		bash "$TOP/tests/canary/vm_run.sh" || failed+=("vm")
		;;
	esac
	echo "check-canary: $part: $((SECONDS - t0)) s"
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "check-canary: FAILED: ${failed[*]}"
	exit 1
fi
echo "check-canary: passed"
