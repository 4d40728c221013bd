#!/bin/bash
# Harness self-test (tests/vm/run.sh runs it before the guest checks):
# vmtest returns the guest command's output and exit status, enforces
# --timeout with exit 124 and leaves no qemu behind, and rejects bad options
# with exit 2; --scratch-disk gives the guest a disk the host reads back; mkinitramfs.sh -o FILE can be run again into the same FILE;
# the kernel-splat scan of every guest check (tests/vm/host.sh guest_splats)
# catches reports in a real kernel's log: a guest writes a framed KASAN line
# at KERN_ERR and a lockdep header at KERN_WARNING (which `quiet` keeps off
# the console) into /dev/kmsg, one record per write, dumps its log
# (tests/vm/lib.sh), and the scan fails three times: both in the dumped
# log, the KASAN line on the console.
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
r_out=
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
"$vmtest" boot "$kernel" --scratch-disk "$T/none.img" -- true > "$T/out" 2> "$T/err"
expect_status "exit status on a missing --scratch-disk image" 2 "$?"
expect_eq "error names the image" "ERROR: vmtest: no such image for --scratch-disk: '$T/none.img'" "$(cat "$T/err")"

# --scratch-disk: the guest's /dev/vda, an ext4 file system made here; what
# the guest writes there is in the image afterwards (read with debugfs).
truncate -s 64M "$T/scratch.img" && mkfs.ext4 -q -F "$T/scratch.img"
# shellcheck disable=SC2016 # the guest's sh expands it
"$vmtest" boot "$kernel" --timeout 300 --scratch-disk "$T/scratch.img" -- \
	'mkdir -p /mnt/s && mount -t ext4 /dev/vda /mnt/s && echo "written in $(uname -r) at $$" | tee /mnt/s/note && umount /mnt/s' \
	> "$T/out" 2> "$T/err"
expect_status "--scratch-disk: the guest mounts /dev/vda as ext4, writes, unmounts" 0 "$?"
expect_match "--scratch-disk: the guest's line" '^written in [^ ]+ at [0-9]+$' "@$T/out"
expect_eq "--scratch-disk: the file the guest wrote, read from the image" "$(grep -m1 '^written in ' "$T/out")" \
	"$(debugfs -R "cat /note" "$T/scratch.img" 2>/dev/null)"

# The initramfs builder's result file, made twice: the second run finds it
# already linked to the cached image and must leave it (and succeed).
for run in 1 2; do
	"$TOP/tools/vmtest/mkinitramfs.sh" -o "$T/initramfs.cpio.gz" > "$T/mk.out" 2>&1
	expect_ok "mkinitramfs -o FILE, run $run of 2 into the same FILE" "$?" "@$T/mk.out"
done
expect_file "mkinitramfs -o FILE after both runs" "$T/initramfs.cpio.gz"

# The splat scan on a real kernel's log (a child with its own counters).
# shellcheck disable=SC2016 # the guest's sh expands them
"$vmtest" boot "$kernel" --timeout 300 --log "$T/kmsg.console" --add "$TOP/tests/vm/lib.sh" -- \
	'. ./lib.sh; k() { for l in "$@"; do echo "$l" > /dev/kmsg; done; };' \
	'k "<3>==================================================================" "<3>BUG: KASAN: slab-use-after-free in vmtest_test_injected+0x0/0x10" "<3>==================================================================";' \
	'k "<4>======================================================" "<4>WARNING: possible circular locking dependency detected" "<4>vmtest_test: injected through /dev/kmsg";' \
	'vm_dump_kernel_log; vm_summary' > "$T/kmsg.out" 2> "$T/err"
expect_status "guest writing to /dev/kmsg, then dumping its log" 0 "$?"
# shellcheck disable=SC2016 # the child expands them
capture r env TEST_NAME=scan bash -c '. "$1/tests/lib/assert.sh"; . "$1/tests/vm/host.sh"; guest_splats "$2" "$3"' sh "$TOP" "$T/kmsg.out" "$T/kmsg.console"
printf '%s\n' "$r_out" | sed 's/^/    | /'
expect_line "the scan's counts on the real log" "scan: 2 passed, 3 failed, 0 skipped" "$r_out"
expect_match "the dumped log: the lockdep header (KERN_WARNING) named" "^  FAIL: kernel splat in the guest's kernel log \(.*\) line [0-9]+: WARNING: possible circular locking dependency detected$" "$r_out"
expect_match "the dumped log: the KASAN line named" "^  FAIL: kernel splat in the guest's kernel log \(.*\) line [0-9]+: BUG: KASAN: slab-use-after-free in vmtest_test_injected" "$r_out"
expect_match "the console: the KASAN line (KERN_ERR) named" "^  FAIL: kernel splat in the serial console \(.*\) line [0-9]+: BUG: KASAN: slab-use-after-free in vmtest_test_injected" "$r_out"
expect_no_match "the console: no lockdep header (quiet keeps KERN_WARNING off it)" "serial console .*possible circular" "$r_out"
test_summary
