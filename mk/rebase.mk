# Rebase check: the series of a base against another Debian source release
# of the same base (a stable update): per-patch applied/fuzz/FAILED, MANIFEST
# claims on the new tree, then the guest kernel of the new source through the
# pipeline's stage scripts, read back by its identity file. Logic in
# tools/kbuild/rebase-check.sh; docs/building/rebase.md.
#
# Knobs: NEW_SRC=tarball|tree|linux-source-X.Y=VERSION|file.deb (required),
# REBASE_BUILD=0 (check only), REBASE_FUZZ=N (fuzz factor tried after
# --fuzz=0, default 2).

export NEW_SRC REBASE_BUILD REBASE_FUZZ

## kernel: rebase-check  the series and MANIFEST on another release (NEW_SRC=...), then its guest build
PHONY += rebase-check
rebase-check: | deps-kernel deps-rebase
	@$(TOP)/tools/kbuild/rebase-check.sh

## test: check-rebase  rebase-check on fixtures and on an older Debian 6.12 release (ONLY=rebase/<test>)
PHONY += check-rebase
check-rebase: | deps-kernel deps-rebase
	@$(TOP)/tests/rebase/run.sh
