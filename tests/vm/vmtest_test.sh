#!/bin/bash
# Harness self-test (run by check-vm.sh on the host): vmtest returns the
# guest command's output and exit status, enforces --timeout with exit 124
# and leaves no qemu behind, and rejects bad options with exit 2.
#   vmtest_test.sh KERNEL
# Reads: VMTEST (default tools/vmtest/vmtest of this repo).
set -u

usage() { echo "usage: vmtest_test.sh KERNEL" >&2; exit 2; }
[ $# -eq 1 ] && [ -f "$1" ] || usage
kernel=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
vmtest=${VMTEST:-$top/tools/vmtest/vmtest}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
expect() {
	if [ "$2" = "$3" ]; then echo "ok       $1: expected '$2', actual '$3'"; passed=$((passed + 1))
	else echo "FAIL     $1: expected '$2', actual '$3'"; failed=$((failed + 1)); fi
}
qemu_pid_of() { sed -n 's/^vmtest: qemu pid \([0-9]*\) .*/\1/p' "$1" | tail -n 1; }

"$vmtest" boot "$kernel" --timeout 300 -- 'echo "out $((6 * 7))"; echo err >&2; exit 7' > "$tmp/out" 2> "$tmp/err"
expect "command exit status passed through" 7 "$?"
expect "command output (stdout and stderr, in order)" "out 42|err" "$(paste -sd'|' "$tmp/out")"

t0=$SECONDS
"$vmtest" boot "$kernel" --timeout 3 -- 'sleep 600' > "$tmp/out" 2> "$tmp/err"
expect "exit status on timeout" 124 "$?"
expect "timeout enforced (ended within 60 s)" yes "$([ $((SECONDS - t0)) -lt 60 ] && echo yes || echo no)"
pid=$(qemu_pid_of "$tmp/err")
expect "qemu (pid ${pid:-?}) gone after the timeout" gone "$([ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && echo gone || echo running)"

"$vmtest" boot "$kernel" --cpus zero -- true > "$tmp/out" 2> "$tmp/err"
expect "exit status on a bad option" 2 "$?"
expect "error names the option" "ERROR: vmtest: --cpus wants a positive integer (got 'zero')" "$(cat "$tmp/err")"

echo "summary: $passed ok, $failed failed"
[ "$failed" -eq 0 ]
