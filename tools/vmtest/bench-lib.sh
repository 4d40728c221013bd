# shellcheck shell=bash
# Number formatting shared by the bench-vm report (bench-report.sh) and the
# series proof (bench-proof.sh). "-" stands for a missing value throughout.

# fmt V: 4 significant digits, whole numbers from 1000 up (no exponents).
fmt() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "") print "-"; else if (v >= 1000 || v <= -1000) printf "%.0f\n", v; else printf "%.4g\n", v }'; }
# ratio A B: A/B with 3 significant digits.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.3g\n", a / b }'; }
