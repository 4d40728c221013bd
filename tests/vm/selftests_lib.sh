# shellcheck shell=sh
# The kernel's own mm selftests in a guest (POSIX sh: busybox in the
# quick-path initramfs). Sourced after lib.sh by quick_test.sh (step
# selftests: the list's quick set) and by selftests_full.sh (every test).
#   st_run_list LIST SET DIR
# LIST: tools/peer/selftests-<base>.list (NAME SET TIMEOUT_S FLAGS COMMAND...);
# SET: a set name the list's SET column holds (quick: check-vm's patched
# guests; the column may be a +-list, e.g. quick+nightly), or full (every
# line); DIR: where the binaries
# are (tools/peer/selftests-initramfs.sh puts them in /usr/lib/kselftest/mm).
# ST_ONLY (a comma list of test names) narrows the set to those tests;
# ST_REPEAT (default 1) runs each test that many times in a row.
# Each test runs in DIR in its own session, killed (the whole process group)
# at TIMEOUT_S; its output is printed indented, then kselftest_verdict.awk
# (next to this file) reads it, and one line per test and per TAP case goes
# out for the host's report:
#   selftest NAME VERDICT SECONDS WHY
#   selftest-case NAME CASE VERDICT WHY
# plus the lib.sh line of each (ok, FAIL, or NOT-LIVE for a skip: a skipped
# test is listed, never counted as passed).

# vm_tmp and the counters come from lib.sh, sourced first.
# shellcheck disable=SC2154 # vm_tmp and the counters are lib.sh's (sourced first)
st_here=$(pwd)

# st_setup: what the tests expect of the system (run_vmtests.sh does the same).
st_setup() {
	mkdir -p /sys/kernel/debug /mnt/huge
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	mountpoint -q /mnt/huge || mount -t hugetlbfs none /mnt/huge 2>/dev/null
	# shellcheck disable=SC3045 # busybox sh and dash have ulimit -l
	ulimit -l unlimited 2>/dev/null
	# test_hmm.sh and mem-on-off-test.sh call modprobe by this path.
	[ -e /sbin/modprobe ] || ln -s /bin/busybox /sbin/modprobe
}

# st_run NAME TIMEOUT FLAGS DIR COMMAND...
st_run() {
	_n=$1 _lim=$2 _fl=$3 _dir=$4
	shift 4
	_bounded=0 _huge=0 _failcount=0 _knobs='' _casemask=''
	for _f in $(echo "$_fl" | tr ',' ' '); do
		case $_f in
		bounded) _bounded=1 ;;
		failcount) _failcount=1 ;;
		casemask=?*) _casemask=${_f#casemask=} ;;
		mmknob=*:*) _knobs="$_knobs ${_f#mmknob=}" ;;
		hugepages=*) _huge=${_f#hugepages=} ;;
		needs=*|-) ;;
		*) echo "FAIL     list: test $_n has an unknown flag '$_f'"; vm_failed=$((vm_failed + 1)); return ;;
		esac
	done
	echo "selftest-run $_n: $* (timeout $_lim s${_huge:+, $_huge hugepages})"
	_bin=${1#./}
	[ "$1" != bash ] || _bin=${2#./}
	if [ ! -e "$_dir/$_bin" ]; then
		echo "selftest $_n fail 0 $_bin was not built (tools/peer/selftests-build.sh: see its build.log)"
		echo "FAIL     selftest $_n: $_bin was not built"
		vm_failed=$((vm_failed + 1))
		return
	fi
	[ "$_huge" = 0 ] || echo "$_huge" > /proc/sys/vm/nr_hugepages
	# mmknob=PATH:VALUE: /sys/kernel/mm/PATH holds VALUE while the test
	# runs, its old value after (a knob that is not there fails the test).
	# ST_MM_SYSFS: that directory elsewhere (the host's test of st_run).
	_saved=
	for _k in $_knobs; do
		_kf=${ST_MM_SYSFS:-/sys/kernel/mm}/${_k%%:*}
		if ! _old=$(cat "$_kf" 2>/dev/null) || ! echo "${_k#*:}" > "$_kf"; then
			echo "selftest $_n fail 0 cannot set $_kf to ${_k#*:} (flag mmknob=$_k)"
			echo "FAIL     selftest $_n: cannot set $_kf to ${_k#*:}"
			vm_failed=$((vm_failed + 1))
			st_restore_knobs
			return
		fi
		echo "selftest-knob $_n: $_kf = ${_k#*:} (was $_old)"
		_saved="$_saved $_kf:$_old"
	done
	rm -f "$vm_tmp/st.timedout"
	_t0=$(date +%s)
	(cd "$_dir" && exec setsid "$@") > "$vm_tmp/st.out" 2>&1 &
	_pid=$!
	# The watchdog holds none of st_run's output and takes its sleep with it
	# when it is killed: a sleep left behind with the output open kept a pipe
	# reading st_run (the host's selftest_verdict_test) waiting up to the
	# test's limit after the test had ended.
	( trap 'kill "$_s" 2>/dev/null; exit 0' TERM
	  sleep "$_lim" & _s=$!; wait "$_s"
	  touch "$vm_tmp/st.timedout"; kill -TERM -"$_pid" 2>/dev/null; sleep 5; kill -KILL -"$_pid" 2>/dev/null ) > /dev/null 2>&1 &
	_dog=$!
	wait "$_pid"
	_rc=$?
	kill "$_dog" 2>/dev/null
	wait "$_dog" 2>/dev/null
	# Children a test left behind (it was killed, or it forgot them).
	kill -KILL -"$_pid" 2>/dev/null
	_secs=$(($(date +%s) - _t0))
	[ "$_huge" = 0 ] || echo 0 > /proc/sys/vm/nr_hugepages
	st_restore_knobs
	_to=0
	[ ! -e "$vm_tmp/st.timedout" ] || _to=1
	sed 's/^/    | /' "$vm_tmp/st.out"
	awk -v name="$_n" -v rc="$_rc" -v timedout="$_to" -v bounded="$_bounded" -v limit="$_lim" -v failcount="$_failcount" \
		-v casemask="$_casemask" -f "$st_here/kselftest_verdict.awk" "$vm_tmp/st.out" > "$vm_tmp/st.verdict"
	while read -r _kind _a _b _c _d; do
		case $_kind in
		case) # _a NAME, _b CASE, _c VERDICT, _d WHY
			echo "selftest-case $_a $_b $_c $_d"
			st_count "selftest $_a case $_b" "$_c" "$_d" ;;
		test) # _a VERDICT, _b.. WHY
			echo "selftest $_n $_a $_secs $_b${_c:+ $_c}${_d:+ $_d}"
			st_count "selftest $_n (exit status $_rc, $_secs s)" "$_a" "$_b${_c:+ $_c}${_d:+ $_d}" ;;
		esac
	done < "$vm_tmp/st.verdict"
}

# st_restore_knobs: the values st_run saved ($_saved: FILE:OLD ...), back.
st_restore_knobs() {
	for _s in $_saved; do
		echo "${_s#*:}" > "${_s%%:*}" || echo "FAIL     selftest $_n: cannot restore ${_s%%:*} to ${_s#*:}"
	done
	_saved=
}

# st_count WHAT VERDICT WHY: the lib.sh line and counter of one verdict.
st_count() {
	case $2 in
	pass) echo "ok       $1: pass ($3)"; vm_passed=$((vm_passed + 1)) ;;
	skip) vm_not_live "$1" "skipped: $3" ;;
	*) echo "FAIL     $1: $2 ($3)"; vm_failed=$((vm_failed + 1)) ;;
	esac
}

# st_run_list LIST SET DIR: the tests of SET in LIST, each bounded by its
# TIMEOUT_S times ST_SCALE (default 1).
st_run_list() {
	st_setup
	_ran=0
	while read -r _name _set _lim _flags _cmd; do
		case $_name in ''|'#'*) continue ;; esac
		# SET is a +-list (quick+nightly); "full" takes every line.
		case "+$_set+" in *"+$2+"*) ;; *) [ "$2" = full ] || continue ;; esac
		# ST_ONLY: a comma list of test names, the only ones to run.
		if [ -n "${ST_ONLY:-}" ]; then
			case ",$ST_ONLY," in *",$_name,"*) ;; *) continue ;; esac
		fi
		# ST_SCALE: the list's bounds are sized for the normal guests; a
		# debug kernel (KASAN, lockdep) runs about 5x slower.
		_lim=$((_lim * ${ST_SCALE:-1}))
		# ST_REPEAT: each test that many times in a row (how often it fails).
		_r=0
		while [ "$_r" -lt "${ST_REPEAT:-1}" ]; do
			# shellcheck disable=SC2086 # the command is words
			st_run "$_name" "$_lim" "$_flags" "$3" $_cmd
			_r=$((_r + 1))
		done
		_ran=$((_ran + 1))
	done < "$1"
	vm_expect_ge "selftests run from $(basename "$1") (set $2)" 1 "$_ran"
}
