#!/bin/bash
# Runs each named make target as one test stage, prints its elapsed time, and
# ends with a summary line "check: N passed, N failed". Exit status is non-zero
# when any stage failed. Every stage runs even after a failure, so one run
# shows all that is broken.
# Reads: MAKE (the make to call), CHECK_ONLY (space-separated subset to run).
set -u

make_cmd=${MAKE:-make}
passed=0 failed=0 failed_names=()
start_all=$(date +%s)
for stage in "$@"; do
	if [ -n "${CHECK_ONLY:-}" ] && ! [[ " $CHECK_ONLY " == *" $stage "* ]]; then
		continue
	fi
	echo "==> stage $stage: start $(date -u +%H:%M:%S)"
	t0=$(date +%s)
	if $make_cmd --no-print-directory "$stage"; then
		result=ok passed=$((passed + 1))
	else
		result=FAILED failed=$((failed + 1)) failed_names+=("$stage")
	fi
	echo "==> stage $stage: $result in $(( $(date +%s) - t0 )) s"
done
echo "==> all stages: $(( $(date +%s) - start_all )) s"
[ $failed -eq 0 ] || echo "failed stages: ${failed_names[*]}"
echo "check: $passed passed, $failed failed"
[ $failed -eq 0 ]
