#!/bin/bash
# Builds one kernel for the VM benchmarks and tests that need a build no make
# target names (an NR_CPUS or FRAGMENTS variant, an EXTRA_PATCHES fault), by
# running the kbuild stage scripts (tools/kbuild/source.sh, series.sh,
# config.sh, build.sh) and, with --package, tools/pkg/packages.sh, with
# exactly the knobs given as arguments: none is taken from the environment.
# Writes the path of the build's identity file (tools/kbuild/identity.sh,
# written by the stages through KB_IDENTITY_OUT) to the FILE -o names; the
# caller reads the build through that identity. The stages' own output goes
# to stderr.
#   build-kernel.sh -o FILE|--expect IDENTITY [--config-only] [--package] KNOB=VALUE...
#     --expect IDENTITY  fail unless the stages wrote this identity file (a
#                    make target that names the file it provides)
#     --config-only  stop after config.sh (the identity then has CONFIG, no IMAGE)
#     --package      also the packages (BUILD=<identity> packages.sh), kernel
#                    only unless PKG_MMBATCHD=1 is among the arguments
#     KNOB: BASE SRC FLAVOR DEBUG NR_CPUS LOCALVERSION PATCHES EXTRA_PATCHES
#           FRAGMENTS SIGN_KEY PKG_MMBATCHD, and KB_SEED_FROM (not what is
#           built but how: a new build dir starts as a copy of that build,
#           tools/kbuild/config.sh; mk/vm-canary.mk's BAD kernel)
# Reads: OUT, TOP, and what the stages read besides the knobs (JOBS, CCACHE,
# CCACHE_DIR).
set -eu

usage() { echo "usage: build-kernel.sh -o FILE|--expect IDENTITY [--config-only] [--package] KNOB=VALUE..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
result='' expect='' config_only=0 package=0
while [ $# -gt 0 ]; do
	case "$1" in
	-o) [ $# -ge 2 ] || usage; result=$2; shift 2 ;;
	--expect) [ $# -ge 2 ] || usage; expect=$2; shift 2 ;;
	--config-only) config_only=1; shift ;;
	--package) package=1; shift ;;
	-h|--help) usage ;;
	-*) echo "ERROR: build-kernel: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ -n "$result$expect" ] || { echo "ERROR: build-kernel: -o FILE (it receives the identity file's path) or --expect IDENTITY is required" >&2; exit 2; }
[ $config_only = 0 ] || [ $package = 0 ] || { echo "ERROR: build-kernel: --config-only and --package exclude each other" >&2; exit 2; }

# Nothing from the caller's environment decides what is built.
unset SRC DEBUG NR_CPUS LOCALVERSION PATCHES EXTRA_PATCHES FRAGMENTS SIGN_KEY KBUILD_SIGN_PIN \
	DISTCC_HOSTS BUILD_TARGETS PATCHES_ROOT KB_BUILD_DIR KB_SEED_FROM BUILD BASE FLAVOR
PKG_MMBATCHD=0
for kv in "$@"; do
	case "${kv%%=*}" in
	BASE|SRC|FLAVOR|DEBUG|NR_CPUS|LOCALVERSION|PATCHES|EXTRA_PATCHES|FRAGMENTS|SIGN_KEY|PKG_MMBATCHD|KB_SEED_FROM)
		[ "${kv#*=}" != "$kv" ] || { echo "ERROR: build-kernel: '$kv': expected KNOB=VALUE" >&2; exit 2; }
		export "${kv?}" ;;
	*) echo "ERROR: build-kernel: '$kv': not a knob (BASE SRC FLAVOR DEBUG NR_CPUS LOCALVERSION PATCHES EXTRA_PATCHES FRAGMENTS SIGN_KEY PKG_MMBATCHD KB_SEED_FROM)" >&2; exit 2 ;;
	esac
done
export TOP=${TOP:-$top} PKG_MMBATCHD
kb=$top/tools/kbuild
idfile=$(mktemp)
trap 'rm -f "$idfile"' EXIT

echo "build-kernel: $* ($([ $config_only = 1 ] && echo config only || echo build)$([ $package = 1 ] && echo ", packages"))" >&2
"$kb/source.sh" >&2
"$kb/series.sh" >&2
KB_IDENTITY_OUT=$idfile "$kb/config.sh" >&2
[ $config_only = 1 ] || KB_IDENTITY_OUT=$idfile "$kb/build.sh" >&2
identity=$(cat "$idfile")
[ -f "$identity" ] || { echo "ERROR: build-kernel: the stages named no identity file ($*)" >&2; exit 1; }
[ -z "$expect" ] || [ "$(realpath "$identity")" = "$(realpath -m "$expect")" ] ||
	{ echo "ERROR: build-kernel: the build of '$*' is $identity, not $expect (the name the caller expects)" >&2; exit 1; }
[ $package = 0 ] || BUILD=$identity "$top/tools/pkg/packages.sh" >&2
if [ -n "$result" ]; then
	mkdir -p "$(dirname "$result")"
	echo "$identity" > "$result"
fi
