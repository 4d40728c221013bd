#!/bin/bash
# Harness self-test (tests/vm/run.sh runs it before the guest checks):
# vmtest returns the guest command's output and exit status, enforces
# --timeout with exit 124 and leaves no qemu behind, and rejects bad options
# with exit 2; mkinitramfs.sh -o FILE can be run again into the same FILE.
#   vmtest_test.sh KERNEL
# Reads: VMTEST (default tools/vmtest/vmtest of this repo), OUT.
set -u

usage() { echo "usage: vmtest_test.sh KERNEL" >&2; exit 2; }
if [ $# -ne 1 ] || [ ! -f "$1" ]; then usage; fi
kernel=$1
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
vmtest=${VMTEST:-$TOP/tools/vmtest/vmtest}
scratch
qemu_pid_of() { sed -n 's/^vmtest: qemu pid \([0-9]*\) .*/\1/p' "$1" | tail -n 1; }

# shellcheck disable=SC2016 # the guest's sh expands it
"$vmtest" boot "$kernel" --timeout 300 -- 'echo "out $((6 * 7))"; echo err >&2; exit 7' > "$T/out" 2> "$T/err"
expect_status "command exit status passed through" 7 "$?"
expect_eq "command output (stdout and stderr, in order)" "out 42|err" "$(paste -sd'|' "$T/out")"

t0=$SECONDS
"$vmtest" boot "$kernel" --timeout 3 -- 'sleep 600' > "$T/out" 2> "$T/err"
expect_status "exit status on timeout" 124 "$?"
expect_eq "timeout enforced (ended within 60 s)" yes "$([ $((SECONDS - t0)) -lt 60 ] && echo yes || echo no)"
pid=$(qemu_pid_of "$T/err")
expect_eq "qemu (pid ${pid:-?}) gone after the timeout" gone "$([ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null && echo gone || echo running)"

"$vmtest" boot "$kernel" --cpus zero -- true > "$T/out" 2> "$T/err"
expect_status "exit status on a bad option" 2 "$?"
expect_eq "error names the option" "ERROR: vmtest: --cpus wants a positive integer (got 'zero')" "$(cat "$T/err")"

# The initramfs builder's result file, made twice: the second run finds it
# already linked to the cached image and must leave it (and succeed).
for run in 1 2; do
	"$TOP/tools/vmtest/mkinitramfs.sh" -o "$T/initramfs.cpio.gz" > "$T/mk.out" 2>&1
	expect_ok "mkinitramfs -o FILE, run $run of 2 into the same FILE" "$?" "@$T/mk.out"
done
expect_file "mkinitramfs -o FILE after both runs" "$T/initramfs.cpio.gz"
test_summary
