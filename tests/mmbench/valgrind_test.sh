#!/bin/bash
# valgrind on compare (good inputs, a regression, bad inputs, --plot), on
# one short benchmark and smoke run, and on the first-boot verdict (smoke
# --state-dir: pass, regression, corrupt baseline): no invalid access, no leak. Skipped
# under SAN=1, where ASan already checks and valgrind cannot run beside it.
. "$(dirname "$0")/lib.sh"
setup

if [ "${SAN:-}" = 1 ]; then
	skip "valgrind" "SAN=1 (ASan+UBSan check this build; valgrind cannot run beside them)"
	exit 0
fi

vg() {
	local what=$1 want=$2; shift 2
	run_cmd vg valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --trace-children=no "$@"
	expect_eq "valgrind $what: exit" "$want" "$RC"
	if [ "$RC" = 99 ]; then sed 's/^/      | /' "$T/vg.err" >&2; fi
}

"$MMBENCH" fault --quick --reps 3 --size-mib 1 -o "$T/a.json" > /dev/null
# 100x slower (10x is within the noise of a loaded 2-CPU host)
jq '.results[0].metrics |= map(if .better == "higher" then .values |= map(. / 100) else . end
	| .median = (.values | sort | .[1]))' "$T/a.json" > "$T/slow.json"
printf '{"schema": "other"}\n' > "$T/foreign.json"
printf '{"schema": \n' > "$T/broken.json"

vg "compare A A" 0 "$MMBENCH" compare "$T/a.json" "$T/a.json"
vg "compare regression + plot" 1 "$MMBENCH" compare "$T/a.json" "$T/slow.json" --plot "$T/p.png"
vg "compare foreign" 2 "$MMBENCH" compare "$T/a.json" "$T/foreign.json"
vg "compare broken" 2 "$MMBENCH" compare "$T/broken.json" "$T/a.json"
vg "compare bad threshold" 2 "$MMBENCH" compare "$T/a.json" "$T/slow.json" --threshold x
vg "fault" 0 "$MMBENCH" fault --quick --reps 1 --size-mib 1 -o "$T/v.json"
vg "smoke (fault, migrate)" 0 "$MMBENCH" smoke --benchmarks fault,migrate -o "$T/s.json"

# the first-boot verdict (smoke --state-dir): a first run with the benchmarks
# in the child, a regression and a corrupt baseline judged from --input
# (fixed values, so the verdict does not depend on this machine's noise)
jq '.results[0].metrics |= [map(select(.name == "pages_per_s"))[0] | .values = [100, 101, 99] | .median = 100]' \
	"$T/a.json" > "$T/fixed-fast.json"
jq '.results[0].metrics[0] |= (.values = [10, 10.1, 9.9] | .median = 10)' "$T/fixed-fast.json" > "$T/fixed-slow.json"
st=$T/state
mkdir -p "$st/pending" "$st/results/vg0"
: > "$st/pending/vg1"
vg "smoke --state-dir, first run" 0 "$MMBENCH" smoke --state-dir "$st" --kver vg1 --stamp s1 \
	--benchmarks fault --timeout 300
: > "$st/pending/vg2"
cp "$T/fixed-fast.json" "$st/results/vg1/s1.json"
vg "smoke --state-dir, regression" 1 "$MMBENCH" smoke --state-dir "$st" --kver vg2 --stamp s2 --input "$T/fixed-slow.json"
cp "$T/broken.json" "$st/results/vg0/s0.json"
echo vg0 > "$st/last-booted"
: > "$st/pending/vg2"
vg "smoke --state-dir, corrupt baseline" 2 "$MMBENCH" smoke --state-dir "$st" --kver vg2 --stamp s3 --input "$T/fixed-fast.json"
