# VM harness: boots what we build under qemu (TCG when KVM does not work) and
# checks it end to end. Logic lives in tools/vmtest/ (`vmtest --help`).

VMTEST := $(TOP)/tools/vmtest/vmtest

## test: check-vm  patched guest kernels (6.12, 6.1) booted: busybox quick path + dpkg-installed systemd full path (VM_FULL_BASES)
PHONY += check-vm
VM_FULL_BASES ?= 6.12 6.1
check-vm: deps-vm
	@VM_FULL_BASES="$(VM_FULL_BASES)" $(TOP)/tools/vmtest/check-vm.sh

## test: check-vm-quick  the quick path of check-vm only (busybox initramfs: boot, integrity, migrate, drain knob)
PHONY += check-vm-quick
check-vm-quick: deps-vm
	@VM_PATHS=quick $(TOP)/tools/vmtest/check-vm.sh

# `make check` runs both paths on both bases. The 6.1 guest needs
# configs/kernel/guest/6.1/base-full.config: tinyconfig leaves BASE_FULL off
# there, and the pid_max cap that follows fails systemd-sysctl.service.

## bench: bench-vm  patched vs vanilla vs Debian stock kernel, both bases: out/bench/REPORT.md + JSON + chart
PHONY += bench-vm
bench-vm: deps-vm
	@$(TOP)/tools/vmtest/bench-vm.sh

## bench: bench-proof  the series' claims on booted guests: batch sizes, TLB flushes, LOCK_STAT lru_lock, integrity + negative control, drain (out/bench/PROOF.md)
PHONY += bench-proof
bench-proof: deps-vm
	@$(TOP)/tools/vmtest/bench-proof.sh

## build: vm-initramfs  the quick-path busybox initramfs with mmbench and mmbatchd (prints its path)
PHONY += vm-initramfs
vm-initramfs: deps-vm mmbench daemon
	@$(TOP)/tools/vmtest/mkinitramfs.sh | tail -n 1
