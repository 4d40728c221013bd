# Distributed kernel builds (DISTCC_HOSTS="host/N ..."; BUILD_TARGETS for a
# partial build). Its knobs live in the kernel pipeline
# (tools/kbuild/build.sh; docs/building/distcc.md).

## test: check-distcc  mm/ of the 6.12 guest compiled again through two local distccd, ccache off
PHONY += check-distcc
check-distcc: | deps-kernel deps-distcc
	@$(TOP)/tests/distcc/run.sh
