# Canary boot with automatic rollback: `mmbatchctl canary KVER` (src/mmbatchctl/)
# boots a newly installed kernel once through GRUB; mmbatch-canary.service
# makes it the default only when its first-boot smoke run passed, otherwise
# the machine goes back to the previous kernel. README "Canary boots".
#
# (Named to sort before mk/vm.mk: mk/*.mk are included in name order, so
# check-canary runs after the packaging and rollout stages and before check-vm.)
#
# The VM cycle's kernels, by identity file: GOOD the 6.12 guest build and NEW
# the 6.1 one (mk/kernel.mk, packaged by mk/packages.mk), BAD the 6.1 guest
# with the fault patch, built and packaged here by the kbuild and pkg stage
# scripts with exactly these knobs (tools/vmtest/build-kernel.sh); its
# identity file's path lands in CANARY_BAD_REF. Its build dir, made for the
# first time, starts as a copy of the 6.1 guest's (KB_SEED_FROM: the same
# tree but for the fault patch), so kbuild compiles mm/migrate.c and what
# the release reaches instead of walking every object through ccache; the
# guest is built first for that (make guest-kernel-6.1: nothing to do when
# check-pipeline built it). A seeded dir is never kept in the build cache:
# a warm run seeds and compiles those few objects again.
CANARY_BAD_PATCH := $(TOP)/patches/test/6.1-migrate-skip-flush.patch
CANARY_BAD_REF := $(OUT)/vm/canary/bad-build.path
CANARY_BAD_SEED = $(patsubst %/,%,$(dir $(call guest_build,6.1)))

## build: canary-bad-kernel  the 6.1 guest kernel built to fail the smoke gate, packaged
PHONY += canary-bad-kernel
canary-bad-kernel: guest-kernel-6.1 | deps-kernel deps-packages
	@$(TOP)/tools/vmtest/build-kernel.sh --package -o $(CANARY_BAD_REF) BASE=6.1 FLAVOR=guest EXTRA_PATCHES=$(CANARY_BAD_PATCH) KB_SEED_FROM=$(CANARY_BAD_SEED)

## build: canary-rootfs  the canary cycle's disk root for each of CANARY_SUITES, made ahead; prints each
PHONY += canary-rootfs
canary-rootfs: guest-packages-6.12 guest-packages-6.1 canary-bad-kernel | deps-vm deps-packages deps-canary
	@TEST_STAGE=canary ONLY= CANARY_GOOD=$(call guest_build,6.12) CANARY_NEW=$(call guest_build,6.1) CANARY_BAD="$$(cat $(CANARY_BAD_REF))" $(TOP)/tests/canary/run.sh --rootfs

## test: check-canary  mmbatchctl on scratch trees and with the real mmbatchd, then the cycle in a VM
PHONY += check-canary
check-canary: guest-packages-6.12 guest-packages-6.1 canary-bad-kernel $(BIN_DIR)/mmbatchd | deps-vm deps-packages deps-canary
	@MMBATCHD=$(BIN_DIR)/mmbatchd CANARY_GOOD=$(call guest_build,6.12) CANARY_NEW=$(call guest_build,6.1) CANARY_BAD="$$(cat $(CANARY_BAD_REF))" $(TOP)/tests/canary/run.sh

## test: check-canary-ctl  check-canary's tests that boot nothing and need no kernel (CANARY_PARTS=ctl)
PHONY += check-canary-ctl
check-canary-ctl: $(BIN_DIR)/mmbatchd | deps-canary
	@MMBATCHD=$(BIN_DIR)/mmbatchd TEST_STAGE=canary-ctl CANARY_PARTS=ctl $(TOP)/tests/canary/run.sh

## test: check-canary-vm  check-canary's VM cycles only (CANARY_PARTS=vm), make check's guest lane
PHONY += check-canary-vm
check-canary-vm: guest-packages-6.12 guest-packages-6.1 canary-bad-kernel $(BIN_DIR)/mmbatchd | deps-vm deps-packages deps-canary
	@MMBATCHD=$(BIN_DIR)/mmbatchd TEST_STAGE=canary-vm CANARY_PARTS=vm CANARY_GOOD=$(call guest_build,6.12) CANARY_NEW=$(call guest_build,6.1) CANARY_BAD="$$(cat $(CANARY_BAD_REF))" $(TOP)/tests/canary/run.sh
