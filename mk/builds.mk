# The guard on make check's kernel builds: tools/check.sh starts a builds
# log (MMBATCH_BUILDS_LOG, default out/check/builds.tsv) to which every
# tools/kbuild/build.sh run appends a line; check-builds, the last step of
# CHECK_STAGES, reads it (tests/builds/guard.sh). The list it checks the
# builds against: docs/developing/testing.md, "The kernel builds of make
# check".

## test: check-builds  the kernel builds of this make check (the builds log): their table, the objects and CPU each stage compiled; fails when one configuration (config, series and extra-patches hashes) was compiled twice (unless seeded from the other), a build dir compiled again, or a compiled build has no row in docs/developing/testing.md (a full run: a row has no build); with no log, only the guard's unit test
PHONY += check-builds
check-builds: | deps-base
	@$(TOP)/tests/builds/run.sh
