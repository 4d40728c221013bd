# Shared rules: dependency installation, the staged `check`, `help`, `clean`.
#
# An area adds its test stage by appending to CHECK_STAGES (run in order by
# tools/check.sh, each timed) and its help lines to HELP_<GROUP>.

CHECK_STAGES :=
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

## test: check  every test stage, timed (what CI runs)
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
