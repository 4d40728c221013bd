# shellcheck shell=bash
# The one assertion library of every test (sourced by each tests/<area>/
# script or its lib.sh, never run). A failed assertion is counted and the
# test goes on; at exit the test prints "NAME: N passed, N failed, N skipped"
# and exits non-zero when any assertion failed. A skip is never a pass.
#
# Every assertion is WHAT EXPECTED ACTUAL; ACTUAL is text, or @FILE for the
# contents of FILE (the failure message then names the file).
#
#   pass MSG | fail MSG | skip WHAT REASON      record a result
#   expect_eq WHAT EXPECTED ACTUAL              equal (multi-line: diff shown)
#   expect_match WHAT ERE ACTUAL                some line matches ERE (grep -E)
#   expect_no_match WHAT ERE ACTUAL             no line matches ERE
#   expect_line WHAT LINE ACTUAL                some line is exactly LINE
#   expect_no_line WHAT LINE ACTUAL             no line is exactly LINE
#   expect_contains WHAT TEXT ACTUAL            some line contains TEXT
#   expect_lacks WHAT TEXT ACTUAL               no line contains TEXT
#   expect_status WHAT EXPECTED RC              RC is EXPECTED (or 'nonzero')
#   expect_ok WHAT RC ACTUAL                    RC is 0 (else ACTUAL's tail)
#   expect_fails WHAT ERE RC ACTUAL             RC non-zero and a line matches ERE
#   expect_lines WHAT N ACTUAL                  ACTUAL has exactly N lines
#   expect_file WHAT PATH                       PATH is a non-empty file
#   expect_exists WHAT PATH | expect_absent WHAT PATH
#
#   capture VAR CMD...     run CMD; VAR = exit status, VAR_out = stdout+stderr
#   scratch                sets T to a new scratch dir (removed at exit) under
#                          TEST_TMPDIR (default $OUT/test-tmp: root's, 0755,
#                          so mmbatchd trusts profiles in it; /tmp it does not)
#   tree_sum DIR [dates|meta]  checksum of a tree: names, modes, bytes (and
#                          dates); meta: names, modes, sizes, inodes, mtimes
#                          and ctimes, no contents (a whole kernel tree)
#   step NAME CMD...       run CMD as a timed step: "step NAME: ok in N s"
#   selected NAME          is test NAME of this stage selected by ONLY?
#   test_summary           print the summary now (also done at exit)
#   run_test [--summary] NAME CMD...
#                          a stage runner's test: see below
#   run_summary LABEL      a stage runner's last lines and status
#   re_quote TEXT          TEXT as a literal ERE
#
# The subset selector, one for every stage: ONLY="WORD ...", each WORD
# STAGE or STAGE/TEST (shell globs), e.g. ONLY='daemon/security_test vm'.
# tools/check.sh runs the stages some WORD names; inside a stage a test runs
# when a WORD names the stage without a TEST part, or names this TEST.
# TEST_STAGE (set by the make target) names the running stage.
#
# On exit: runs $cleanup_hook (if set) and removes $T (if set), unless
# KEEP_SCRATCH=1.

TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}
test_failures=0 test_passes=0 test_skips=0 test_summarised=0 test_failed_what=

test_summary() {
	test_summarised=1
	echo "$TEST_NAME: $test_passes passed, $test_failures failed, $test_skips skipped"
	# The failed assertions again, by name, next to the counts: a log read
	# from its tail (CI shows the head and tail of a long run) names them.
	[ -z "$test_failed_what" ] || printf '%s' "$test_failed_what" | awk -v t="$TEST_NAME" 'NR <= 10 {print t ": failed: " $0}'
	[ "$test_failures" -eq 0 ]
}

cleanup() {
	local rc=$?
	if [ -n "${cleanup_hook:-}" ]; then $cleanup_hook || true; fi
	[ -z "${T:-}" ] || [ "${KEEP_SCRATCH:-0}" = 1 ] || rm -rf "$T"
	[ -z "${_run_own_logs:-}" ] || [ "${KEEP_SCRATCH:-0}" = 1 ] || rm -rf "$_run_own_logs"
	[ "$test_summarised" = 1 ] || [ $((test_passes + test_failures + test_skips)) -eq 0 ] || test_summary || true
	if [ "$test_failures" -ne 0 ]; then
		echo "$TEST_NAME: $test_failures assertion(s) failed" >&2
		exit 1
	fi
	exit "$rc"
}
trap cleanup EXIT

pass() { test_passes=$((test_passes + 1)); echo "  ok: $*"; }
fail() {
	test_failures=$((test_failures + 1))
	echo "  FAIL: $*" >&2
	test_failed_what+="$(printf '%s\n' "$*" | head -n 1 | cut -c1-200)"$'\n'
}
skip() { test_skips=$((test_skips + 1)); echo "  SKIP: $1: $2"; }

# _actual ACTUAL: the text of ACTUAL (@FILE: FILE's contents).
_actual() {
	case $1 in
	@*) cat -- "${1#@}" 2>/dev/null || true ;;
	*) printf '%s\n' "$1" ;;
	esac
}
# _where ACTUAL: how a failure names ACTUAL.
_where() { case $1 in @*) echo "${1#@}" ;; *) echo "the output" ;; esac; }
# _show ACTUAL: ACTUAL's last lines, indented, for a failure message.
_show() { _actual "$1" | tail -n "${2:-20}" | sed 's/^/      | /' >&2; }

re_quote() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|/]/\\&/g'; }

expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1 = '$(printf '%s' "$3" | head -n 1)'$([ "$(printf '%s\n' "$3" | wc -l)" -le 1 ] || echo " ($(printf '%s\n' "$3" | wc -l) lines)")"
	elif [ "$(printf '%s\n' "$2" "$3" | wc -l)" -le 2 ]; then
		fail "$1: expected '$2', got '$3'"
	else
		fail "$1: differs (- expected, + actual):"
		# diff exits 1 on a difference: under pipefail the assertion must
		# still return 0, or set -e would end the test at its first failure.
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed -n 's/^< /      -/p; s/^> /      +/p' | head -n 20 >&2 || :
	fi
}

# _grep_assert WANT WHAT DESC GREP-ARGS... -- ACTUAL
_grep_assert() {
	local want=$1 what=$2 desc=$3 actual=${*: -1} hit
	shift 3
	set -- "${@:1:$#-1}"
	hit=$(_actual "$actual" | grep -m 1 "$@" || true)
	if [ "$want" = yes ] && [ -n "$hit" ]; then
		pass "$what: $desc"
	elif [ "$want" = no ] && [ -z "$hit" ]; then
		pass "$what: no $desc"
	elif [ "$want" = yes ]; then
		fail "$what: expected $desc in $(_where "$actual"), which holds:"; _show "$actual"
	else
		fail "$what: expected no $desc in $(_where "$actual"), found: $hit"
	fi
}

expect_match() { _grep_assert yes "$1" "line matching /$2/" -E -- "$2" "$3"; }
expect_no_match() { _grep_assert no "$1" "line matching /$2/" -E -- "$2" "$3"; }
expect_line() { _grep_assert yes "$1" "line '$2'" -Fx -- "$2" "$3"; }
expect_no_line() { _grep_assert no "$1" "line '$2'" -Fx -- "$2" "$3"; }
expect_contains() { _grep_assert yes "$1" "'$2'" -F -- "$2" "$3"; }
expect_lacks() { _grep_assert no "$1" "'$2'" -F -- "$2" "$3"; }

expect_status() {
	if [ "$2" = nonzero ] && [ "$3" -ne 0 ]; then pass "$1: exit status $3 (non-zero)"
	elif [ "$2" = "$3" ]; then pass "$1: exit status $3"
	else fail "$1: expected exit status $2, got $3"; fi
}

expect_ok() {
	if [ "$2" -eq 0 ]; then pass "$1: exit 0"
	else fail "$1: expected exit 0, got $2; output:"; _show "$3" 10; fi
}

expect_fails() {
	local hit
	if [ "$3" -eq 0 ]; then
		fail "$1: expected a failure, it exited 0; output:"; _show "$4" 5
		return 0
	fi
	hit=$(_actual "$4" | grep -E -m 1 -- "$2" || true)
	if [ -n "$hit" ]; then pass "$1: exit $3, as expected: $hit"
	else fail "$1: exit $3, but no line matches /$2/:"; _show "$4" 5; fi
}

expect_lines() {
	local n
	case $3 in
	@*) if [ ! -r "${3#@}" ]; then fail "$1: expected $2 line(s) in ${3#@}, which does not exist"; return 0; fi
	    n=$(wc -l < "${3#@}") ;;
	'') n=0 ;;
	*) n=$(printf '%s\n' "$3" | wc -l) ;;
	esac
	if [ "$n" -eq "$2" ]; then pass "$1: $n line(s)"
	else fail "$1: expected $2 line(s) in $(_where "$3"), got $n:"; _show "$3"; fi
}

expect_file() {
	if [ -f "$2" ] && [ -s "$2" ]; then pass "$1: $2 exists ($(du -k "$2" | cut -f1) KiB)"
	else fail "$1: expected a non-empty file $2, $([ -e "$2" ] && echo "it is empty or not a file" || echo "it does not exist")"; fi
}
expect_exists() {
	if [ -e "$2" ] || [ -L "$2" ]; then pass "$1: $2 exists"
	else fail "$1: expected $2 to exist, it does not"; fi
}
expect_absent() {
	if [ -e "$2" ] || [ -L "$2" ]; then fail "$1: expected $2 to be absent, it exists"
	else pass "$1: $2 absent"; fi
}

capture() {
	local __var=$1 __out __rc=0
	shift
	__out=$("$@" 2>&1) || __rc=$?
	printf -v "$__var" '%s' "$__rc"
	printf -v "${__var}_out" '%s' "$__out"
}

# _scratch_dir NAME: a new 0755 dir under the scratch base, printed.
_scratch_dir() {
	local base=${TEST_TMPDIR:-${OUT:-${TOP:-.}/out}/test-tmp} d
	[ -d "$base" ] || { mkdir -p "$base" && chmod 0755 "$base"; }
	d=$(mktemp -d "$base/$1.XXXXXX")
	chmod 0755 "$d"
	echo "$d"
}

scratch() { T=$(_scratch_dir "$TEST_NAME"); }

tree_sum() {
	local fmt='%p %m\n'
	[ "${2:-}" = dates ] && fmt='%p %m %T@\n'
	if [ "${2:-}" = meta ]; then
		# Names, modes, sizes, inodes and dates only: any write through
		# the file system changes one of them, without reading a whole
		# kernel tree's contents.
		(cd "$1" && find . -printf '%p %m %s %i %T@ %C@\n' | LC_ALL=C sort | sha256sum | cut -c1-16)
		return
	fi
	(cd "$1" && { find . -printf "$fmt" | LC_ALL=C sort
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r cat; } | sha256sum | cut -c1-16)
}

step() {
	local name=$1 t0=$SECONDS rc=0
	shift
	echo "step $name: start"
	"$@" || rc=$?
	if [ $rc -eq 0 ]; then echo "step $name: ok in $((SECONDS - t0)) s"
	else echo "step $name: FAILED (exit $rc) in $((SECONDS - t0)) s"; fi
	return $rc
}

# run_test [--summary] NAME CMD...: one test of a stage's runner
# (tests/<area>/run.sh). Unless ONLY selects NAME (also as NAME_test or
# without its _test), it is counted as not selected and not run. Otherwise
# CMD runs as a timed step with its output kept in TEST_LOGS/NAME.log
# (default: a scratch dir of its own) and shown when it ends; not through a
# pipe, which a stray child such as qemu could hold open. The last summary
# line of a test built on this library ("X: N passed, N failed, N skipped")
# adds its checks to the stage's. The test is one pass or one fail;
# --summary: a test that printed no summary line fails.
test_unselected=0 run_checks_p=0 run_checks_f=0 run_checks_s=0 run_failed_names=
run_test() {
	local need_summary=0 name log rc=0 t0=$SECONDS p='' f='' s=''
	[ "$1" != --summary ] || { need_summary=1; shift; }
	name=$1
	shift
	if ! selected "$name" && ! selected "${name}_test" && ! selected "${name%_test}"; then
		test_unselected=$((test_unselected + 1))
		echo "step $name: not selected"
		return 0
	fi
	if [ -z "${TEST_LOGS:-}" ]; then
		TEST_LOGS=$(_scratch_dir "$TEST_NAME-logs")
		_run_own_logs=$TEST_LOGS
	fi
	log=$TEST_LOGS/$name.log
	echo "step $name: start"
	"$@" >"$log" 2>&1 </dev/null || rc=$?
	cat "$log"
	read -r p f s < <(sed -n 's/^[^ ]*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log" | tail -n 1) || true
	run_checks_p=$((run_checks_p + ${p:-0})) run_checks_f=$((run_checks_f + ${f:-0})) run_checks_s=$((run_checks_s + ${s:-0}))
	if [ $rc -eq 0 ] && { [ $need_summary = 0 ] || [ -n "$p" ]; }; then
		echo "step $name: ok in $((SECONDS - t0)) s${p:+ ($p checks passed, $s skipped)}"
		pass "$name"
	else
		echo "step $name: FAILED (exit $rc) in $((SECONDS - t0)) s${p:+ ($p checks passed, $f failed)}"
		fail "$name$([ -n "$p" ] || [ $need_summary = 0 ] || echo ": no summary line") (its output above)"
		run_failed_names+="${run_failed_names:+ }$name"
	fi
}

# run_summary LABEL: the runner's last lines (the tests' checks, then the
# tests); non-zero when a test failed, or when ONLY selected none of them (so
# a mistyped ONLY never passes).
run_summary() {
	echo "$1: checks: $run_checks_p passed, $run_checks_f failed, $run_checks_s skipped"
	echo "$1: $test_passes passed, $test_failures failed, $test_unselected not selected${run_failed_names:+ (failed: $run_failed_names)}"
	if [ $((test_passes + test_failures)) -eq 0 ]; then
		echo "ERROR: $1: ONLY='${ONLY:-}' selects no test of this stage" >&2
		return 1
	fi
	[ "$test_failures" -eq 0 ]
}

# selected NAME: the subset selector (see the top of this file).
selected() {
	local - w stage=${TEST_STAGE:-}
	set -f
	[ -n "${ONLY:-}" ] || return 0
	for w in $ONLY; do
		case $w in
		*/*)
			# shellcheck disable=SC2254 # the words are globs
			case $stage in ${w%%/*}) ;; *) [ -z "$stage" ] || continue ;; esac
			# shellcheck disable=SC2254 # the words are globs
			case $1 in ${w#*/}) return 0 ;; esac ;;
		*)
			# shellcheck disable=SC2254 # the words are globs
			case $stage in $w) return 0 ;; esac ;;
		esac
	done
	return 1
}
