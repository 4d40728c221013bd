# shellcheck shell=bash
# Shared by the bench-vm report (bench-report.sh), bench-vm.sh and the
# series proof (bench-proof.sh): number formatting ("-" stands for a missing
# value throughout) and the builds they boot, by identity file.

# shellcheck source=tools/kbuild/identity.sh
. "$(dirname "${BASH_SOURCE[0]}")/../kbuild/identity.sh"

# bench_build BASE patched|vanilla: the identity file among BENCH_BUILDS of
# that base and variant (VARIANT mmbatch or vanilla); fails naming what is
# missing.
bench_build() {
	local f want
	case $2 in patched) want=mmbatch ;; vanilla) want=vanilla ;; *) bid_die "bench_build: variant '$2'" ;; esac
	for f in ${BENCH_BUILDS:-}; do
		[ "$(bid_get "$f" BASE)" = "$1" ] && [ "$(bid_get "$f" VARIANT)" = "$want" ] && { echo "$f"; return 0; }
	done
	bid_die "BENCH_BUILDS names no $2 build of base $1 (VARIANT=$want): '${BENCH_BUILDS:-}'"
}

# fmt V: 4 significant digits, whole numbers from 1000 up (no exponents).
fmt() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "") print "-"; else if (v >= 1000 || v <= -1000) printf "%.0f\n", v; else printf "%.4g\n", v }'; }
# ratio A B: A/B with 3 significant digits.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.3g\n", a / b }'; }
