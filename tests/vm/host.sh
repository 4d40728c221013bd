# shellcheck shell=bash
# Host side of the guest checks (sourced after tests/lib/assert.sh by
# tests/vm/guest.sh and tests/canary/vm_run.sh). The guest scripts
# (quick_test.sh, full_test.sh, tests/canary/guest_step.sh) run under
# busybox sh or dash inside the guest, where assert.sh (bash) cannot run:
# they keep tests/vm/lib.sh's one-line results ("ok", "FAIL", "NOT-LIVE")
# and the host counts each line as assert.sh's pass, fail or skip, so a
# guest check is counted like any other.
#
#   guest_results FILE   FILE: the guest's output (vmtest's stdout). Prints
#                        its other lines indented, records every result line.

guest_results() {
	local line what
	while IFS= read -r line; do
		case $line in
		"ok       "*) pass "${line#ok       }" ;;
		"FAIL     "*) fail "${line#FAIL     }" ;;
		"NOT-LIVE "*)
			# "NOT-LIVE NAME: WHY" (NAME may hold ": ", WHY does not): a
			# check this guest's kernel or config cannot run; counted as
			# skipped, never as passed.
			what=${line#NOT-LIVE }
			skip "${what%: *}" "not live on this guest: ${what##*: }" ;;
		*) printf '    | %s\n' "$line" ;;
		esac
	done < "$1"
}
