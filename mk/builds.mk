# The guard on make check's kernel builds: tools/check.sh starts a builds
# log (MMBATCH_BUILDS_LOG, default out/check/builds.tsv) to which every
# tools/kbuild/build.sh run appends a line; check-builds, the last step of
# CHECK_STAGES, reads it (tests/builds/guard.sh). The list it checks the
# builds against: docs/developing/testing.md, "The kernel builds of make
# check".

## test: check-builds  this make check's kernel builds; fails on a configuration compiled twice
PHONY += check-builds
check-builds: | deps-base
	@$(TOP)/tests/builds/run.sh
