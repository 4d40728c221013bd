#!/bin/bash
# build-each: every patch of a series builds on its own, in series order
# (`make patches-build-each`): for k = 1..n, the pristine base plus the first
# k patches is configured and built. The prefixes go in as EXTRA_PATCHES of
# the vanilla variant (PATCHES=0), so each gets its own tree and build
# directory and the same dry-run/apply checks as any build; the last one is
# the ordinary patched build. Their trees sit where the patched build's does
# (lib.sh), so ccache compiles only the files whose source differs from the
# patched tree: a prefix costs what its missing patches touch. Each runs the
# stage scripts source, series, config and build (what `make kernel` runs)
# and is read back through its identity file (KB_IDENTITY_OUT). Prints one
# line per patch with the release and the bzImage, exit 1 if any fails.
# Reads: BASES (default "6.1 6.12"), FLAVOR (default guest), TOP, OUT,
#        and the pipeline's knobs (NR_CPUS, CCACHE, JOBS...).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bases=${BASES:-6.1 6.12}
flavor=${FLAVOR:-guest}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# build_k VAR=VALUE...: the four stages with those knobs; the identity
# file's path in $scratch/identity. Without the machine's build cache
# (KB_BUILD_CACHE=0): each prefix is compiled here, its proof, and the
# prefixes would push the test builds out of the cache.
build_k() {
	local stage
	rm -f "$scratch/identity"
	for stage in source series config build; do
		env FLAVOR="$flavor" KB_IDENTITY_OUT="$scratch/identity" KB_BUILD_CACHE=0 "$@" "$here/$stage.sh" || return
	done
}

failed=0 lines=()
for base in $bases; do
	dir=$TOP/patches/$base
	[ -d "$dir" ] || kb_die "build-each: no series for base '$base' ($dir)"
	mapfile -t entries < <(kb_series_entries "$dir")
	prefix=()
	for i in "${!entries[@]}"; do
		read -r name strip <<<"${entries[$i]}"
		[ "$strip" = 1 ] || kb_die "build-each: $dir/series: $name uses -p$strip; EXTRA_PATCHES take -p1 only"
		prefix+=("$dir/$name")
		t0=$SECONDS log=$OUT/logs/build-each-$base-$((i + 1)).log
		mkdir -p "$OUT/logs"
		kb_note "build-each: $base: building the series up to $name"
		rc=0
		if [ $((i + 1)) -eq ${#entries[@]} ]; then
			build_k BASE="$base" PATCHES=1 EXTRA_PATCHES= >"$log" 2>&1 || rc=$?
		else
			build_k BASE="$base" PATCHES=0 EXTRA_PATCHES="${prefix[*]}" >"$log" 2>&1 || rc=$?
		fi
		id=$(cat "$scratch/identity" 2>/dev/null || true)
		if [ "$rc" = 0 ] && image=$(bid_get "$id" IMAGE 2>>"$log") && release=$(bid_get "$id" KERNELRELEASE 2>>"$log"); then
			lines+=("build-each: $base $name: builds ($((SECONDS - t0)) s, $release, $image)")
		else
			lines+=("build-each: $base $name: FAILED (log: $log)")
			tail -n 15 "$log" >&2
			failed=1
		fi
	done
done
printf '%s\n' "${lines[@]}"
exit $failed
