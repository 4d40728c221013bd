#!/bin/bash
# `make check`: runs each stage of the ordered list CHECK_STAGES (Makefile)
# as `make check-STAGE`, prints its start and elapsed time, and ends with
# "check: N passed, N failed, N not selected". Every stage runs even after a
# failure, so one run shows all that is broken. Exit status is non-zero when
# any stage failed.
# Each stage's time is also appended to CHECK_TIMES_LOG (default
# ~/.cache/mmbatch/check-times.log: outside the tree, so the times of a CI
# run on a clean clone outlive it): "UTC-date commit stage result seconds".
# Reads: MAKE (the make to call), ONLY (the subset selector of
# tests/lib/assert.sh: a stage runs when some word names it, alone or as
# STAGE/TEST).
set -u
set -f

usage() { echo "usage: check.sh STAGE..." >&2; exit 2; }
[ $# -gt 0 ] || usage

# wanted STAGE: does ONLY name STAGE (or select nothing)?
wanted() {
	local w
	[ -n "${ONLY:-}" ] || return 0
	for w in $ONLY; do
		# shellcheck disable=SC2254 # the words are globs
		case $1 in ${w%%/*}) return 0 ;; esac
	done
	return 1
}

make_cmd=${MAKE:-make}
times_log=${CHECK_TIMES_LOG-${XDG_CACHE_HOME:-$HOME/.cache}/mmbatch/check-times.log}
commit=$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)
# log_time STAGE RESULT SECONDS: best effort, a read-only home must not fail check
log_time() {
	[ -n "$times_log" ] || return 0
	mkdir -p "$(dirname "$times_log")" 2>/dev/null &&
		echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $commit $1 $2 $3" >>"$times_log" 2>/dev/null
	return 0
}
passed=0 failed=0 unselected=0 failed_names=()
start_all=$(date +%s)
for stage in "$@"; do
	if ! wanted "$stage"; then
		unselected=$((unselected + 1))
		continue
	fi
	echo "==> stage $stage: start $(date -u +%H:%M:%S)"
	t0=$(date +%s)
	if $make_cmd --no-print-directory "check-$stage"; then
		result=ok passed=$((passed + 1))
	else
		result=FAILED failed=$((failed + 1)) failed_names+=("$stage")
	fi
	echo "==> stage $stage: $result in $(( $(date +%s) - t0 )) s"
	log_time "$stage" "$result" $(( $(date +%s) - t0 ))
done
echo "==> all stages: $(( $(date +%s) - start_all )) s"
log_time all "$([ $failed -eq 0 ] && echo ok || echo FAILED)" $(( $(date +%s) - start_all ))
[ $failed -eq 0 ] || echo "failed stages: ${failed_names[*]}"
if [ $((passed + failed)) -eq 0 ]; then
	echo "check: ONLY='$ONLY' names no stage of: $*" >&2
	exit 2
fi
echo "check: $passed passed, $failed failed, $unselected not selected"
[ $failed -eq 0 ]
