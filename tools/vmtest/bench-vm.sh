#!/bin/bash
# bench-vm: the side-by-side benchmark (`make bench-vm`, not part of check).
# For each base, boots in turn the patched guest kernel, the same source and
# config without the series (PATCHES=0, "vanilla"), and Debian's stock kernel
# of that base (all with the quick-path busybox initramfs, 2 vCPUs, 2 NUMA
# nodes), runs the mmbench suite in each and writes
#   $OUT/bench/<base>-<variant>.json     the mmbench documents
#   $OUT/bench/<base>-<A>-vs-<B>.txt|png mmbench compare output and chart
#   $OUT/bench/REPORT.md                 medians, ratios, verdicts, anchors
#   $OUT/bench/report.json               the same tables as JSON
# then runs bench-proof.sh (the patch series' claims: batch sizes, flush
# counts, LOCK_STAT lru_lock, integrity with its negative control, drain) and
# appends its PROOF.md to the report (BENCH_PROOF=0 skips it).
# The patched and vanilla kernels are the builds BENCH_BUILDS names by their
# identity files (tools/kbuild/identity.sh; `make bench-vm` builds them
# first): each file's BASE and VARIANT (mmbatch = patched, vanilla) say which
# it is. The stock variant is Debian's kernel (tools/vmtest/stock-kernel.sh
# and its identity file). A variant without a kernel is reported as missing.
# A run with fewer BENCH_VARIANTS keeps the other variants' documents, so the
# report can be completed variant by variant (it names each kernel release).
# Reads: BENCH_BUILDS (identity files), OUT, BENCH_BASES (default "6.12 6.1"; set and empty: boot
#   nothing, only rebuild the report from the documents there), BENCH_VARIANTS (default
#   "patched vanilla stock"), BENCH_SUITE (default
#   fault,migrate,munmap,exitdrain,integrity), BENCH_REPS (default 5),
#   BENCH_QUICK=1 (the benchmarks' --quick sizes, for a short run),
#   BENCH_TIMEOUT (per boot, default 3600), BENCH_PROOF (default 1),
#   PROOF_* (see bench-proof.sh), VMTEST_* (see vmtest).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
bases=${BENCH_BASES-6.12 6.1}
variants=${BENCH_VARIANTS:-patched vanilla stock}
suite=${BENCH_SUITE:-fault,migrate,munmap,exitdrain,integrity}
reps=${BENCH_REPS:-5}
quick=${BENCH_QUICK:-}
[ "$quick" != 0 ] || quick=
timeout=${BENCH_TIMEOUT:-3600}
bench=$out/bench
mkdir -p "$bench"

note() { echo "bench-vm: $*" >&2; }
mmbench=$out/bin/mmbench
# shellcheck source=tools/vmtest/bench-lib.sh
. "$here/bench-lib.sh"

# kernel_of BASE VARIANT: the bzImage/vmlinuz to boot, from its identity file.
kernel_of() {
	local id
	case "$2" in
	stock) "$here/stock-kernel.sh" "$1" && id=$out/cache/stock/$1/mmbatch-build.env ;;
	*) id=$(bench_build "$1" "$2") ;;
	esac
	bid_get "$id" IMAGE
}

t0=$SECONDS
[ -x "$mmbench" ] || { echo "ERROR: bench-vm: no $mmbench (make mmbench)" >&2; exit 1; }
for base in $bases; do
	for variant in $variants; do
		rm -f "$bench/$base-$variant.json"
		if ! kernel=$(kernel_of "$base" "$variant") || [ ! -f "$kernel" ]; then
			note "[$base $variant] no kernel, skipped"
			continue
		fi
		t1=$SECONDS
		bench_run_suite "$base" "$variant" "$kernel" || true
		note "[$base $variant] $((SECONDS - t1)) s"
	done
done

# compare BASE A B: mmbench compare A (baseline) B, text + chart.
compare() {
	local f=$bench/$1-$3-vs-$2
	[ -f "$bench/$1-$2.json" ] && [ -f "$bench/$1-$3.json" ] || return 0
	# Relative names: the text goes into the report as it is.
	(cd "$bench" && "$mmbench" compare "$1-$2.json" "$1-$3.json" --plot "$(basename "$f").png") > "$f.txt" 2>&1 || true
}
for base in 6.12 6.1; do
	compare "$base" vanilla patched
	compare "$base" stock patched
	compare "$base" stock vanilla
done

# The report covers every base and variant that has a document, also those
# of earlier runs with other BENCH_BASES/BENCH_VARIANTS.
"$here/bench-report.sh" "$bench" "6.12 6.1" "patched vanilla stock" "--reps $reps${quick:+ --quick}" > "$bench/REPORT.md.tmp"
proof_rc=0
if [ "${BENCH_PROOF:-1}" != 0 ]; then
	rm -f "$bench/PROOF.md"
	"$here/bench-proof.sh" || proof_rc=$?
fi
if [ -f "$bench/PROOF.md" ]; then
	{ echo; echo "---"; echo; sed '1s/^# /## /; 2,$s/^## /### /' "$bench/PROOF.md"; } >> "$bench/REPORT.md.tmp"
fi
mv "$bench/REPORT.md.tmp" "$bench/REPORT.md"
note "wrote $bench/REPORT.md, report.json ($((SECONDS - t0)) s)"
[ "$proof_rc" = 0 ] || { note "bench-proof failed (exit $proof_rc): see $bench/PROOF.md"; exit "$proof_rc"; }
