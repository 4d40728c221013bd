#!/bin/bash
# bench-vm: the side-by-side benchmark (`make bench-vm`, not part of check).
# For each base, boots in turn the patched guest kernel, the same source and
# config without the series (PATCHES=0, "vanilla"), and Debian's stock kernel
# of that base (all with the quick-path busybox initramfs, 2 vCPUs, 2 NUMA
# nodes), runs the mmbench suite in each and writes
#   $OUT/bench/<base>-<variant>.json     the mmbench documents
#   $OUT/bench/<base>-<A>-vs-<B>.txt|png mmbench compare output and chart
#   $OUT/bench/<base>-<variant>-seeds.json  the seeds' shapes (BENCH_SEEDS)
#   $OUT/bench/<base>-<variant>-cpus<N>.json  the scaling suite at N vCPUs
#   $OUT/bench/scaling-<benchmark>.png   counts per 1000 pages vs vCPUs
#   $OUT/bench/REPORT.md                 medians, ratios, verdicts, anchors,
#                                        the per-seed and scaling tables
#   $OUT/bench/report.json               the same tables as JSON
# Scaling (BENCH_CPUS): each kernel boots once more per vCPU count, 2
# included, and runs BENCH_SCALE_SUITE there BENCH_SCALE_REPS times
# (default 3: the counts are exact), migrate on a BENCH_SCALE_MIGRATE_MIB
# buffer (default 4 MiB) and compaction on its default size (3/4 of the
# node's free memory) keeping one page of every BENCH_SCALE_COMPACTION_KEEP
# (default 64; --keep-every): every count runs the same workload, and one
# small enough for the unbatched kernels, whose every migrated page sends
# an IPI to each other vCPU (on vanilla 6.1 under TCG the suite's sizes
# would need hours; measured: docs/results/2026-12-06-bench-vm-stopped.md). A
# small compaction size is no way out: 64 MiB left 6.12's patched and
# stock kernels at 2 and 4 vCPUs with no page migrated (the kept pages lay
# past the point where compaction's scanners met), while the whole node
# with few pages kept gives compaction pages to migrate wherever they lie.
# The counts per 1000 pages stay exact. The 2-vCPU suite boot also runs the seeds' items, each
# document merged from its own benchmarks, so <base>-<variant>.json stays
# what it was.
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
#   BENCH_CPUS (vCPU counts of the scaling runs, default "2 4 8"; each from 2
#   to the guest flavor's CONFIG_NR_CPUS; "2": no scaling, the report as
#   before), BENCH_SCALE_SUITE (default migrate,compaction,fault),
#   BENCH_SCALE_MIGRATE_MIB (default 4), BENCH_SCALE_COMPACTION_KEEP (default 64),
#   BENCH_SCALE_REPS (repetitions in the scaling boots, default 3),
#   BENCH_SEEDS (default 1: the seeds' items in the 2-vCPU boot and their
#   table; 0: neither), BENCH_BOOTS (2-vCPU boots per kernel, default 1;
#   N > 1: the variants boot in turns N times, <base>-<variant>[-seeds]-bootK.json
#   keep each boot's documents, and <base>-<variant>[-seeds].json hold the
#   boots' medians, one value per boot, so compare judges across boots: two
#   6.12 rates at 2 vCPUs once differed between twins whose batch sizes are
#   the same, a shift that lasted the whole boot; measured:
#   docs/results/2026-12-06-bench-vm.md), PROOF_* (see bench-proof.sh),
#   VMTEST_* (see vmtest).
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
scale_suite=${BENCH_SCALE_SUITE:-migrate,compaction,fault}
scale_migrate_mib=${BENCH_SCALE_MIGRATE_MIB:-4}
scale_compaction_keep=${BENCH_SCALE_COMPACTION_KEEP:-64}
scale_reps=${BENCH_SCALE_REPS:-3}
seeds=${BENCH_SEEDS:-1}
boots=${BENCH_BOOTS:-1}
# The seeds' shapes of workload (tools/vmtest/bench-seeds.tsv names the same).
seed_items=compaction,numa-hinting,fault:page_fault2,munmap:ebizzy
bench=$out/bench

# Knobs are checked before anything is booted or written. More vCPUs than
# the guest kernels' CONFIG_NR_CPUS would boot them with CPUs they ignore.
bad_knob() { echo "ERROR: bench-vm: $1" >&2; exit 2; }
max_cpus=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$top/configs/kernel/guest/guest.config")
cpu_counts=$(echo "${BENCH_CPUS:-2 4 8}" | tr -s ' \t' '\n' | sed '/^$/d')
[ -n "$cpu_counts" ] || bad_knob "BENCH_CPUS is empty (vCPU counts, e.g. '2 4 8')"
for n in $cpu_counts; do
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le "$max_cpus" ] ||
		bad_knob "BENCH_CPUS: '$n' is not a vCPU count from 2 to $max_cpus (the guest flavor's CONFIG_NR_CPUS)"
done
[ -z "$(sort -n <<< "$cpu_counts" | uniq -d)" ] || bad_knob "BENCH_CPUS: '$(paste -sd ' ' <<< "$cpu_counts")' names a count twice"
cpu_counts=$(sort -n <<< "$cpu_counts" | paste -sd ' ')
case $seeds in 0 | 1) ;; *) bad_knob "BENCH_SEEDS: '$seeds' is not 0 or 1" ;; esac
[[ $boots =~ ^[1-9][0-9]*$ ]] && [ "$boots" -le 9 ] ||
	bad_knob "BENCH_BOOTS: '$boots' is not a count of 2-vCPU boots per kernel from 1 to 9"
[[ $scale_suite =~ ^[a-z-]+(:[a-z0-9_]+)?(,[a-z-]+(:[a-z0-9_]+)?)*$ ]] ||
	bad_knob "BENCH_SCALE_SUITE: '$scale_suite' is not a comma-separated list of benchmarks"
[[ $scale_reps =~ ^[1-9][0-9]*$ ]] ||
	bad_knob "BENCH_SCALE_REPS: '$scale_reps' is not a count of repetitions (a positive integer)"
[[ $scale_migrate_mib =~ ^[1-9][0-9]*$ ]] ||
	bad_knob "BENCH_SCALE_MIGRATE_MIB: '$scale_migrate_mib' is not a size in MiB (a positive integer)"
# compaction --keep-every's range (mmbench compaction)
[[ $scale_compaction_keep =~ ^[0-9]+$ ]] && [ "$scale_compaction_keep" -ge 2 ] && [ "$scale_compaction_keep" -le 512 ] ||
	bad_knob "BENCH_SCALE_COMPACTION_KEEP: '$scale_compaction_keep' is not a count from 2 to 512 (compaction --keep-every: one page kept of every N)"
scaling=1
[ "$cpu_counts" != 2 ] || scaling=0
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
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
# The order of the boots: per base, first every variant's 2-vCPU suite
# boot, one after the other, whose rates are compared; then the scaling
# boots, a vCPU count at a time, each count's variants side by side. When
# each kernel ran all its boots in a row, the first 2-vCPU boot, right after
# a build, came out slower than its twin in fault, munmap and numa-hinting
# (measured: docs/results/2026-12-06-bench-vm-stopped.md).
declare -A kernels=()
for base in $bases; do
	for variant in $variants; do
		# The documents this run replaces; others' stay for the report.
		rm -f "$bench/$base-$variant.json" "$bench/$base-$variant"-boot[0-9]*.json
		[ "$seeds" = 0 ] || rm -f "$bench/$base-$variant-seeds.json" "$bench/$base-$variant-seeds"-boot[0-9]*.json
		[ "$scaling" = 0 ] || for n in $cpu_counts; do rm -f "$bench/$base-$variant-cpus$n.json"; done
		if ! kernel=$(kernel_of "$base" "$variant") || [ ! -f "$kernel" ]; then
			note "[$base $variant] no kernel, skipped"
			continue
		fi
		kernels[$base-$variant]=$kernel
	done
	# The 2-vCPU boots: the suite first (its figures as before), then what
	# the seed documents need. With BENCH_BOOTS > 1 the variants take
	# turns, boot after boot, and each document is then made of the boots'
	# medians (bench_merge_boots).
	for ((boot = 1; boot <= boots; boot++)); do
		tag=''
		[ "$boots" = 1 ] || tag=-boot$boot
		for variant in $variants; do
			[ -n "${kernels[$base-$variant]:-}" ] || continue
			bench_docs=("$base-$variant$tag.json=$suite")
			[ "$seeds" = 0 ] || bench_docs+=("$base-$variant-seeds$tag.json=$seed_items")
			bench_tag=$tag bench_boot_opts=(--cpus 2)
			t1=$SECONDS
			bench_run_suite "$base" "$variant" "${kernels[$base-$variant]}" || true
			note "[$base $variant$tag] $((SECONDS - t1)) s"
		done
	done
	[ "$boots" = 1 ] || for variant in $variants; do
		for doc in "$base-$variant" "$base-$variant-seeds"; do
			[ "$seeds" = 1 ] || [ "$doc" = "$base-$variant" ] || continue
			docs=()
			for ((boot = 1; boot <= boots; boot++)); do
				[ ! -f "$bench/$doc-boot$boot.json" ] || docs+=("$bench/$doc-boot$boot.json")
			done
			[ ${#docs[@]} -gt 0 ] || continue
			if bench_merge_boots "$bench/$doc.json" "${docs[@]}"; then
				note "[$base $variant] $doc.json: the medians of ${#docs[@]} boots"
			else
				note "[$base $variant] $doc.json: the boots' documents do not merge (different benchmarks)"
			fi
		done
	done
	[ "$scaling" = 1 ] || continue
	bench_item_opts=([migrate]="--size-mib $scale_migrate_mib" [compaction]="--keep-every $scale_compaction_keep")
	suite_reps=$reps reps=$scale_reps
	for n in $cpu_counts; do
		for variant in $variants; do
			[ -n "${kernels[$base-$variant]:-}" ] || continue
			bench_docs=("$base-$variant-cpus$n.json=$scale_suite")
			bench_tag=-cpus$n bench_boot_opts=(--cpus "$n")
			t1=$SECONDS
			bench_run_suite "$base" "$variant" "${kernels[$base-$variant]}" || true
			note "[$base $variant, $n vCPUs] $((SECONDS - t1)) s"
		done
	done
	reps=$suite_reps
	bench_item_opts=()
done

# compare BASE A B [SUFFIX]: mmbench compare A (baseline) B, text + chart;
# SUFFIX -seeds: the seed documents (the goals of bench-seeds.sh).
compare() {
	local f=$bench/$1-$3-vs-$2${4:-}
	[ -f "$bench/$1-$2${4:-}.json" ] && [ -f "$bench/$1-$3${4:-}.json" ] || return 0
	# Relative names: the text goes into the report as it is.
	(cd "$bench" && "$mmbench" compare "$1-$2${4:-}.json" "$1-$3${4:-}.json" --plot "$(basename "$f").png") > "$f.txt" 2>&1 || true
}
for base in 6.12 6.1; do
	compare "$base" vanilla patched
	compare "$base" stock patched
	compare "$base" stock vanilla
	compare "$base" vanilla patched -seeds
done

# The report covers every base and variant that has a document, also those
# of earlier runs with other BENCH_BASES/BENCH_VARIANTS.
# The proof first: its LOCK_STAT boots at each vCPU count are the lru_lock
# scaling table's figures.
proof_rc=0
if [ "${BENCH_PROOF:-1}" != 0 ]; then
	rm -f "$bench/PROOF.md"
	PROOF_LOCKSTAT_CPUS="$cpu_counts" "$here/bench-proof.sh" || proof_rc=$?
fi
seed_opt=()
[ "$seeds" = 0 ] || seed_opt=(--seeds)
host="$(bench_host_desc); load average $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end of the boots ($((SECONDS - t0)) s)"
"$here/bench-report.sh" --cpus "$cpu_counts" --scale-opts "--reps $scale_reps; migrate --size-mib $scale_migrate_mib; compaction --keep-every $scale_compaction_keep" ${seed_opt[@]+"${seed_opt[@]}"} --host "$host" "$bench" "6.12 6.1" "patched vanilla stock" "--reps $reps${quick:+ --quick}" > "$bench/REPORT.md.tmp"
if [ -f "$bench/PROOF.md" ]; then
	{ echo; echo "---"; echo; sed '1s/^# /## /; 2,$s/^## /### /' "$bench/PROOF.md"; } >> "$bench/REPORT.md.tmp"
fi
mv "$bench/REPORT.md.tmp" "$bench/REPORT.md"
note "wrote $bench/REPORT.md, report.json ($((SECONDS - t0)) s)"
[ "$proof_rc" = 0 ] || { note "bench-proof failed (exit $proof_rc): see $bench/PROOF.md"; exit "$proof_rc"; }
