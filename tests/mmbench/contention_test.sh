#!/bin/bash
# mmbench contention on this machine: --quick moves shmem pages under
# contention on two nodes (exit 0, a schema-valid document with the moved
# counts) and is refused on one (exit 77, status "skipped": counted here as
# a SKIP, never a pass); the data check fails on broken data
# (--inject-corruption, test only: exit 1, status "failed", the lost write
# and the corrupt byte counted); bad options: one line, exit 2;
# --min-moved-fraction 1 turns a shortfall into a failure.
# Reads: MMBENCH, TOP.
. "$(dirname "$0")/lib.sh"
setup

nodes=$(memory_nodes)
echo "  NUMA nodes with memory: $nodes"

run_cmd quick "$MMBENCH" contention --quick -o "$T/quick.json"
if [ "$nodes" -lt 2 ]; then
	expect_eq "contention on $nodes node(s): exit (skipped)" 77 "$RC"
	expect_match "refusal names the reason" '^contention: skipped: needs 2 NUMA nodes with memory, this machine has 1$' "@$T/quick.out"
	schema_ok "contention (skipped)" "$T/quick.json" --command contention --status contention=skipped
	skip "contention --quick on two nodes" "this machine has $nodes NUMA node(s) with memory"
else
	expect_eq "contention --quick on $nodes nodes: exit" 0 "$RC"
	schema_ok "contention" "$T/quick.json" --command contention --status contention=ok
	for m in moved_fraction eagain_pages ebusy_pages pgmigrate_fail lost_writes corrupt_bytes; do
		expect_match "summary has $m" "^contention $m " "@$T/quick.out"
	done
	expect_eq "no lost writes" 0 "$(jq '.results[0].metrics[] | select(.name == "lost_writes") | .median' "$T/quick.json")"
	expect_eq "no corrupt bytes" 0 "$(jq '.results[0].metrics[] | select(.name == "corrupt_bytes") | .median' "$T/quick.json")"
	expect_eq "pages were requested" true "$(jq '.results[0].params.total_requested_pages > 0' "$T/quick.json")"
	# a fraction above what moved is a failure with one line saying so
	if [ "$(jq '.results[0].params.total_moved_pages < .results[0].params.total_requested_pages' "$T/quick.json")" = true ]; then
		run_cmd strict "$MMBENCH" contention --quick --reps 2 --min-moved-fraction 1 -o "$T/strict.json"
		expect_eq "--min-moved-fraction 1 with pages left behind: exit" 1 "$RC"
		expect_match "the shortfall named" 'below --min-moved-fraction 1$' "@$T/strict.out"
	else
		skip "--min-moved-fraction shortfall" "every requested page moved in this run"
	fi
	run_cmd lax "$MMBENCH" contention --quick --reps 2 --min-moved-fraction 0 -o "$T/lax.json"
	expect_eq "--min-moved-fraction 0: exit" 0 "$RC"
fi

# the check itself: broken data must fail the run (on one node it runs
# without moving, to show exactly this)
run_cmd broken "$MMBENCH" contention --quick --reps 2 --inject-corruption -o "$T/broken.json"
expect_eq "--inject-corruption: exit" 1 "$RC"
schema_ok "contention (broken data)" "$T/broken.json" --command contention --status contention=failed
expect_match "the failure counts them" '^contention: failed: 2 lost writes, 2 corrupt bytes; first: page 0 ' "@$T/broken.out"
expect_eq "one lost write per repetition" '[1,1]' "$(jq -c '.results[0].metrics[] | select(.name == "lost_writes") | .values' "$T/broken.json")"
expect_eq "one corrupt byte per repetition" '[1,1]' "$(jq -c '.results[0].metrics[] | select(.name == "corrupt_bytes") | .values' "$T/broken.json")"
expect_eq "the writers ran" true "$(jq '.results[0].metrics[] | select(.name == "writer_writes") | .median > 0' "$T/broken.json")"
expect_eq "the toucher ran" true "$(jq '.results[0].metrics[] | select(.name == "toucher_faults") | .median > 0' "$T/broken.json")"

bad_input "zero rounds" "^mmbench contention: bad value '0' for option '--rounds'$" "$MMBENCH" contention --rounds 0 -o "$T/x.json"
bad_input "fraction above 1" "^mmbench contention: bad value '1.5' for option '--min-moved-fraction'$" "$MMBENCH" contention --min-moved-fraction 1.5 -o "$T/x.json"
bad_input "more writers than pages" "^mmbench contention: option '--writers': 300 writers for 256 pages" "$MMBENCH" contention --size-mib 1 --writers 300 -o "$T/x.json"
bad_input "an option of another benchmark" "^mmbench contention: option '--threads' does not apply to contention$" "$MMBENCH" contention --threads 2 -o "$T/x.json"
bad_input "contention options elsewhere" "^mmbench migrate: option '--rounds' does not apply to migrate$" "$MMBENCH" migrate --rounds 2 -o "$T/x.json"
expect_absent "no document after bad input" "$T/x.json"
