#!/bin/bash
# `make check-canary`: the canary boot with automatic rollback, one test at a
# time, each selected by ONLY (canary/NAME) and timed:
#   ctl_test          mmbatchctl on scratch trees with the real GRUB tools,
#                     plus a broken mmbatchctl it must catch;
#   bls_test          mmbatchctl on BootLoaderSpec hosts: systemd-boot with
#                     boot counting (a stub bootctl and systemd-bless-boot
#                     over efivar files, a model of systemd-boot's choice at
#                     boot) and GRUB + blscfg (the real GRUB tools); each
#                     promise with a broken mmbatchctl it must catch;
#   subcommands_test  mmbatchctl status, plan, verify, rollback and smoke
#                     against a fake tree with the real mmbatchd (MMBATCHD)
#                     and a stub systemctl;
#   vm                tests/canary/vm_run.sh: the whole cycle on a booted VM
#                     (GRUB on a disk, seven boots): a kernel built to fail
#                     the smoke gate rolls back by itself, a good one becomes
#                     the default (its kernels: CANARY_GOOD, CANARY_BAD,
#                     CANARY_NEW identity files), on a Debian 12 root;
#   vm-<suite>        the same cycle on another suite's root, e.g.
#                     vm-trixie: Debian 13's GRUB 2.12, systemd 257, dracut
#                     106 (the same packages, built on Debian 12).
#                     CANARY_SUITES (default "trixie") names the suites
#                     that run: one cycle takes several minutes (measured:
#                     docs/results/2026-12-03-check-budget.md), and make
#                     check's budget holds one, on Debian 13, the release
#                     most Debian fleets run (make check's full VM path
#                     boots a Debian 12 root); CANARY_SUITES="bookworm
#                     trixie" runs both.
# CANARY_PARTS (default "ctl vm") picks the parts: ctl, the tests that boot
# nothing (ctl_test, bls_test, subcommands_test: make check-canary-ctl, which
# make check runs in its first side lane beside the kernel builds), and vm,
# the cycles (make check-canary-vm, on make check's guest lane).
# e.g. ONLY=canary/vm-trixie. Ends with run_summary's lines (tests/lib/assert.sh):
# the tests' checks, then "canary: N passed, N failed, N not selected".
# `run.sh --rootfs`: only the disks' roots of the selected vm tests
# (vm_run.sh --rootfs), each printed as "TEST: DIR"; runs no test (make
# check's prebuild stage).
# Reads: TOP, OUT, MMBATCHD (default $OUT/bin/mmbatchd), ONLY, TEST_STAGE,
# CANARY_PARTS, CANARY_SUITES, and what vm_run.sh reads.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP OUT=${OUT:-$TOP/out} TEST_STAGE=${TEST_STAGE:-canary}
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs BASE FLAVOR
TEST_NAME=canary
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"

# The parts and suites first: a bad name stops the stage before any test runs.
parts=${CANARY_PARTS-ctl vm}
for part in $parts; do
	case $part in ctl | vm) ;; *)
		echo "ERROR: check-canary: CANARY_PARTS: '$part' is not a part (ctl, vm)" >&2; exit 2 ;;
	esac
done
[ -n "${parts// /}" ] || { echo "ERROR: check-canary: CANARY_PARTS is empty: name ctl, vm or both" >&2; exit 2; }
suites=${CANARY_SUITES-trixie}
for suite in $suites; do
	case $suite in ''|*[!a-z]*)
		echo "ERROR: check-canary: CANARY_SUITES: '$suite' is not a Debian suite name" >&2; exit 2 ;;
	esac
done
case $#:${1:-} in
0:) ;;
1:--rootfs)
	for suite in $suites; do
		t=vm
		[ "$suite" = bookworm ] || t=vm-$suite
		selected "$t" || continue
		dir=$(MKCHROOT_SUITE=$suite bash "$TOP/tests/canary/vm_run.sh" --rootfs) || exit 1
		echo "$t: $dir"
	done
	exit 0 ;;
*) echo "usage: run.sh [--rootfs]" >&2; exit 2 ;;
esac
case " $parts " in *" ctl "*)
	run_test ctl_test bash "$TOP/tests/canary/ctl_test.sh"
	run_test bls_test bash "$TOP/tests/canary/bls_test.sh"
	run_test subcommands_test bash "$TOP/tests/canary/subcommands_test.sh"
	;;
esac
case " $parts " in *" vm "*)
	for suite in $suites; do
		t=vm
		[ "$suite" = bookworm ] || t=vm-$suite
		run_test "$t" env MKCHROOT_SUITE="$suite" bash "$TOP/tests/canary/vm_run.sh"
	done
	;;
esac
run_summary canary
