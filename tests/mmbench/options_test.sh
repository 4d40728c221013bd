#!/bin/bash
# Bad input to the benchmarks: one clear error line on stderr, exit 2, and
# no output file.
. "$(dirname "$0")/lib.sh"
setup


bad_input "no command" '^mmbench: no command given' "$MMBENCH"
bad_input "unknown command" "^mmbench: unknown command 'frob'" "$MMBENCH" frob
bad_input "unknown option" "^mmbench fault: unknown option '--frob'" "$MMBENCH" fault --frob -o "$T/x.json"
bad_input "missing value" "^mmbench fault: option '--reps' needs a value" "$MMBENCH" fault --reps
bad_input "zero reps" "^mmbench munmap: bad value '0' for option '--reps'" "$MMBENCH" munmap --reps 0
bad_input "non-number" "^mmbench fault: bad value '1x' for option '--size-mib'" "$MMBENCH" fault --size-mib 1x
bad_input "option of another benchmark" "^mmbench fault: option '--pages' does not apply to fault" "$MMBENCH" fault --pages 4
bad_input "stray argument" "^mmbench fault: unexpected argument 'extra'" "$MMBENCH" fault extra
bad_input "two drains" "exclude each other" "$MMBENCH" exitdrain --drain-knob --drain-cmd true
bad_input "smoke: unknown benchmark" "^mmbench smoke: unknown benchmark 'frob' in --benchmarks" "$MMBENCH" smoke --benchmarks fault,frob
printf '{"benchmarks": [fault]}\n' > "$T/bad.json"
bad_input "smoke: broken --config" "^mmbench smoke: $T/bad.json:1:[0-9]+: " "$MMBENCH" smoke --config "$T/bad.json"
printf '{"benchmarks": []}\n' > "$T/empty.json"
bad_input "smoke: empty list" "'benchmarks' must be a non-empty array" "$MMBENCH" smoke --config "$T/empty.json"
bad_input "smoke: missing --config" "^mmbench smoke: $T/absent.json:" "$MMBENCH" smoke --config "$T/absent.json"
expect_absent "output file after bad input" "$T/x.json"

# an unwritable -o: error (exit 1), nothing left behind
run_cmd noout "$MMBENCH" fault --quick --reps 1 --size-mib 1 -o "$T/no/such/dir/r.json"
expect_eq "unwritable -o: exit" 1 "$RC"
expect_match "unwritable -o: message" "cannot write the result to $T/no/such/dir/r.json" "@$T/noout.err"
