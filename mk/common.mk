# Shared rules: dependency installation, the staged `check`, `help`, `clean`.
#
# An area defines its test stage as the target check-<stage> (its recipe runs
# tests/<area>/run.sh); the ordered list of stages is CHECK_STAGES in the
# top-level Makefile. `## group: target  text` comments make `make help`.


MAIN_TARGETS :=
TOOLS_TARGETS :=

# C flags shared by every userspace program (daemon, benchmarks, tests).
# SAN=1 builds the same sources with ASan+UBSan into out/san/.
CC         ?= cc
MB_CFLAGS  := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -g
# The package version, defined once in specs/mmbatchd/VERSION: the programs
# print it for --version (-DMB_PKG_VERSION), the man pages carry it (mk/man.mk),
# the packages are named after it (tools/pkg/mmbatchd-pkg.sh).
MB_PKG_VERSION_FILE := $(TOP)/specs/mmbatchd/VERSION
MB_PKG_VERSION := $(shell tr -d '[:space:]' < $(MB_PKG_VERSION_FILE))
MB_CFLAGS  += -DMB_PKG_VERSION='"$(MB_PKG_VERSION)"'
export MB_PKG_VERSION
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ifeq ($(SAN),1)
BIN_DIR    := $(OUT)/san/bin
OBJ_DIR    := $(OUT)/san/obj
MB_CFLAGS  += $(SAN_CFLAGS)
MB_LDFLAGS += -fsanitize=address,undefined
else
BIN_DIR    := $(OUT)/bin
OBJ_DIR    := $(OUT)/obj
endif
export SAN

# deps-%: install a named package set from mk/deps/<set>.txt (idempotent,
# quick when everything is already there).
PHONY += deps
deps:
	@$(TOP)/tools/deps.sh $(TOP)/mk/deps/*.txt

deps-%:
	@$(TOP)/tools/deps.sh $(TOP)/mk/deps/$*.txt

# The subset selector of every stage (tests/lib/assert.sh): ONLY='STAGE
# STAGE/TEST ...'. TEST_STAGE tells a stage's tests which stage runs them.
export ONLY
check-%: export TEST_STAGE ?= $(@:check-%=%)

## test: check  every test stage of CHECK_STAGES, in order, timed (ONLY='STAGE[/TEST] ...' selects)
# check installs only what its stages need: each stage depends on its own
# deps-<area>, so bench-only tools (tuned) never reach a test machine.
PHONY += check
check: deps-base
	@$(TOP)/tools/check.sh $(CHECK_STAGES)

## misc: clean  remove out/
PHONY += clean
clean:
	rm -rf $(OUT)

## misc: help  this list
PHONY += help
help:
	@$(TOP)/tools/help.sh $(TOP)/Makefile $(TOP)/mk/*.mk
