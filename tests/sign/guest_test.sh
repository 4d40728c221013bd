#!/bin/sh
# check-sign, inside the guest (busybox initramfs, via tools/vmtest/vmtest):
# tries to load the unsigned module, the one signed with a key the kernel does
# not hold, the one modules_install signed (then unloads it), and the one
# signed by scripts/sign-file, and prints one line per result plus the
# kernel's messages about them for tests/sign/run.sh to assert on.
# Exit status: 0 when it ran to the end (the host judges the results).
try_insmod() {
	err=$(insmod "$1.ko" 2>&1)
	echo "insmod $1.ko: status $?"
	[ -z "$err" ] || echo "insmod $1.ko: $err"
}
try_insmod unsigned
try_insmod otherkey
try_insmod installed
rmmod mmbatch_signtest
echo "rmmod mmbatch_signtest: status $?"
try_insmod signed
echo "/proc/modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
dmesg | grep -E 'mmbatch_signtest|is rejected|module verification' | sed 's/^/dmesg: /'
exit 0
