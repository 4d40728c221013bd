#!/bin/bash
# build-each: every patch of a series builds on its own, in series order
# (`make patches-build-each`): for k = 1..n, the pristine base plus the first
# k patches is configured and built. The prefixes go in as EXTRA_PATCHES of
# the vanilla variant (PATCHES=0), so each gets its own tree and build
# directory and the same dry-run/apply checks as any build; the last one is
# the ordinary patched build. Prints one line per patch, exit 1 if any fails.
# Reads: BASES (default "6.1 6.12"), FLAVOR (default guest), MAKE, TOP, OUT,
#        and the pipeline's knobs (NR_CPUS, CCACHE, JOBS...).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

bases=${BASES:-6.1 6.12}
flavor=${FLAVOR:-guest}
make_k() { ${MAKE:-make} -C "$TOP" --no-print-directory -s kernel FLAVOR="$flavor" "$@"; }

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
		if [ $((i + 1)) -eq ${#entries[@]} ]; then
			make_k BASE="$base" >"$log" 2>&1 && rc=0 || rc=$?
		else
			make_k BASE="$base" PATCHES=0 EXTRA_PATCHES="${prefix[*]}" >"$log" 2>&1 && rc=0 || rc=$?
		fi
		if [ "$rc" = 0 ]; then
			lines+=("build-each: $base $name: builds ($((SECONDS - t0)) s, $(tail -n 1 "$log"))")
		else
			lines+=("build-each: $base $name: FAILED (log: $log)")
			tail -n 15 "$log" >&2
			failed=1
		fi
	done
done
printf '%s\n' "${lines[@]}"
exit $failed
