# shellcheck shell=sh
# Assertions for the guest-side VM checks (POSIX sh: runs under busybox in the
# quick-path initramfs and under dash/bash in the full-path rootfs).
# Every assertion prints one line, "ok", "FAIL" or "NOT-LIVE", with what was
# expected and what was seen; vm_summary prints the counts and returns
# non-zero when anything failed. NOT-LIVE lines are checks whose input is not
# in the tree yet: they are listed, never counted as passes.

# Scratch files of the assertions (the guest's tmpfs).
vm_tmp=$(mktemp -d)
vm_passed=0
vm_failed=0
vm_notlive=0

# vm_expect NAME EXPECTED ACTUAL
vm_expect() {
	if [ "$2" = "$3" ]; then
		echo "ok       $1: expected '$2', actual '$3'"
		vm_passed=$((vm_passed + 1))
	else
		echo "FAIL     $1: expected '$2', actual '$3'"
		vm_failed=$((vm_failed + 1))
	fi
}

# vm_expect_ge NAME MIN ACTUAL  (integers)
vm_expect_ge() {
	case "$3" in
	''|*[!0-9]*) echo "FAIL     $1: expected an integer >= $2, actual '$3'"; vm_failed=$((vm_failed + 1)); return ;;
	esac
	if [ "$3" -ge "$2" ]; then
		echo "ok       $1: expected >= $2, actual $3"
		vm_passed=$((vm_passed + 1))
	else
		echo "FAIL     $1: expected >= $2, actual $3"
		vm_failed=$((vm_failed + 1))
	fi
}

# vm_expect_match NAME PATTERN ACTUAL  (shell case pattern)
vm_expect_match() {
	# shellcheck disable=SC2254 # the pattern is meant to glob
	case "$3" in
	$2) echo "ok       $1: expected '$2', actual '$3'"; vm_passed=$((vm_passed + 1)) ;;
	*) echo "FAIL     $1: expected '$2', actual '$3'"; vm_failed=$((vm_failed + 1)) ;;
	esac
}

# vm_run_expect NAME EXPECTED_STATUS COMMAND...: runs COMMAND with its output
# indented under the assertion, checks its exit status.
vm_run_expect() {
	_name=$1 _want=$2
	shift 2
	echo "run      $_name: $*"
	"$@" > "$vm_tmp/run.out" 2>&1
	_rc=$?
	sed 's/^/    | /' "$vm_tmp/run.out"
	vm_expect "$_name exit status" "$_want" "$_rc"
}

# vm_expect_no_failed_units NAME [PATTERN...]: no unit (of those matching
# the patterns, systemctl's globs) is in the failed state (systemd guests
# only). A failed unit's status and this boot's journal of it follow the FAIL
# line: a run whose disk is gone (CI's clean clone) still says why.
vm_expect_no_failed_units() {
	_name=$1
	shift
	_failed=$(systemctl list-units --state=failed --plain --no-legend "$@" 2>&1 | awk '{print $1}' | paste -sd' ')
	vm_expect "$_name" "" "$_failed"
	for _u in $_failed; do
		systemctl status --no-pager --full "$_u" 2>&1 | sed "s/^/    status $_u | /"
		journalctl -b --no-pager -o short-monotonic -u "$_u" 2>&1 | tail -n 40 | sed "s/^/    journal $_u | /"
	done
}

# vm_not_live NAME WHY
vm_not_live() {
	echo "NOT-LIVE $1: $2"
	vm_notlive=$((vm_notlive + 1))
}

# vm_dump_kernel_log: the kernel log (`dmesg`: busybox in the quick path,
# util-linux in the full path) into the output, every line prefixed
# "dmesg | " between "@@DMESG-BEGIN@@" and "@@DMESG-END rc=RC lines=N@@",
# where the host's splat scan (tests/vm/host.sh guest_splats) reads it. Every
# guest script calls it last, before vm_summary: a log that is not there in
# whole (no end marker, RC not 0, N not the lines seen) fails on the host.
vm_dump_kernel_log() {
	dmesg > "$vm_tmp/dmesg" 2> "$vm_tmp/dmesg.err"
	_rc=$?
	echo "@@DMESG-BEGIN@@"
	sed 's/^/dmesg | /' "$vm_tmp/dmesg"
	echo "@@DMESG-END rc=$_rc lines=$(wc -l < "$vm_tmp/dmesg" | tr -d ' ')@@"
	sed 's/^/dmesg stderr: /' "$vm_tmp/dmesg.err"
}

vm_summary() {
	echo "summary: $vm_passed ok, $vm_failed failed, $vm_notlive not live"
	[ "$vm_failed" -eq 0 ]
}
