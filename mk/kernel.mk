# Kernel pipeline, stages 1-4: source -> series -> config -> build. Each stage
# is a script under tools/kbuild/ that finds the previous stage's output under
# $(OUT) from the same knobs; packaging (stage 5) and reproducibility (stage 6)
# live in mk/packages.mk. Layout and knobs: docs/building/pipeline.md.
#
# Knobs (make variables or environment): BASE=6.12|6.1, SRC=PATH,
# FLAVOR=cloud|generic|guest, DEBUG=0|1 (the flavor's debug variant), NR_CPUS=N, LOCALVERSION=..., PATCHES=0,
# EXTRA_PATCHES="a.patch ...", FRAGMENTS="a.config ...", SIGN_KEY=PEM, JOBS=N,
# CCACHE=0, CCACHE_DIR, DISTCC_HOSTS, KCFLAGS.

KBUILD_DIR := $(TOP)/tools/kbuild

# KBUILD_SIGN_PIN (the passphrase of an encrypted SIGN_KEY) from the
# environment only: on the make command line it shows in ps(1) to every user
# for as long as make runs, and make hands it to every command in MAKEFLAGS.
# Stops every target, before anything runs (tools/kbuild/lib.sh checks
# MAKEFLAGS too, for a make that is not this one).
ifeq ($(origin KBUILD_SIGN_PIN),command line)
$(error KBUILD_SIGN_PIN was given on the make command line, where ps shows it to every user: pass it in the environment instead (read -rs KBUILD_SIGN_PIN && export KBUILD_SIGN_PIN; see docs/building/signing.md))
endif
export SRC DEBUG NR_CPUS LOCALVERSION PATCHES EXTRA_PATCHES FRAGMENTS SIGN_KEY JOBS CCACHE
# The signing key's passphrase, distcc's hosts and a partial build's
# targets (docs/building/signing.md, distcc.md).
export KBUILD_SIGN_PIN DISTCC_HOSTS BUILD_TARGETS

## kernel: source  unpack the base source once, pristine (BASE=6.12|6.1 or SRC=PATH)
PHONY += source
source: | deps-kernel
	@$(KBUILD_DIR)/source.sh

## kernel: series  dry-run the patch series, then apply it to a fresh copy (PATCHES=0: none)
PHONY += series
series: source
	@$(KBUILD_DIR)/series.sh

## kernel: config  base config + fragments + knobs, checked; prints the .config path last
PHONY += config
config: series
	@$(KBUILD_DIR)/config.sh

## kernel: kernel  build the configured kernel (ccache); prints the bzImage path last
PHONY += kernel
kernel: config
	@$(KBUILD_DIR)/build.sh

# The guest kernels the test stages share, one per base, each with its
# identity file at a fixed path, $(call guest_build,BASE) (what stages read,
# e.g. BUILD=$(call guest_build,6.12)): built by the stage scripts with
# BASE=<base> FLAVOR=guest and every other pipeline knob unset
# (tests/lib/knobs.sh), whatever the make command line says.
GUEST_BASES := 6.12 6.1
guest_build = $(OUT)/build/$(1)-guest/mmbatch-build.env
GUEST_KERNELS := $(addprefix guest-kernel-,$(GUEST_BASES))

## kernel: guest-kernels  the guest kernels of every base in GUEST_BASES (6.12 6.1)
PHONY += guest-kernels
guest-kernels: $(GUEST_KERNELS)

## kernel: guest-kernel-<base>  <base>'s guest kernel, every other knob unset; prints its identity file
PHONY += $(GUEST_KERNELS)
$(GUEST_KERNELS): guest-kernel-%: | deps-kernel
	@bash -c '. "$(TOP)/tests/lib/knobs.sh" && unset_pipeline_knobs && export BASE=$* FLAVOR=guest && for s in source series config build; do "$(KBUILD_DIR)/$$s.sh" >/dev/null || exit; done' && echo $(call guest_build,$*)

# The debug variant of the guest kernel of each base (DEBUG=1,
# configs/kernel/debug: lockdep, KASAN, DEBUG_VM, ...), release
# <kversion>-mmbatch<N>-guest+debug, its identity file at a fixed path,
# $(call debug_build,BASE): built like the guest kernels (BASE=<base>
# FLAVOR=guest DEBUG=1, every other knob unset).
debug_build = $(OUT)/build/$(1)-guest-debug/mmbatch-build.env
DEBUG_KERNELS := $(addprefix debug-kernel-,$(GUEST_BASES))
# The debug kernels `make check` builds and boots: 6.12's only. A
# KASAN+lockdep guest costs about as much cold on either base, so the base
# is chosen by what else uses it: 6.12 is the base `make` ships by default
# and check-packages installs its debug image. 6.1's debug guest boots in
# `make check-vm-debug` (and check-vm-all), its own targets; here it is a
# listed skip. CHECK_DEBUG_BASES='6.12 6.1' puts it back into make check.
CHECK_DEBUG_BASES ?= 6.12

## kernel: debug-kernels  the debug guest kernels of every base in GUEST_BASES
PHONY += debug-kernels
debug-kernels: $(DEBUG_KERNELS)

## kernel: debug-kernel-<base>  <base>'s debug guest kernel (FLAVOR=guest DEBUG=1); prints its identity file
PHONY += $(DEBUG_KERNELS)
$(DEBUG_KERNELS): debug-kernel-%: | deps-kernel
	@bash -c '. "$(TOP)/tests/lib/knobs.sh" && unset_pipeline_knobs && export BASE=$* FLAVOR=guest DEBUG=1 && for s in source series config build; do "$(KBUILD_DIR)/$$s.sh" >/dev/null || exit; done' && echo $(call debug_build,$*)

## kernel: patches-check  every base: each patch applies, MANIFEST verify lines hold
PHONY += patches-check
patches-check: | deps-kernel
	@$(KBUILD_DIR)/patches-check.sh

## kernel: patches-build-each  each patch builds on its own (BASES, FLAVOR=guest)
PHONY += patches-build-each
patches-build-each: | deps-kernel
	@FLAVOR=$(if $(filter command line environment,$(origin FLAVOR)),$(FLAVOR),guest) $(KBUILD_DIR)/build-each.sh

## test: check-pipeline  the pipeline's fixtures, the debug variant and the guest kernels of both bases
PHONY += check-pipeline
check-pipeline: | deps-kernel
	@PIPELINE_DEBUG_BASES="$(CHECK_DEBUG_BASES)" $(TOP)/tests/pipeline/run.sh

## bench: bench-pipeline-quick  bench-pipeline on the 6.12 guest's prepare + mm/ only (minutes)
PHONY += bench-pipeline-quick
bench-pipeline-quick: | deps-kernel
	@BASE=6.12 FLAVOR=guest BENCH_TARGETS=mm/ $(TOP)/tests/pipeline/bench.sh

## bench: bench-pipeline  pipeline overhead vs plain make bzImage modules; ccache-warm rebuild share
PHONY += bench-pipeline
bench-pipeline: | deps-kernel
	@$(TOP)/tests/pipeline/bench.sh

## bench: bench-packaging  the pipeline's packaging vs kbuild's bindeb-pkg + binrpm-pkg on the same .config
PHONY += bench-packaging
bench-packaging: | deps-kernel deps-packages deps-bench-packaging
	@BASE=$(BASE) FLAVOR=$(FLAVOR) DEBUG=$(DEBUG) $(TOP)/tests/pipeline/bench_packaging.sh
