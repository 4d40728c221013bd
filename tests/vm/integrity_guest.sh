#!/bin/sh
# mmbench integrity, one kind, in a quick-path guest, booted by
# tools/peer/integrity-run.sh:
#   vmtest boot BZIMAGE --add lib.sh --add integrity_guest.sh -- \
#       "IG_KIND=K IG_SECONDS=S IG_PAGES=N" sh integrity_guest.sh KERNELRELEASE
# Runs `mmbench integrity --kind K`: the file kind in /tmp (tmpfs), or, with
# IG_FS=ext4, on the ext4 file system of the guest's disk /dev/vda (vmtest
# --scratch-disk), mounted at /mnt/ext4: there fsync(2) puts the dirty pages
# under writeback while they move. It
# prints its lines and one result line for the host,
#   integrity-result KIND EXIT PGMIGRATE LOST CORRUPT STRAY
# (the figures from mmbench's JSON document; "-" when it wrote none: it
# crashed), then the kernel log for the host's splat scan. Its own exit
# status is mmbench's.
# shellcheck source=tests/vm/lib.sh
. ./lib.sh

[ $# -eq 1 ] || { echo "usage: integrity_guest.sh KERNELRELEASE"; exit 2; }
vm_expect "running kernel release" "$1" "$(uname -r)"
vm_expect "NUMA nodes online" "0-1" "$(cat /sys/devices/system/node/online)"
kind=${IG_KIND:?the guest command sets IG_KIND}
key=$(echo "$kind" | tr - _)
dir=
[ "$kind" = file ] && dir="--dir /tmp"
if [ "${IG_FS:-}" = ext4 ]; then
	mkdir -p /mnt/ext4
	mount -t ext4 /dev/vda /mnt/ext4 2>&1 | sed 's/^/mount: /'
	vm_expect "file system at /mnt/ext4" "/dev/vda ext4" "$(awk '$2 == "/mnt/ext4" {print $1, $3}' /proc/mounts)"
	dir="--dir /mnt/ext4"
fi
rc=0
# shellcheck disable=SC2086 # $dir is an option and its value, or nothing
mmbench integrity --kind "$kind" --seconds "${IG_SECONDS:-10}" --pages "${IG_PAGES:-1024}" $dir \
	--json > "$vm_tmp/ig.json" 2> "$vm_tmp/ig.err" || rc=$?
sed 's/^/mmbench | /' "$vm_tmp/ig.err"
# figure METRIC: the sum of a metric's values in the JSON document (busybox
# has no jq: the document has one "name" per metric, "values" after it)
figure() {
	tr -d '\n' < "$vm_tmp/ig.json" | sed 's/{/\n{/g' | grep "\"name\": *\"${key}_$1\"" |
		sed -n 's/.*"values": *\[\([^]]*\)\].*/\1/p' | head -n 1 |
		awk -F, '{ s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.0f\n", s }'
}
m=$(figure pgmigrate_success) l=$(figure lost_writes) c=$(figure corrupt_bytes) s=$(figure stray_bytes)
echo "integrity-result $kind $rc ${m:--} ${l:--} ${c:--} ${s:--}"
vm_dump_kernel_log
exit "$rc"
