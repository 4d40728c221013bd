# The dependency installer itself (tools/deps.sh; the deps-% rules are in
# mk/common.mk): it waits for the apt/dpkg locks of a fresh host.

## test: check-deps  tools/deps.sh waits for held apt/dpkg locks (bounded by DEPS_LOCK_TIMEOUT)
PHONY += check-deps
check-deps: | deps-installer
	@$(TOP)/tests/deps/run.sh
