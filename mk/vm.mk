# VM harness: boots what we build under qemu (TCG when KVM does not work) and
# checks it end to end. Logic lives in tools/vmtest/ (`vmtest --help`).

VMTEST := $(TOP)/tools/vmtest/vmtest

## test: check-vm  patched guest kernels (6.12, 6.1) booted: busybox quick path + dpkg-installed systemd full path
PHONY += check-vm
check-vm: deps-vm
	@$(TOP)/tools/vmtest/check-vm.sh
CHECK_STAGES += check-vm

## bench: bench-vm  patched vs vanilla vs Debian stock kernel, both bases: out/bench/REPORT.md + JSON + chart
PHONY += bench-vm
bench-vm: deps-vm
	@$(TOP)/tools/vmtest/bench-vm.sh

## build: vm-initramfs  the quick-path busybox initramfs with mmbench and mmbatchd (prints its path)
PHONY += vm-initramfs
vm-initramfs: deps-vm mmbench daemon
	@$(TOP)/tools/vmtest/mkinitramfs.sh | tail -n 1
