#!/bin/bash
# tools/check.sh, the driver of `make check`: every stage runs even after a
# failure, the exit status says whether any failed, ONLY selects, and each
# stage's time goes to CHECK_TIMES_LOG (how a CI run's times outlive its
# clean clone). A fake make stands in for the stages.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch

# The fake make: check-bad fails, every other check-STAGE passes.
cat >"$T/fake-make" <<'EOF'
#!/bin/bash
for a; do case $a in check-bad) exit 1 ;; check-*) exit 0 ;; esac; done
exit 3
EOF
chmod +x "$T/fake-make"

step "two stages, one failing"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG=$T/times.log ONLY= \
	"$TOP/tools/check.sh" good bad after >"$T/out" 2>&1 || rc=$?
expect_status "a failed stage fails check" 1 "$rc"
expect_match "the good stage is timed" '^==> stage good: ok in [0-9]+ s$' "@$T/out"
expect_match "the bad stage is reported" '^==> stage bad: FAILED in [0-9]+ s$' "@$T/out"
expect_match "a stage after the failure still runs" '^==> stage after: ok in [0-9]+ s$' "@$T/out"
expect_line "the summary" "check: 2 passed, 1 failed, 0 not selected" "@$T/out"
expect_line "the failed names" "failed stages: bad" "@$T/out"
expect_lines "one log line per stage and one for all" 4 "@$T/times.log"
expect_match "a log line" '^[0-9-]+T[0-9:]+Z [0-9a-f]+ bad FAILED [0-9]+$' "@$T/times.log"
expect_match "the total" ' all FAILED [0-9]+$' "@$T/times.log"

step "ONLY selects"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG= ONLY='good/some-test' \
	"$TOP/tools/check.sh" good bad >"$T/only" 2>&1 || rc=$?
expect_status "only the good stage" 0 "$rc"
expect_line "the summary" "check: 1 passed, 0 failed, 1 not selected" "@$T/only"

step "ONLY naming no stage"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG= ONLY=nothing \
	"$TOP/tools/check.sh" good >"$T/none" 2>&1 || rc=$?
expect_status "no stage selected is an error" 2 "$rc"
expect_contains "says so" "names no stage of: good" "@$T/none"

step "an unwritable log does not fail check"
rc=0; MAKE=$T/fake-make CHECK_TIMES_LOG=/proc/mmbatch-none/times.log ONLY= \
	"$TOP/tools/check.sh" good >"$T/ro" 2>&1 || rc=$?
expect_status "check passes" 0 "$rc"

test_summary
