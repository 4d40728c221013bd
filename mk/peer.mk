# Other people's tests on our kernels (the "peer suites"): the kernel's own mm
# selftests, built from each build's tree (tools/peer/selftests-build.sh), on
# booted guests with 4 vCPUs and 2 NUMA nodes, patched against the vanilla
# twin of the same base and config (tools/peer/selftests-run.sh), and on the
# debug guests. check-vm runs the quick set of each list
# (tools/peer/selftests-<base>.list) on the patched and debug guests; these
# targets run the whole lists, outside `make check` (tens of minutes).

PEER_BASES ?= $(GUEST_BASES)
PEER_SELFTEST_BUILDS = $(foreach b,$(PEER_BASES),$(call guest_build,$(b)) $(call vanilla_build,$(b)))
PEER_DEBUG_BUILDS = $(foreach b,$(PEER_BASES),$(call debug_build,$(b)))

## proof: peer-selftests  the kernel's mm selftests, patched vs vanilla guests of PEER_BASES
PHONY += peer-selftests
peer-selftests: $(addprefix guest-kernel-,$(PEER_BASES)) $(addprefix vanilla-kernel-,$(PEER_BASES)) $(MMB_STATIC) | deps-vm
	@$(TOP)/tools/peer/selftests-run.sh --set full --report $(OUT)/peer/selftests-report.txt $(PEER_SELFTEST_BUILDS)

## proof: peer-selftests-debug  the same lists on the debug guests of PEER_BASES; any splat fails
PHONY += peer-selftests-debug
peer-selftests-debug: $(addprefix debug-kernel-,$(PEER_BASES)) $(MMB_STATIC) | deps-vm
	@$(TOP)/tools/peer/selftests-run.sh --set full --report $(OUT)/peer/selftests-debug-report.txt $(PEER_DEBUG_BUILDS)

# The vanilla guest builds, packaged (stress-ng boots the dpkg-installed
# kernel, as the full path does).
VANILLA_PACKAGES := $(addprefix vanilla-packages-,$(GUEST_BASES))
## build: vanilla-packages-<base>  package <base>'s vanilla guest kernel (PATCHES=0)
PHONY += $(VANILLA_PACKAGES)
$(VANILLA_PACKAGES): vanilla-packages-%: vanilla-kernel-% tools man | deps-packages
	@BUILD=$(call vanilla_build,$*) $(TOP)/tools/pkg/packages.sh

PEER_STRESS_SECONDS ?= 20
## proof: peer-stress-ng  Debian's stress-ng in the full-path guest, patched and vanilla of PEER_BASES
PHONY += peer-stress-ng
peer-stress-ng: $(addprefix guest-packages-,$(PEER_BASES)) $(addprefix vanilla-packages-,$(PEER_BASES)) | deps-vm
	@rc=0; for b in $(PEER_SELFTEST_BUILDS); do $(TOP)/tools/peer/stress-ng.sh $$b --seconds $(PEER_STRESS_SECONDS) || rc=1; done; exit $$rc

# mmbench integrity over every kind of folio (anon, anon-thp, fork-shared,
# shmem, file on tmpfs, ksm, mixed), one guest boot per kind
# (tools/peer/integrity-run.sh): the long run on the patched guests, the
# negative control on the canary's BAD kernel (6.1 with
# patches/test/6.1-migrate-skip-flush.patch), which every kind must catch.
# The goal is 6.1's (its migration path is our backport), so the long run
# boots 6.1 by default. 600 s a kind: at the migration rates measured per
# kind on the 4-vCPU guest, eight kinds of 600 s pass the goal with a margin
# (measured: docs/results/2026-12-05-peer-stress-ng.md, with the rates of
# docs/results/2026-12-02-integrity-kinds.md); --goal fails a run that
# falls short.
PEER_INTEGRITY_BASES ?= 6.1
PEER_INTEGRITY_SECONDS ?= 600
PEER_INTEGRITY_PAGES ?= 4096
PEER_INTEGRITY_GOAL ?= 10000000
## proof: peer-integrity  mmbench integrity, every kind, on the patched guests of PEER_INTEGRITY_BASES
PHONY += peer-integrity
peer-integrity: $(addprefix guest-kernel-,$(PEER_INTEGRITY_BASES)) $(MMB_STATIC) | deps-vm
	@$(TOP)/tools/peer/integrity-run.sh --expect ok --seconds $(PEER_INTEGRITY_SECONDS) --pages $(PEER_INTEGRITY_PAGES) --goal $(PEER_INTEGRITY_GOAL) --report $(OUT)/peer/integrity-report.txt $(foreach b,$(PEER_INTEGRITY_BASES),$(call guest_build,$(b)))

# 120 s a kind: every kind but file-ext4 catches the BAD kernel within
# seconds (mmbench killed by SIGSEGV), and those boots end there. file-ext4
# once did not catch it in 30 s (no write lost). With 120 s the guest hung,
# and was killed at its bound. The patched 6.1 guest passes the same 120 s
# with nothing lost (measured: docs/results/2026-12-05-peer-selftests-full.md).
PEER_NEGATIVE_SECONDS ?= 120
## proof: peer-negative  the negative control: every integrity kind must catch the canary's BAD kernel
PHONY += peer-negative
peer-negative: canary-bad-kernel $(MMB_STATIC) | deps-vm
	@$(TOP)/tools/peer/integrity-run.sh --expect fail --seconds $(PEER_NEGATIVE_SECONDS) --pages 1024 --report $(OUT)/peer/integrity-negative-report.txt "$$(cat $(CANARY_BAD_REF))"

# A kernel that breaks a selftest on purpose, to show the selftests check
# fails: 6.1 with patches/test/6.1-migrate-one-retry.patch (one trylock
# pass and one sync pass per folio instead of 3 + 7), built by the kbuild
# stage scripts with exactly these knobs; its identity file's path in
# SELFTESTS_BREAKER_REF.
SELFTESTS_BREAKER_PATCH := $(TOP)/patches/test/6.1-migrate-one-retry.patch
SELFTESTS_BREAKER_REF := $(OUT)/peer/breaker-build.path

## build: selftests-breaker-kernel  the 6.1 guest kernel with patches/test/6.1-migrate-one-retry.patch
PHONY += selftests-breaker-kernel
selftests-breaker-kernel: | deps-kernel
	@mkdir -p $(dir $(SELFTESTS_BREAKER_REF)) && $(TOP)/tools/vmtest/build-kernel.sh -o $(SELFTESTS_BREAKER_REF) BASE=6.1 FLAVOR=guest EXTRA_PATCHES=$(SELFTESTS_BREAKER_PATCH)

## proof: peer-selftests-breaker  the selftests check on a kernel broken on purpose
PHONY += peer-selftests-breaker
peer-selftests-breaker: guest-kernel-6.1 selftests-breaker-kernel $(MMB_STATIC) | deps-vm
	@$(TOP)/tools/peer/selftests-breaker.sh $(call guest_build,6.1) "$$(cat $(SELFTESTS_BREAKER_REF))"
