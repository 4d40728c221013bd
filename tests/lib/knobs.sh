# shellcheck shell=bash
# The kernel pipeline's knobs (tools/kbuild/lib.sh;
# docs/building/pipeline.md): a test stage names the kernels it builds itself, so values from
# the caller's make command line or environment must not reach those builds.
# Sourced by the stages that build kernels.
#   unset_pipeline_knobs [NAME...]   unsets every knob, and the NAMEs given
#   bench_knobs FLAVOR               for the pipeline benches: BASE (default
#                                    6.12), FLAVOR (default the one given) and
#                                    JOBS (default nproc) kept and exported,
#                                    every other knob unset (KB_IDENTITY_OUT too),
#                                    and the build cache off (KB_BUILD_CACHE=0:
#                                    a bench times the builds themselves)

unset_pipeline_knobs() {
	unset SRC DEBUG NR_CPUS LOCALVERSION PATCHES EXTRA_PATCHES FRAGMENTS SIGN_KEY KBUILD_SIGN_PIN \
		DISTCC_HOSTS BUILD_TARGETS PATCHES_ROOT BASES KB_BUILD_DIR KB_SEED_FROM "$@"
}

bench_knobs() {
	BASE=${BASE:-6.12}
	FLAVOR=${FLAVOR:-$1}
	JOBS=${JOBS:-$(nproc)}
	KB_BUILD_CACHE=0
	export BASE FLAVOR JOBS KB_BUILD_CACHE
	unset_pipeline_knobs KB_IDENTITY_OUT
}
