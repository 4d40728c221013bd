#!/bin/sh
# check-sign, inside the guest (busybox initramfs, via tools/vmtest/vmtest),
# booted with module.sig_enforce=1: tries to load the unsigned module, the one
# signed with a key the kernel does not hold, the one scripts/sign-file signed
# with the guest's test key (then unloads it), and the test_hmm.ko the DEB
# carries (signed at packaging time), and prints one line per result plus the
# kernel's messages about them for tests/sign/run.sh to assert on.
# Exit status: 0 when it ran to the end (the host judges the results).
try_insmod() {
	err=$(insmod "$1.ko" 2>&1)
	echo "insmod $1.ko: status $?"
	[ -z "$err" ] || echo "insmod $1.ko: $err"
}
echo "sig_enforce: $(cat /sys/module/module/parameters/sig_enforce 2>&1)"
try_insmod unsigned
try_insmod otherkey
try_insmod signed
rmmod mmbatch_signtest
echo "rmmod mmbatch_signtest: status $?"
try_insmod test_hmm
echo "/proc/modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
dmesg | grep -E 'mmbatch_signtest|test_hmm|HMM|is rejected|module verification' | sed 's/^/dmesg: /'
exit 0
