#!/bin/sh
# The full run of the kernel's mm selftests in a quick-path guest (busybox
# initramfs with the build's selftests: tools/peer/selftests-initramfs.sh),
# booted by tools/peer/selftests-run.sh:
#   vmtest boot BZIMAGE --add lib.sh --add selftests_lib.sh --add kselftest_verdict.awk \
#       --add LIST --add selftests_full.sh -- ST_LIST=NAME ST_SET=full sh selftests_full.sh KERNELRELEASE
# Every test of the list (ST_SET=quick: its quick set), then the kernel log
# for the host's splat scan. Exit status 0 when no test failed.
# ST_SWAP: a swap device to turn on first (the host's --scratch-disk, made
# by mkswap). khugepaged's swap cases page part of a range out with
# MADV_PAGEOUT and fail without swap; upstream's machines have it.
# shellcheck source=tests/vm/lib.sh
. ./lib.sh
# shellcheck source=tests/vm/selftests_lib.sh
. ./selftests_lib.sh

[ $# -eq 1 ] || { echo "usage: selftests_full.sh KERNELRELEASE"; exit 2; }
vm_expect "running kernel release" "$1" "$(uname -r)"
vm_expect "NUMA nodes online" "0-1" "$(cat /sys/devices/system/node/online)"
vm_expect "CPUs online" "0-$((${GUEST_CPUS:-4} - 1))" "$(cat /sys/devices/system/cpu/online)"
if [ -n "${ST_SWAP:-}" ]; then
	swapon "$ST_SWAP"
	vm_expect "swap devices on ($ST_SWAP)" 1 "$(grep -c "^$ST_SWAP " /proc/swaps)"
fi
st_run_list "./${ST_LIST:?the guest command sets ST_LIST}" "${ST_SET:-full}" /usr/lib/kselftest/mm
vm_dump_kernel_log
vm_summary
