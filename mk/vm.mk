# VM harness: boots what we build under qemu (TCG when KVM does not work) and
# checks it end to end. Logic lives in tools/vmtest/ (`vmtest --help`) and
# tests/vm/. Every consumer reads its kernels by identity file
# (tools/kbuild/identity.sh), the files these targets build first:
#   $(call guest_build,BASE)    the patched guest build (mk/kernel.mk)
#   $(call vanilla_build,BASE)  the same source and config, PATCHES=0
#   $(call debug_build,BASE)    the debug guest build, DEBUG=1 (mk/kernel.mk)
# Debian's stock kernels boot only when asked for (VM_KERNEL=stock, bench-vm's
# "stock" variant), never in place of a missing build or package.

VMTEST := $(TOP)/tools/vmtest/vmtest
VM_TOOLS := $(TOP)/tools/vmtest

# The bases check-vm boots, and their guest builds.
VM_BASES ?= $(GUEST_BASES)
VM_BUILDS = $(foreach b,$(VM_BASES),$(call guest_build,$(b)))
# built: our guest kernels; stock: Debian's kernel of each base instead (the
# mmbatchd package still ours).
VM_KERNEL ?= built
# The debug builds check-vm boots as debug-<base> (lockdep, KASAN, DEBUG_VM,
# ...: the quick path with a longer integrity run; any splat fails).
VM_DEBUG_BASES ?= $(VM_BASES)
VM_DEBUG_BUILDS = $(foreach b,$(VM_DEBUG_BASES),$(call debug_build,$(b)))
VM_DEBUG_KERNELS = $(addprefix debug-kernel-,$(VM_DEBUG_BASES))
# The quick path's busybox initramfs carries these two.
VM_BINS := $(MMB_STATIC) $(BIN_DIR)/mmbatchd

# The unpatched guest builds (PATCHES=0), built by the kbuild stage scripts
# with only these knobs; build-kernel.sh checks that the identity file is at
# the path named here.
vanilla_build = $(OUT)/build/$(1)-guest-vanilla/mmbatch-build.env
VANILLA_KERNELS := $(addprefix vanilla-kernel-,$(GUEST_BASES))

## kernel: vanilla-kernel-<base>  <base>'s guest kernel without the series (PATCHES=0), for the benchmarks
PHONY += $(VANILLA_KERNELS)
$(VANILLA_KERNELS): vanilla-kernel-%: | deps-kernel
	@$(VM_TOOLS)/build-kernel.sh --expect $(call vanilla_build,$*) BASE=$* FLAVOR=guest PATCHES=0

# make check's share of the full-path matrix (bases x Debian suites): each
# base once and each suite once, as Debian pairs them (12 ships 6.1, 13
# ships 6.12; the canary cycle boots 6.12 on Debian 12). The rest is listed
# as skipped; check-vm-all boots all of it.
VM_FULL_PLAN ?= 6.1:bookworm 6.12:trixie
CHECK_VM_DEBUG_BASES = $(filter $(VM_BASES),$(CHECK_DEBUG_BASES))

## test: check-vm  make check's VM stage: quick and full paths of VM_BASES, debug guests; any splat fails
PHONY += check-vm
check-vm: $(addprefix guest-packages-,$(VM_BASES)) $(addprefix debug-kernel-,$(CHECK_VM_DEBUG_BASES)) $(VM_BINS) | deps-vm
	@VM_BUILDS="$(VM_BUILDS)" VM_DEBUG_BUILDS="$(foreach b,$(CHECK_VM_DEBUG_BASES),$(call debug_build,$(b)))" VM_FULL_PLAN="$(VM_FULL_PLAN)" VM_KERNEL=$(VM_KERNEL) $(TOP)/tests/vm/run.sh

## build: vm-rootfs  the Debian roots check-vm's full paths boot (VM_FULL_PLAN), made ahead; prints each
PHONY += vm-rootfs
vm-rootfs: $(addprefix guest-packages-,$(VM_BASES)) | deps-vm
	@TEST_STAGE=vm ONLY= VM_BUILDS="$(VM_BUILDS)" VM_FULL_PLAN="$(VM_FULL_PLAN)" VM_KERNEL=$(VM_KERNEL) $(TOP)/tests/vm/run.sh --rootfs

## build: guest-selftests-<base>  <base>'s mm selftests, staged for the quick guest's initramfs
GUEST_SELFTESTS := $(addprefix guest-selftests-,$(GUEST_BASES))
PHONY += $(GUEST_SELFTESTS)
$(GUEST_SELFTESTS): guest-selftests-%: guest-kernel-% | deps-vm
	@$(TOP)/tools/peer/selftests-build.sh $(call guest_build,$*) | tail -n 1

## test: check-prebuild  build ahead, on make check's host lane, what the guest lane needs; check each
PHONY += check-prebuild
check-prebuild: $(addprefix guest-selftests-,$(VM_BASES)) vm-rootfs canary-bad-kernel canary-rootfs | deps-vm
	@CANARY_BAD="$$(cat $(CANARY_BAD_REF))" CANARY_GOOD=$(call guest_build,6.12) CANARY_NEW=$(call guest_build,6.1) \
		VM_BUILDS="$(VM_BUILDS)" VM_FULL_PLAN="$(VM_FULL_PLAN)" VM_KERNEL=$(VM_KERNEL) $(TOP)/tests/prebuild/run.sh

## test: check-vm-all  check-vm on the whole matrix: every full path, the debug builds of VM_DEBUG_BASES
PHONY += check-vm-all
check-vm-all: $(addprefix guest-packages-,$(VM_BASES)) $(VM_DEBUG_KERNELS) $(VM_BINS) | deps-vm
	@VM_BUILDS="$(VM_BUILDS)" VM_DEBUG_BUILDS="$(VM_DEBUG_BUILDS)" VM_FULL_PLAN= VM_KERNEL=$(VM_KERNEL) $(TOP)/tests/vm/run.sh

## test: check-vm-debug  check-vm's splat-scan self-test and its debug guests (VM_DEBUG_BASES) only
PHONY += check-vm-debug
check-vm-debug: $(VM_DEBUG_KERNELS) $(VM_BINS) | deps-vm
	@TEST_STAGE=vm ONLY='vm/splat_test vm/debug-*' VM_BUILDS= VM_FULL_PLAN= VM_DEBUG_BUILDS="$(VM_DEBUG_BUILDS)" $(TOP)/tests/vm/run.sh

## test: check-vm-quick  the harness self-test and the quick path of check-vm only
PHONY += check-vm-quick
check-vm-quick: $(addprefix guest-kernel-,$(VM_BASES)) $(VM_BINS) | deps-vm
	@TEST_STAGE=vm ONLY='vm/vmtest_test vm/quick-*' VM_FULL_PLAN= VM_BUILDS="$(VM_BUILDS)" VM_KERNEL=$(VM_KERNEL) $(TOP)/tests/vm/run.sh

# check-vm-all runs both paths on both bases (the full path on Debian 12 and
# 13). The 6.1 guest needs
# configs/kernel/guest/6.1/base-full.config: tinyconfig leaves BASE_FULL off
# there, and the pid_max cap that follows fails systemd-sysctl.service.

# What bench-vm and bench-proof boot: patched and vanilla guest builds of
# both bases (bench-proof builds its NR_CPUS, LOCK_STAT and fault variants
# itself, with tools/vmtest/build-kernel.sh).
BENCH_BUILDS = $(foreach b,$(GUEST_BASES),$(call guest_build,$(b)) $(call vanilla_build,$(b)))
BENCH_NEEDS := $(addprefix guest-kernel-,$(GUEST_BASES)) $(VANILLA_KERNELS) $(VM_BINS) $(BIN_DIR)/mmbench

## bench: bench-vm  patched vs vanilla vs Debian stock kernels, both bases (out/bench/REPORT.md)
PHONY += bench-vm
bench-vm: $(BENCH_NEEDS) | deps-vm
	@BENCH_BUILDS="$(BENCH_BUILDS)" $(VM_TOOLS)/bench-vm.sh

## build: bench-kernels  every kernel bench-vm boots, made ahead without a boot; prints their identity files
PHONY += bench-kernels
bench-kernels: $(BENCH_NEEDS) | deps-vm
	@for b in $(GUEST_BASES); do $(VM_TOOLS)/stock-kernel.sh $$b && echo $(OUT)/cache/stock/$$b/mmbatch-build.env || exit 1; done
	@BENCH_BUILDS="$(BENCH_BUILDS)" $(VM_TOOLS)/bench-proof.sh --kernels

## bench: bench-proof  the series' claims checked on booted guests (out/bench/PROOF.md)
PHONY += bench-proof
bench-proof: $(BENCH_NEEDS) | deps-vm
	@BENCH_BUILDS="$(BENCH_BUILDS)" $(VM_TOOLS)/bench-proof.sh

## bench: bench-ipi-sources  where the TLB IPIs a benchmark counts come from (out/bench/IPI-SOURCES.md)
PHONY += bench-ipi-sources
bench-ipi-sources: $(VM_BINS) $(BIN_DIR)/mmbench | deps-vm
	@$(VM_TOOLS)/bench-ipi-sources.sh

# What bench-debug boots: the guest build and the debug build of each base.
BENCH_DEBUG_BUILDS = $(foreach b,$(GUEST_BASES),$(call guest_build,$(b)) $(call debug_build,$(b)))

## bench: bench-debug  what the debug checkers cost: guest vs debug build, both bases (out/bench/DEBUG.md)
PHONY += bench-debug
bench-debug: $(addprefix guest-kernel-,$(GUEST_BASES)) $(addprefix debug-kernel-,$(GUEST_BASES)) $(VM_BINS) | deps-vm
	@BENCH_BUILDS="$(BENCH_DEBUG_BUILDS)" $(VM_TOOLS)/bench-debug.sh

## build: vm-initramfs  the quick-path busybox initramfs with mmbench and mmbatchd: out/vm/initramfs.cpio.gz
PHONY += vm-initramfs
vm-initramfs: $(VM_BINS) | deps-vm
	@$(VM_TOOLS)/mkinitramfs.sh -o $(OUT)/vm/initramfs.cpio.gz $(MMB_STATIC):/usr/bin/mmbench $(BIN_DIR)/mmbatchd:/usr/sbin/mmbatchd && echo "vm-initramfs: $(OUT)/vm/initramfs.cpio.gz" >&2
