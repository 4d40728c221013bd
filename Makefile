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

# `make check`: the test stages, in the order they run (tools/check.sh runs
# each as `make check-<stage>`, timed). Cheap stages first, so a broken build
# of the daemon shows in minutes; the kernel stages share the guest builds
# that check-pipeline makes (one per base), packaged once by check-packages.
CHECK_STAGES := harness deps daemon-unit-file daemon daemon-san daemon-valgrind \
	daemon-fuzz bench bench-san pipeline packages rebase repo docs sign distcc \
	canary rollout vm

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
