#!/bin/bash
# `make check-rollout`: the Ansible rollout (tools/rollout/collection), one
# test at a time, each selected by ONLY (rollout/NAME) and timed:
#   report_test      fleet_report.py: rows, worst metrics, aggregates, the
#                    gate, bad input (fixtures, no hosts);
#   host_state_test  the host_state module on a fake state directory;
#   collection_test  ansible-galaxy build and install, ansible-lint, bad
#                    variables refused, hosts that do not answer stop it;
#   injection_test   issue 41's four injections (state dir, one host's
#                    kernel, a suite with a newline, a host named ../../x)
#                    refused before any host changes, after a good rollout
#                    through the same fake hosts (chroot connection into
#                    directories with stubs, in a private mount namespace);
#   dnf_host_test    the role's install-dnf.yml through Ansible's chroot
#                    connection into an approximate RPM host: key, .repo,
#                    dnf install from the signed yum repository, idempotent,
#                    a tampered repomd.xml refused (BUILD: the 6.12 guest);
#   vm               tests/rollout/vm_run.sh: three booted hosts, a good
#                    kernel through two waves, a bad one stopped after the
#                    first, an unreachable host (about 50 min on 2 cores).
#                    Run when ONLY names it or ROLLOUT_VM_FORCE=1 (make
#                    check-rollout-vm, which records a pass in
#                    tests/rollout/vm-passed.txt); otherwise counted as a
#                    skip that says whether a recorded pass covers this code.
# Reads: TOP, OUT, ONLY, TEST_STAGE, MMBENCH, BUILD, ROLLOUT_VM_FORCE=1 (run vm),
# and what vm_run.sh reads.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export TOP OUT=${OUT:-$TOP/out} TEST_STAGE=${TEST_STAGE:-rollout}
TEST_NAME=rollout
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
here=$TOP/tests/rollout

run_test report_test bash "$here/report_test.sh"
run_test host_state_test bash "$here/host_state_test.sh"
run_test collection_test bash "$here/collection_test.sh"
run_test injection_test bash "$here/injection_test.sh"
run_test dnf_host_test bash "$here/dnf_host_test.sh"

code=$("$here/code-hash.sh")
passed=$(sed -n 's/^code //p' "$here/vm-passed.txt" 2>/dev/null || true)
case " ${ONLY:-} " in *" rollout/vm "*) ROLLOUT_VM_FORCE=1 ;; esac
if [ "${ROLLOUT_VM_FORCE:-0}" = 1 ]; then
	run_test vm bash "$here/vm_run.sh"
	if [ "$test_failures" -eq 0 ] && selected vm; then
		{
			echo "# tests/rollout/vm_run.sh passed on booted hosts with this rollout code"
			echo "# (tests/rollout/code-hash.sh); make check-rollout-vm writes this file."
			echo "code $code"
			echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
			echo "checks $(sed -n 's/^vm: \([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/\1/p' "$TEST_LOGS/vm.log" | tail -n 1)"
		} >"$here/vm-passed.txt"
		echo "rollout: recorded the passing VM run in tests/rollout/vm-passed.txt (commit it)"
	fi
elif [ "$code" = "$passed" ]; then
	skip vm "the rollout code ($code) is the code of the VM run of $(sed -n 's/^date //p' "$here/vm-passed.txt") that passed (tests/rollout/vm-passed.txt): make check-rollout-vm runs it again"
	run_checks_s=$((run_checks_s + 1))
else
	# About 50 min on 2 cores: more than make check's budget has left.
	skip vm "no VM run passed with this rollout code ($code; recorded: ${passed:-none}): make check-rollout-vm runs it"
	run_checks_s=$((run_checks_s + 1))
fi
run_summary rollout
