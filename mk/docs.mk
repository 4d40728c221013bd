# The doc-test: every fenced block of README.md and docs/**/*.md runs (on a
# fake host in a private mount namespace, in the Debian 12 test chroot with a
# local signed repository, or as `make -n`), or is marked skip with a reason;
# every relative link resolves. The block kinds: tests/docs/run.sh, and
# docs/developing/testing.md "The doc-test". The host blocks install the 6.12
# guest packages, so in `make check` this stage runs after check-repo.

## test: check-docs  run every command block of README.md and docs/ (fake host, test chroot + local signed repo, make -n; skips name their reason); relative links resolve
PHONY += check-docs
check-docs: tools | deps-docs deps-canary deps-repo deps-packages
	@BIN_DIR=$(BIN_DIR) $(TOP)/tests/docs/run.sh
