#!/bin/bash
# `make check`: runs the steps of CHECK_STAGES (Makefile), each stage as
# `make check-STAGE`, prints its start, its elapsed and CPU time, and ends
# with "check: N passed, N failed, N not selected". Every stage runs even
# after a failure, so one run shows all that is broken. Exit status is
# non-zero when any stage failed.
# A step is a stage, or a group of lanes that run side by side, written
# LANE|LANE..., each lane a comma list of stages run in order (e.g.
# "vm,canary|docs,distcc"). The group ends when its last lane ends. The
# first lane runs at the normal priority, the others at nice CHECK_NICE
# (default 19): they fill the CPU the first leaves idle (which stages go
# where, and why: CHECK_STAGES in the Makefile). A lane's stage writes to
# CHECK_LOG_DIR/STAGE.log (default $OUT/check), printed whole when the stage
# ends, so the output of two lanes never interleaves.
# Each stage's times are also appended to CHECK_TIMES_LOG (default
# ~/.cache/mmbatch/check-times.log: outside the tree, so the times of a CI
# run on a clean clone outlive it): "UTC-date commit stage result seconds
# cpu-seconds".
# The builds log: at its start it creates (or empties) CHECK_BUILDS_LOG
# (default CHECK_LOG_DIR/builds.tsv) and exports its path as
# MMBATCH_BUILDS_LOG, to which tools/kbuild/build.sh appends one line per
# kernel build of this run; each stage's make gets MMBATCH_CHECK_STAGE=STAGE
# (the line's first field), and every stage MMBATCH_CHECK_ONLY=ONLY (empty:
# a full run). check-builds (tests/builds/run.sh), the last step, reads it.
# Reads: MAKE (the make to call), ONLY (the subset selector of
# tests/lib/assert.sh: a stage runs when some word names it, alone or as
# STAGE/TEST), CHECK_LANES (1: a group's lanes run one after another, the
# times of a stage alone; default: side by side), CHECK_NICE, CHECK_LOG_DIR,
# CHECK_BUILDS_LOG, OUT, CHECK_TIMES_LOG.
# Exports: MMBATCH_BUILDS_LOG, MMBATCH_CHECK_ONLY; MMBATCH_CHECK_STAGE to
# each stage.
set -u
set -f

usage() { echo "usage: check.sh STEP... (STEP: STAGE, or LANE|LANE... with LANE = STAGE,STAGE...)" >&2; exit 2; }
[ $# -gt 0 ] || usage
for step in "$@"; do
	[[ $step =~ ^[a-z0-9-]+([,|][a-z0-9-]+)*$ ]] || { echo "check.sh: '$step' is not a stage or LANE|LANE group" >&2; usage; }
done
case ${CHECK_LANES:-} in ''|1) ;; *) echo "check.sh: CHECK_LANES='$CHECK_LANES': 1 or empty" >&2; exit 2 ;; esac
nice_level=${CHECK_NICE:-19}
if ! [[ $nice_level =~ ^[0-9]+$ ]] || [ "$nice_level" -gt 19 ]; then
	echo "check.sh: CHECK_NICE='$nice_level': 0 to 19" >&2
	exit 2
fi

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

here=$(cd "$(dirname "$0")" && pwd)
make_cmd=${MAKE:-make}
times_log=${CHECK_TIMES_LOG-${XDG_CACHE_HOME:-$HOME/.cache}/mmbatch/check-times.log}
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
log_dir=${CHECK_LOG_DIR:-${OUT:-$here/../out}/check}
# This run's builds log, new and empty (see the top).
builds_log=$(realpath -m "${CHECK_BUILDS_LOG:-$log_dir/builds.tsv}")
if ! { mkdir -p "$(dirname "$builds_log")" && : >"$builds_log"; } 2>/dev/null; then
	echo "check.sh: cannot create the builds log $builds_log (CHECK_BUILDS_LOG)" >&2
	exit 2
fi
export MMBATCH_BUILDS_LOG=$builds_log MMBATCH_CHECK_ONLY=${ONLY:-}
# The results of the stages (lanes are subshells): one file per stage,
# "RESULT SECONDS CPU", read back at the end.
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
# Printing a finished stage's log holds this lock, so blocks never mix.
print_lock=$results/print.lock

# log_time STAGE RESULT SECONDS CPU: best effort, a read-only home must not fail check
log_time() {
	[ -n "$times_log" ] || return 0
	mkdir -p "$(dirname "$times_log")" 2>/dev/null &&
		echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $commit $1 $2 $3 $4" >>"$times_log" 2>/dev/null
	return 0
}

# children_cpu: sets cpu to the user+system seconds this shell's finished
# children used (bash's `times`, second line: "XmY.YYYs XmY.YYYs"). `times`
# runs in this shell: in a $(...) subshell it would see that subshell's.
children_cpu() {
	local f=$results/times.$BASHPID line
	times >"$f"
	line=$(sed -n 2p "$f")
	cpu=$(awk -v u="${line%% *}" -v s="${line#* }" 'function sec(t) { split(t, a, "m"); sub("s", "", a[2]); return a[1] * 60 + a[2] }
		BEGIN { printf "%d\n", sec(u) + sec(s) + 0.5 }')
}

# run_stage STAGE [LOG]: `make check-STAGE`, its result in $results/STAGE.
# With LOG, the stage's output goes there and is printed when it ends.
run_stage() {
	local stage=$1 log=${2:-} t0 c0 rc=0 result secs cpu
	t0=$(date +%s)
	children_cpu
	c0=$cpu
	if [ -n "$log" ]; then
		MMBATCH_CHECK_STAGE=$stage $make_cmd --no-print-directory "check-$stage" >"$log" 2>&1 || rc=$?
	else
		MMBATCH_CHECK_STAGE=$stage $make_cmd --no-print-directory "check-$stage" || rc=$?
	fi
	secs=$(( $(date +%s) - t0 ))
	children_cpu
	cpu=$((cpu - c0))
	result=ok
	[ $rc -eq 0 ] || result=FAILED
	echo "$result $secs $cpu" >"$results/$stage"
	{
		if [ -n "$log" ]; then
			flock 9
			echo "==> stage $stage: output ($log)"
			cat "$log"
		fi
		echo "==> stage $stage: $result in $secs s (cpu $cpu s)"
	} 9>>"$print_lock"
	log_time "$stage" "$result" "$secs" "$cpu"
}

# run_lane "STAGE,STAGE..." [BESIDE [NICE]]: the lane's selected stages in
# order; BESIDE names the other lanes' stages (for the start line) and sends
# the output to the logs; NICE: this lane's processes at that nice level.
run_lane() {
	local stage stages beside=${2:-} nice=${3:-}
	[ -z "$nice" ] || renice -n "$nice" -p "$BASHPID" >/dev/null
	IFS=, read -r -a stages <<<"$1"
	for stage in "${stages[@]}"; do
		wanted "$stage" || { echo unselected >"$results/$stage"; continue; }
		if [ -n "$beside" ]; then
			echo "==> stage $stage: start $(date -u +%H:%M:%S)${nice:+ at nice $nice}, beside: $beside"
			run_stage "$stage" "$log_dir/$stage.log"
		else
			echo "==> stage $stage: start $(date -u +%H:%M:%S)"
			run_stage "$stage"
		fi
	done
}

start_all=$(date +%s)
order=()
for step in "$@"; do
	IFS='|' read -r -a lanes <<<"$step"
	for lane in "${lanes[@]}"; do
		IFS=, read -r -a stages <<<"$lane"
		order+=("${stages[@]}")
	done
	if [ ${#lanes[@]} -eq 1 ] || [ "${CHECK_LANES:-}" = 1 ]; then
		for lane in "${lanes[@]}"; do run_lane "$lane"; done
		continue
	fi
	mkdir -p "$log_dir"
	pids=()
	for i in "${!lanes[@]}"; do
		# The other lanes' selected stages, for the start lines.
		beside=''
		for j in "${!lanes[@]}"; do
			[ "$j" != "$i" ] || continue
			IFS=, read -r -a stages <<<"${lanes[$j]}"
			for stage in "${stages[@]}"; do wanted "$stage" && beside+=${beside:+,}$stage; done
		done
		if [ "$i" = 0 ]; then
			run_lane "${lanes[$i]}" "${beside:-none selected}" &
		else
			run_lane "${lanes[$i]}" "${beside:-none selected}" "$nice_level" &
		fi
		pids+=($!)
	done
	wait "${pids[@]}"
done

passed=0 failed=0 unselected=0 failed_names=()
for stage in "${order[@]}"; do
	read -r result _ <"$results/$stage" || result=FAILED
	case $result in
	ok) passed=$((passed + 1)) ;;
	unselected) unselected=$((unselected + 1)) ;;
	*) failed=$((failed + 1)) failed_names+=("$stage") ;;
	esac
done
total=$(( $(date +%s) - start_all ))
children_cpu
echo "==> all stages: $total s (cpu $cpu s)"
log_time all "$([ $failed -eq 0 ] && echo ok || echo FAILED)" "$total" "$cpu"
[ $failed -eq 0 ] || echo "failed stages: ${failed_names[*]}"
if [ $((passed + failed)) -eq 0 ]; then
	echo "check: ONLY='$ONLY' names no stage of: ${order[*]}" >&2
	exit 2
fi
echo "check: $passed passed, $failed failed, $unselected not selected"
[ $failed -eq 0 ]
