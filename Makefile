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
# side, LANE|LANE, each a comma list run in order: the VM stages leave part
# of the 2 cores idle (the canary stage alone: 138 % CPU), which kernel
# builds and the daemon's tests fill (2026-12-04: 4859 s one after another).
# First the kernel builds of check-pipeline beside the daemon's and
# benchmarks' stages, whose first (daemon-unit-file) builds every program;
# then the packages and the VM path beside the stages that read them. The
# kernel stages share the guest builds that check-pipeline makes (one per
# base), packaged once by check-packages; a stage that needs them first
# waits for packages.sh's lock. CHECK_LANES=1 runs the lanes one after
# another (each stage's time alone).
CHECK_STAGES := harness deps \
	'pipeline|daemon-unit-file,daemon,daemon-san,daemon-valgrind,daemon-fuzz,bench,bench-san' \
	'packages,vm|rebase,repo,docs,sign,distcc,rollout,canary'

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
