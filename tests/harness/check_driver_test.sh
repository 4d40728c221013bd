#!/bin/bash
# tools/check.sh, the driver of `make check`: every stage runs even after a
# failure, the exit status says whether any failed, ONLY selects, each
# stage's time and CPU time go to CHECK_TIMES_LOG (how a CI run's times
# outlive its clean clone), and lanes (LANE|LANE) run side by side, each
# stage's output printed whole when it ends. A fake make stands in for the
# stages.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
# The builds log check.sh starts (and empties): this test's own, not the
# make check that runs it.
export CHECK_BUILDS_LOG=$T/builds.tsv

# The fake make: check-bad fails, check-slow* sleep a second, check-burn
# spins until it has used 1.5 s of CPU, user and system time (its own
# /proc stat, so the figure holds on a loaded machine; the reads of /proc are
# system time, on some hosts as much as the loop's user time), check-meet waits (MEET_TENTHS tenths
# of a second, default 200) until
# slow2 has started and fails if it does not, check-niceness* prints its
# nice level, check-env* prints the builds log's variables and appends its
# name to that log (as tools/kbuild/build.sh does), every other check-STAGE
# passes; each prints its name on two lines and notes its start in
# $T/events.
cat >"$T/fake-make" <<EOF
#!/bin/bash
events=$T/events
EOF
cat >>"$T/fake-make" <<'EOF'
for a; do
	case $a in check-*) echo "out of ${a#check-}"; echo "start ${a#check-}" >>"$events" ;; esac
	case $a in
	check-bad) exit 1 ;;
	check-slow*) sleep 1 ;;
	check-niceness*) echo "niceness $(nice)" ;;
	check-env*)
		echo "env stage=${MMBATCH_CHECK_STAGE-unset} log=${MMBATCH_BUILDS_LOG-unset} only=${MMBATCH_CHECK_ONLY-unset}"
		echo "${MMBATCH_CHECK_STAGE-unset}" >>"$MMBATCH_BUILDS_LOG" ;;
	check-burn) bash -c 'while :; do read -r -a st </proc/$$/stat; [ $((st[13] + st[14])) -lt 150 ] || break; done' ;;
	check-meet)
		for _ in $(seq "${MEET_TENTHS:-200}"); do grep -qx 'start slow2' "$events" 2>/dev/null && break; sleep 0.1; done
		grep -qx 'start slow2' "$events" || exit 1 ;;
	check-*) ;;
	*) continue ;;
	esac
	echo "end of ${a#check-}"
	exit 0
done
exit 3
EOF
chmod +x "$T/fake-make"

step "two stages, one failing"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG=$T/times.log ONLY='' \
	"$TOP/tools/check.sh" good bad after >"$T/out" 2>&1 || rc=$?
expect_status "a failed stage fails check" 1 "$rc"
expect_match "the good stage is timed" '^==> stage good: ok in [0-9]+ s \(cpu [0-9]+ s\)$' "@$T/out"
expect_match "the bad stage is reported" '^==> stage bad: FAILED in [0-9]+ s \(cpu [0-9]+ s\)$' "@$T/out"
expect_match "a stage after the failure still runs" '^==> stage after: ok in [0-9]+ s \(cpu [0-9]+ s\)$' "@$T/out"
expect_line "the summary" "check: 2 passed, 1 failed, 0 not selected" "@$T/out"
expect_line "the failed names" "failed stages: bad" "@$T/out"
expect_lines "one log line per stage and one for all" 4 "@$T/times.log"
expect_match "a log line" '^[0-9-]+T[0-9:]+Z [0-9a-f]+ bad FAILED [0-9]+ [0-9]+$' "@$T/times.log"
expect_match "the total" ' all FAILED [0-9]+ [0-9]+$' "@$T/times.log"

step "lanes side by side"
rm -f "$T/events"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG=$T/lanes.log CHECK_LOG_DIR=$T/logs CHECK_NICE=7 ONLY='' \
	"$TOP/tools/check.sh" first 'meet,burn,bad,niceness1|slow2,slow3,niceness2' last >"$T/lanes" 2>&1 || rc=$?
expect_status "a failed stage in a lane fails check" 1 "$rc"
expect_line "every stage counted" "check: 8 passed, 1 failed, 0 not selected" "@$T/lanes"
expect_line "the first lane at this nice level" "niceness $(nice)" "@$T/logs/niceness1.log"
expect_line "the second lane at CHECK_NICE" "niceness 7" "@$T/logs/niceness2.log"
expect_match "its start line says so" '^==> stage niceness2: start [0-9:]+ at nice 7, beside: ' "@$T/lanes"
expect_line "the failed names" "failed stages: bad" "@$T/lanes"
# meet, first in its lane, ends only once slow2 (first in the other) has
# started: the lanes ran side by side.
expect_match "the lanes ran side by side" '^==> stage meet: ok in ' "@$T/lanes"
expect_match "a lane's stage names the lane beside it" '^==> stage burn: start [0-9:]+, beside: slow2,slow3,niceness2$' "@$T/lanes"
expect_match "the spinning stage's CPU time" '^==> stage burn: ok in [0-9]+ s \(cpu [12] s\)$' "@$T/lanes"
expect_match "the sleeping stage's" '^==> stage slow2: ok in [0-9]+ s \(cpu 0 s\)$' "@$T/lanes"
# Each stage's output whole, after its own header and before its result.
expect_match "a lane stage's output is one block" \
	"^==> stage slow3: output \($(re_quote "$T/logs/slow3.log")\)\|out of slow3\|end of slow3\|==> stage slow3: ok in [0-9]+ s \(cpu 0 s\)$" \
	"$(grep -A3 '^==> stage slow3: output' "$T/lanes" | paste -sd'|')"
expect_file "its log" "$T/logs/slow3.log"
expect_lines "one log line per stage and one for all" 10 "@$T/lanes.log"
expect_eq "the stage after the lanes starts after both" "start last" "$(tail -n 1 "$T/events")"

step "CHECK_LANES=1: one lane after the other"
rm -f "$T/events"
rc=0; MAKE=$T/fake-make MEET_TENTHS=20 CHECK_TIMES_LOG='' CHECK_LANES=1 CHECK_LOG_DIR=$T/logs1 ONLY='' \
	"$TOP/tools/check.sh" 'meet|slow2' >"$T/serial-meet" 2>&1 || rc=$?
expect_status "meet fails: slow2 starts only after it" 1 "$rc"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' CHECK_LANES=1 CHECK_LOG_DIR=$T/logs1 ONLY='' \
	"$TOP/tools/check.sh" 'slow1,slow2|slow3' >"$T/serial" 2>&1 || rc=$?
expect_status "passes" 0 "$rc"
expect_eq "in order, output live" "out of slow1|end of slow1|out of slow2|end of slow2|out of slow3|end of slow3" \
	"$(grep '^out of\|^end of' "$T/serial" | paste -sd'|')"
expect_absent "no logs" "$T/logs1"

step "ONLY inside lanes"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' CHECK_LOG_DIR=$T/logs2 ONLY='slow3 bad' \
	"$TOP/tools/check.sh" 'slow1,bad|slow2,slow3' >"$T/only-lanes" 2>&1 || rc=$?
expect_status "the selected bad stage fails" 1 "$rc"
expect_line "the summary" "check: 1 passed, 1 failed, 2 not selected" "@$T/only-lanes"
expect_match "beside names only the selected stages" '^==> stage slow3: start [0-9:]+ at nice 19, beside: bad$' "@$T/only-lanes"

step "bad steps and knobs"
for bad in 'a||b' 'a,|b' '|a' 'A' 'a b'; do
	rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' "$TOP/tools/check.sh" "$bad" >"$T/bad" 2>&1 || rc=$?
	expect_status "step '$bad' refused" 2 "$rc"
	expect_contains "step '$bad' named" "'$bad' is not a stage" "@$T/bad"
done
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' CHECK_LANES=2 "$TOP/tools/check.sh" good >"$T/bad" 2>&1 || rc=$?
expect_status "CHECK_LANES=2 refused" 2 "$rc"
expect_contains "named" "CHECK_LANES='2'" "@$T/bad"
for n in 20 -1 x; do
	rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' CHECK_NICE=$n "$TOP/tools/check.sh" good >"$T/bad" 2>&1 || rc=$?
	expect_status "CHECK_NICE=$n refused" 2 "$rc"
	expect_contains "named" "CHECK_NICE='$n'" "@$T/bad"
done

step "ONLY selects"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' ONLY='good/some-test' \
	"$TOP/tools/check.sh" good bad >"$T/only" 2>&1 || rc=$?
expect_status "only the good stage" 0 "$rc"
expect_line "the summary" "check: 1 passed, 0 failed, 1 not selected" "@$T/only"

step "ONLY naming no stage"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' ONLY=nothing \
	"$TOP/tools/check.sh" good >"$T/none" 2>&1 || rc=$?
expect_status "no stage selected is an error" 2 "$rc"
expect_contains "says so" "names no stage of: good" "@$T/none"

step "the builds log: started empty, its path and each stage's name reach the stages"
mkdir -p "$T/blog"
echo "a line of an earlier run" >"$T/blog/builds.tsv"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' CHECK_LOG_DIR=$T/logs3 CHECK_BUILDS_LOG=$T/blog/builds.tsv ONLY='' \
	"$TOP/tools/check.sh" envone 'envtwo|envthree' >"$T/env" 2>&1 || rc=$?
expect_status "passes" 0 "$rc"
expect_line "a stage's variables" "env stage=envone log=$T/blog/builds.tsv only=" "@$T/env"
expect_line "a lane's stage's" "env stage=envthree log=$T/blog/builds.tsv only=" "@$T/logs3/envthree.log"
expect_eq "the log: one line per stage, none of the earlier run" "envone envthree envtwo" "$(sort "$T/blog/builds.tsv" | paste -sd' ')"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' CHECK_BUILDS_LOG=$T/blog/builds.tsv ONLY='envtwo' \
	"$TOP/tools/check.sh" envone envtwo >"$T/env-only" 2>&1 || rc=$?
expect_status "passes with ONLY" 0 "$rc"
expect_line "MMBATCH_CHECK_ONLY is ONLY" "env stage=envtwo log=$T/blog/builds.tsv only=envtwo" "@$T/env-only"
expect_eq "the log of that run" "envtwo" "$(cat "$T/blog/builds.tsv")"
rc=0; env -u CHECK_BUILDS_LOG MAKE="$T/fake-make" CHECK_TIMES_LOG='' CHECK_LOG_DIR="$T/logs4" ONLY='' \
	"$TOP/tools/check.sh" envone >"$T/env-default" 2>&1 || rc=$?
expect_status "passes with the default log" 0 "$rc"
expect_line "the default: CHECK_LOG_DIR/builds.tsv" "env stage=envone log=$T/logs4/builds.tsv only=" "@$T/env-default"
expect_eq "written there" "envone" "$(cat "$T/logs4/builds.tsv" 2>&1)"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG='' CHECK_BUILDS_LOG=/proc/mmbatch-none/builds.tsv ONLY='' \
	"$TOP/tools/check.sh" good >"$T/env-bad" 2>&1 || rc=$?
expect_status "a builds log that cannot be made stops check" 2 "$rc"
expect_contains "naming it" "cannot create the builds log /proc/mmbatch-none/builds.tsv" "@$T/env-bad"

step "an unwritable log does not fail check"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG=/proc/mmbatch-none/times.log ONLY='' \
	"$TOP/tools/check.sh" good >"$T/ro" 2>&1 || rc=$?
expect_status "check passes" 0 "$rc"

test_summary
