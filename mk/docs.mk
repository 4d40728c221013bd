# The doc-test: every fenced block of README.md, CONTRIBUTING.md and
# docs/**/*.md runs (on a fake host in a private mount namespace, in the
# Debian 12 test chroot with a local signed repository, or as `make -n`), or
# is marked skip with a reason;
# every relative link and every `make TARGET` a page names resolves. The
# block kinds: tests/docs/run.sh, and docs/developing/testing.md "The
# doc-test". The host blocks install the 6.12 guest packages of
# BUILD=$(call guest_build,6.12); in `make check` this stage runs after
# check-repo, which has them, so guest-packages-6.12 is then up to date.
# DOCS_PACKAGES_TARGET= (empty) drops that prerequisite, e.g. with
# DOCS_PKG_DIR=DIR naming a directory that holds the packages.

DOCS_PACKAGES_TARGET ?= guest-packages-6.12
export DOCS_PKG_DIR

## test: check-docs  run the command blocks of README, CONTRIBUTING and docs/; links, names exist
PHONY += check-docs
check-docs: tools $(DOCS_PACKAGES_TARGET) | deps-docs deps-canary deps-repo deps-packages
	@BIN_DIR=$(BIN_DIR) BUILD=$(call guest_build,6.12) $(TOP)/tests/docs/run.sh
