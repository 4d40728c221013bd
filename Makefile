# mmbatch: the one entry point.
#
# `make`        the main job: patched kernel packages (BASE=6.12 FLAVOR=cloud)
#               plus the daemon and benchmark packages, under out/packages/.
# `make check`  every test stage, each timed; CI runs exactly this.
# `make help`   the grouped list of targets.
#
# Each area keeps its rules in mk/<area>.mk; recipes are one line that calls a
# script (tools/... to build, tests/<area>/run.sh for a test stage), so the
# logic stays in scripts. Sources of the programs: src/; layout:
# docs/developing/layout.md.

SHELL      := /bin/bash
TOP        := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
OUT        ?= $(TOP)/out
BASE       ?= 6.12
FLAVOR     ?= cloud
export TOP OUT BASE FLAVOR

PHONY :=

# `make check`: the test stages (tools/check.sh runs each as
# `make check-<stage>`, timed). A step is a stage, or lanes that run side by
# side, LANE|LANE, each a comma list run in order; the lanes after the first
# run at nice 19 and fill the CPU it leaves idle (one after another, a guest
# stage left the 2 cores partly idle; measured:
# docs/results/2026-12-04-check-lanes.md). First the
# kernel builds of check-pipeline, beside check-chroots (the chroot tarballs
# the later stages unpack: on a new machine their mmdebstrap runs beside
# the compiles instead of on the guest lane's critical path) and the
# daemon's and benchmarks' stages, whose first (units) builds
# every program. Then every
# stage that boots a qemu guest, in one lane, so no two guests share the
# cores (their vCPUs starved: an RCU stall), beside the host-only stages.
# The kernel stages share the guest builds that check-pipeline makes (one
# per base), packaged once (check-packages, or the first stage that needs
# them; the other waits for packages.sh's lock). The host lane starts by
# building what the guest lane's canary and vm stages need beyond those
# (check-prebuild: the quick guests' selftests, the full paths' roots, the
# canary's BAD kernel and its disk's root), so their boots wait on no build.
# CHECK_LANES=1 runs the
# lanes one after another (each stage's time alone). Last, a step of its own
# once both lanes have ended: check-builds, the guard on the kernel builds of
# this run (every build.sh run appends a line to the builds log that
# tools/check.sh starts, out/check/builds.tsv): it prints them with the
# objects each stage compiled, and fails when one configuration was compiled
# twice (unless one build was seeded from the other: a derived variant), a
# build dir was compiled again, or a compiled build is missing from the list
# in docs/developing/testing.md (in a full run, also a listed build that no
# stage made).
CHECK_STAGES := harness deps \
	'pipeline|chroots,units,lint,canary-ctl,daemon,daemon-san,daemon-valgrind,daemon-fuzz,bench,bench-san' \
	'repo,sign,vm,canary-vm|prebuild,packages,rebase,docs,distcc,rollout' \
	builds

PHONY += all
all: main

include $(TOP)/mk/common.mk
include $(sort $(filter-out $(TOP)/mk/common.mk,$(wildcard $(TOP)/mk/*.mk)))

# Aggregates, declared after every area appended to them.
## build: main  the main job: kernel packages + daemon/benchmark packages
PHONY += main
main: $(MAIN_TARGETS)

## build: tools  the daemon and benchmarks into out/bin/
PHONY += tools
tools: $(TOOLS_TARGETS)

.PHONY: $(PHONY)
