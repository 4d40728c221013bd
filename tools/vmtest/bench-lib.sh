# shellcheck shell=bash
# Shared by the bench-vm report (bench-report.sh), bench-vm.sh, the series
# proof (bench-proof.sh) and the debug slowdown (bench-debug.sh): number
# formatting ("-" stands for a missing value throughout), the builds they
# boot, by identity file, and one boot running the mmbench suite.

# shellcheck source=tools/kbuild/identity.sh
. "$(dirname "${BASH_SOURCE[0]}")/../kbuild/identity.sh"

# bench_build BASE patched|vanilla|debug: the identity file among
# BENCH_BUILDS of that base and variant (VARIANT mmbatch or vanilla; debug:
# VARIANT mmbatch with DEBUG=1, which patched and vanilla are not); fails
# naming what is missing.
bench_build() {
	local f want dbg=0 d
	case $2 in patched) want=mmbatch ;; vanilla) want=vanilla ;; debug) want=mmbatch dbg=1 ;; *) bid_die "bench_build: variant '$2'" ;; esac
	for f in ${BENCH_BUILDS:-}; do
		d=$(bid_get "$f" DEBUG 2>/dev/null || true)
		[ "${d:-0}" = "$dbg" ] || continue
		[ "$(bid_get "$f" BASE)" = "$1" ] && [ "$(bid_get "$f" VARIANT)" = "$want" ] && { echo "$f"; return 0; }
	done
	bid_die "BENCH_BUILDS names no $2 build of base $1 (VARIANT=$want, DEBUG=$dbg): '${BENCH_BUILDS:-}'"
}

# bench_run_suite BASE VARIANT KERNEL: one boot of KERNEL runs every
# benchmark of the suite (one mmbench document each, printed after a marker
# line); the host merges them into $bench/<base>-<variant>.json, the form
# mmbench compare reads. Reads the caller's bench (directory), suite
# (comma-separated), reps, quick (non-empty: --quick), timeout (per boot),
# note (a function), and, if set, bench_boot_opts (an array of more vmtest
# options) and bench_guest_tail (guest shell commands run after the
# benchmarks, before the documents are printed). Console: $bench/<base>-
# <variant>.console, output: .out. Returns 1 when no document came back.
# shellcheck disable=SC2154 # bench, reps, suite, timeout, bench_boot_opts: the caller's
bench_run_suite() {
	local base=$1 variant=$2 kernel=$3 raw=$bench/$1-$2.console rc=0 b docs=()
	local opts="--reps $reps${quick:+ --quick}"
	note "[$base $variant] booting $(basename "$kernel"): mmbench {$suite} $opts"
	"$(dirname "${BASH_SOURCE[0]}")/vmtest" boot "$kernel" --timeout "$timeout" --log "$raw" ${bench_boot_opts[@]+"${bench_boot_opts[@]}"} -- \
		"for b in ${suite//,/ }; do mmbench \$b $opts -o /tmp/\$b.json > /tmp/\$b.log 2>&1; echo \"mmbench \$b: exit \$?\"; cat /tmp/\$b.log; done;" \
		"${bench_guest_tail:-true};" \
		"for b in ${suite//,/ }; do echo \"@@JSON \$b@@\"; cat /tmp/\$b.json 2>/dev/null; done" > "$bench/$base-$variant.out" || rc=$?
	sed -n '1,/^@@JSON /p' "$bench/$base-$variant.out" | grep -v '^@@JSON \|^dmesg | ' | sed "s/^/[$base $variant] /" >&2
	for b in ${suite//,/ }; do
		awk -v m="@@JSON $b@@" '$0 == m {on = 1; next} /^@@JSON / {on = 0} on' "$bench/$base-$variant.out" > "$bench/$base-$variant-$b.json"
		if jq -e '.schema == "mmbench/1"' "$bench/$base-$variant-$b.json" >/dev/null 2>&1; then
			docs+=("$bench/$base-$variant-$b.json")
		else
			note "[$base $variant] no mmbench document for $b"
			rm -f "$bench/$base-$variant-$b.json"
		fi
	done
	if [ ${#docs[@]} -eq 0 ]; then
		note "[$base $variant] no results (vmtest exit $rc); console: $raw"
		return 1
	fi
	jq -s '.[0] + {command: "bench-vm", results: [.[].results[]]}' "${docs[@]}" > "$bench/$base-$variant.json"
	rm -f "${docs[@]}"
	return 0
}

# fmt V: 4 significant digits, whole numbers from 1000 up (no exponents).
fmt() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "") print "-"; else if (v >= 1000 || v <= -1000) printf "%.0f\n", v; else printf "%.4g\n", v }'; }
# ratio A B: A/B with 3 significant digits.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.3g\n", a / b }'; }
