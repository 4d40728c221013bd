#!/bin/bash
# compare: known result pairs give known verdicts and exit codes; bad input
# gives one error line and exit 2. The documents are real `fault` and
# `munmap` results with their values replaced by fixed ones.
. "$(dirname "$0")/lib.sh"
setup

"$MMBENCH" fault --quick --reps 1 --size-mib 1 -o "$T/raw-fault.json" > /dev/null
"$MMBENCH" munmap --quick --reps 1 --ops 5 -o "$T/raw-munmap.json" > /dev/null

# doc SRC OUT FACTOR: every metric gets 10 fixed noisy values times FACTOR
doc() {
	jq --argjson f "$3" '.results[0].repetitions = 10 | .results[0].metrics |= map(
		.values = ([100.3, 99.1, 101.2, 98.7, 100.9, 99.6, 100.1, 101.5, 98.9, 100.0] | map(. * $f))
		| .median = (.values | sort | (.[4] + .[5]) / 2))' "$1" > "$2"
}
doc "$T/raw-fault.json" "$T/a.json" 1
# the same noise, drawn again (other order, other values, same spread)
jq '.results[0].metrics |= map(.values = [99.8, 100.7, 98.8, 101.1, 100.2, 99.3, 101.4, 99.9, 100.6, 98.6]
	| .median = 100)' "$T/a.json" > "$T/noise.json"
doc "$T/raw-fault.json" "$T/half.json" 0.5
doc "$T/raw-fault.json" "$T/double.json" 2
doc "$T/raw-munmap.json" "$T/munmap.json" 1

run_cmd self "$MMBENCH" compare "$T/a.json" "$T/a.json"
expect_eq "A vs A: exit" 0 "$RC"
expect_match "A vs A: verdict" '^verdict: same' "@$T/self.out"

run_cmd noise "$MMBENCH" compare "$T/a.json" "$T/noise.json" --threshold 0
expect_eq "pure noise, threshold 0: exit" 0 "$RC"
expect_match "pure noise: pages_per_s same" '^fault +pages_per_s .* same$' "@$T/noise.out"
expect_match "pure noise: tally" '^compare: 0 better, [0-9]+ same, 0 worse' "@$T/noise.out"

# pages/s halves (worse), sys_s halves (better)
run_cmd half "$MMBENCH" compare "$T/a.json" "$T/half.json"
expect_eq "halved: exit" 1 "$RC"
expect_match "halved: pages_per_s regression" '^fault +pages_per_s .* -50\.0% .* worse REGRESSION$' "@$T/half.out"
expect_match "halved: sys_s better" '^fault +sys_s .* better$' "@$T/half.out"
expect_match "halved: verdict" '^verdict: worse' "@$T/half.out"

run_cmd halfthr "$MMBENCH" compare "$T/a.json" "$T/half.json" --threshold 60
expect_eq "halved under a 60% threshold: exit" 0 "$RC"
expect_match "worse but within the threshold" '^fault +pages_per_s .* worse$' "@$T/halfthr.out"

run_cmd double "$MMBENCH" compare "$T/a.json" "$T/double.json"
expect_eq "doubled pages/s (and sys_s): exit" 1 "$RC"
expect_match "doubled: pages_per_s better" '^fault +pages_per_s .* \+100\.0% .* better$' "@$T/double.out"

jq '.results[0].status = "failed" | .results[0].reason = "3 corrupt bytes"' "$T/a.json" > "$T/failed.json"
run_cmd failed "$MMBENCH" compare "$T/a.json" "$T/failed.json"
expect_eq "failed benchmark in NEW: exit" 1 "$RC"
expect_match "failed benchmark named" '^fault +FAILED in .*: 3 corrupt bytes' "@$T/failed.out"

run_cmd plot "$MMBENCH" compare "$T/a.json" "$T/half.json" --plot "$T/cmp.png"
expect_eq "--plot: exit (regression)" 1 "$RC"
expect_eq "--plot wrote a PNG" "89504e47" "$(od -An -tx1 -N4 "$T/cmp.png" 2>/dev/null | tr -d ' \n')"

# bad input: exit 2, one line on stderr, nothing on stdout
bad_input() {
	local what=$1 regex=$2; shift 2
	run_cmd bad "$MMBENCH" compare "$@"
	expect_eq "$what: exit" 2 "$RC"
	expect_lines "$what: stderr" 1 "@$T/bad.err"
	expect_match "$what: message" "$regex" "@$T/bad.err"
	expect_lines "$what: stdout" 0 "@$T/bad.out"
}
printf 'not json\n' > "$T/text.json"
printf '{"results": []}\n' > "$T/foreign.json"
jq '.schema = "mmbench/2"' "$T/a.json" > "$T/v2.json"
jq '.results[0].metrics[0].values[0] = "x"' "$T/a.json" > "$T/strval.json"
jq '.results[0].metrics[0].better = "up"' "$T/a.json" > "$T/better.json"
jq 'del(.results[0].metrics)' "$T/a.json" > "$T/nometrics.json"
bad_input "missing file" "^mmbench compare: $T/absent.json:.*(No such file|unable to open)" "$T/a.json" "$T/absent.json"
bad_input "not JSON" "^mmbench compare: $T/text.json:1:[0-9]+: " "$T/text.json" "$T/a.json"
bad_input "foreign JSON" "^mmbench compare: $T/foreign.json: not an mmbench result \(schema missing" "$T/a.json" "$T/foreign.json"
bad_input "other schema version" "schema 'mmbench/2', expected mmbench/1" "$T/a.json" "$T/v2.json"
bad_input "mismatched benchmarks" "^mmbench compare: mismatched benchmarks: $T/a.json has fault, $T/munmap.json has munmap$" "$T/a.json" "$T/munmap.json"
bad_input "non-number value" "metric 'pages_per_s' has a non-number value" "$T/a.json" "$T/strval.json"
bad_input "bad better" "metric 'pages_per_s' has no valid 'better'" "$T/a.json" "$T/better.json"
bad_input "no metrics" "results\[0\] lacks benchmark/status/metrics" "$T/a.json" "$T/nometrics.json"
bad_input "one file" "need exactly two result files" "$T/a.json"
bad_input "unknown option" "^mmbench compare: unknown option '--frob'" "$T/a.json" "$T/a.json" --frob
bad_input "bad threshold" "bad --threshold '-3'" "$T/a.json" "$T/a.json" --threshold -3
bad_input "threshold without value" "option '--threshold' needs a value" "$T/a.json" "$T/a.json" --threshold
