#!/bin/bash
# mmbench integrity --kind on this machine: on one node every kind is
# refused (exit 77, status "skipped", the reason on one line: counted here
# as a SKIP, never a pass); on two it runs (exit 0, no lost write, no
# corrupt byte, pages migrated). The check itself: --inject-corruption
# (test only) makes every kind fail with one lost write and one corrupt
# byte per repetition (on one node without migrating). Bad options: one
# line naming the option, exit 2, no document.
# Reads: MMBENCH, TOP.
. "$(dirname "$0")/lib.sh"
setup

nodes=$(memory_nodes)
echo "  NUMA nodes with memory: $nodes"
kinds="anon anon-thp fork-shared shmem file ksm mixed"
# short runs: the point here is the protocol, not the load
small=(--pages 256 --seconds 0.3 --reps 1)

metric() { jq -c --arg n "$2" '.results[0].metrics[] | select(.name == $n) | .values' "$1"; }

for k in $kinds; do
	dir=()
	[ "$k" != file ] || dir=(--dir "$T")
	run_cmd "run-$k" "$MMBENCH" integrity --kind "$k" "${small[@]}" "${dir[@]}" -o "$T/$k.json"
	if [ "$nodes" -lt 2 ]; then
		expect_eq "--kind $k on $nodes node(s): exit (skipped)" 77 "$RC"
		expect_match "--kind $k: the refusal names the reason" \
			'^integrity: skipped: needs 2 NUMA nodes with memory, this machine has 1$' "@$T/run-$k.out"
		schema_ok "--kind $k (skipped)" "$T/$k.json" --command integrity --status integrity=skipped
	else
		case $RC in
		0) pass "--kind $k on $nodes nodes: exit 0"
		   key=${k//-/_}
		   expect_eq "--kind $k: no lost writes" '[0]' "$(metric "$T/$k.json" "${key}_lost_writes")"
		   expect_eq "--kind $k: no corrupt bytes" '[0]' "$(metric "$T/$k.json" "${key}_corrupt_bytes")"
		   expect_eq "--kind $k: no stray bytes" '[0]' "$(metric "$T/$k.json" "${key}_stray_bytes")"
		   schema_ok "--kind $k" "$T/$k.json" --command integrity --status integrity=ok ;;
		77) expect_match "--kind $k: skipped with the kind's reason" "^integrity kind $k: skipped: " "@$T/run-$k.out"
		    skip "--kind $k on $nodes nodes" "$(grep -m1 "^integrity kind $k: skipped: " "$T/run-$k.out")" ;;
		*) fail "--kind $k on $nodes nodes: exit $RC"; sed 's/^/      | /' "$T/run-$k.out" "$T/run-$k.err" >&2 ;;
		esac
	fi
done
if [ "$nodes" -lt 2 ]; then
	skip "integrity --kind runs that migrate" "this machine has $nodes NUMA node(s) with memory"
	run_cmd all "$MMBENCH" integrity --kind all --quick -o "$T/all.json"
	expect_eq "--kind all on one node: exit (skipped)" 77 "$RC"
	expect_lines "--kind all on one node: one line, the reason" 1 "@$T/all.out"
	# a shortfall of migrations needs a machine that migrates
	skip "--min-migrations shortfall" "this machine has $nodes NUMA node(s) with memory"
else
	run_cmd strict "$MMBENCH" integrity --kind anon "${small[@]}" --min-migrations 1000000000000 -o "$T/strict.json"
	expect_eq "--min-migrations above what moved: exit" 1 "$RC"
	expect_match "the shortfall named" '^integrity: failed: anon: the kernel migrated [0-9]+ pages \(pgmigrate_success\), fewer than --min-migrations 1000000000000$' "@$T/strict.out"
fi

# The check itself: every kind must fail on broken data. On one node the
# movers move to that node (nothing migrates) and KSM, compaction and NUMA
# balancing stay off, so the host keeps its settings.
run_cmd broken "$MMBENCH" integrity --kind all "${small[@]}" --dir "$T" --inject-corruption -o "$T/broken.json"
expect_eq "--inject-corruption: exit" 1 "$RC"
schema_ok "integrity --kind all (broken data)" "$T/broken.json" --command integrity --status integrity=failed
for k in $kinds; do
	key=${k//-/_}
	if grep -q "^integrity kind $k: skipped: " "$T/broken.out"; then
		skip "--inject-corruption --kind $k" "$(grep -m1 "^integrity kind $k: skipped: " "$T/broken.out")"
		continue
	fi
	expect_match "--inject-corruption: kind $k failed, counted" \
		"^integrity kind $k: FAILED: .* 1 lost writes, 1 corrupt bytes, 1 stray bytes in freed frames, [0-9]+ pages checked" "@$T/broken.out"
	expect_eq "--inject-corruption: kind $k: one lost write" '[1]' "$(metric "$T/broken.json" "${key}_lost_writes")"
	expect_eq "--inject-corruption: kind $k: one corrupt byte" '[1]' "$(metric "$T/broken.json" "${key}_corrupt_bytes")"
	expect_eq "--inject-corruption: kind $k: one stray byte in the mover's freed frames" '[1]' "$(metric "$T/broken.json" "${key}_stray_bytes")"
	expect_eq "kind $k: its workers checked pages" true \
		"$(jq --arg n "${key}_checked_pages" '.results[0].metrics[] | select(.name == $n) | .median > 0' "$T/broken.json")"
done
expect_match "the failure line lists the kinds" '^integrity: failed: anon: 1 lost writes, 1 corrupt bytes, 1 stray bytes; first: 1 bytes written into frames a move round had freed ' "@$T/broken.out"
expect_match "the disturber ran (mprotect, MADV_DONTNEED, munmap+remap)" '.' \
	"$(jq '.results[0].metrics[] | select(.name == "shmem_disturbances") | select(.median > 0) | .name' "$T/broken.json")"
expect_match "the file kind names its filesystem" '^integrity: file kind in ' "@$T/broken.out"
expect_eq "a repetition's figures, per repetition" '[1,1]' \
	"$("$MMBENCH" integrity --kind shmem --pages 128 --seconds 0.2 --reps 2 --inject-corruption --json 2>/dev/null |
		jq -c '.results[0].metrics[] | select(.name == "shmem_lost_writes") | .values')"

# A kernel without KSM or THP (a fake /sys/kernel/mm): the kind says SKIP
# with the reason and the run exits 77, never 0; next to a kind that runs,
# the run still exits 77 (with --inject-corruption here: 1, the failure
# wins). On one node this needs --inject-corruption to get that far.
mkdir -p "$T/mm/transparent_hugepage"
echo 'always madvise [never]' > "$T/mm/transparent_hugepage/enabled"
one=()
[ "$nodes" -ge 2 ] || one=(--inject-corruption)
run_cmd noksm env MMBENCH_MM_SYSFS="$T/mm" "$MMBENCH" integrity --kind ksm,anon-thp "${small[@]}" "${one[@]}" -o "$T/noksm.json"
expect_eq "no KSM, no THP: exit (skipped)" 77 "$RC"
expect_match "the ksm kind says why" "^integrity kind ksm: skipped: no KSM: cannot write $T/mm/ksm/run: No such file or directory$" "@$T/noksm.out"
expect_match "the anon-thp kind says why" "^integrity kind anon-thp: skipped: transparent huge pages are off \\($T/mm/transparent_hugepage/enabled: never\\)$" "@$T/noksm.out"
expect_match "the result says skipped, with both" '^integrity: skipped: kinds skipped: anon-thp \(.*\); ksm \(no KSM' "@$T/noksm.out"
schema_ok "no KSM, no THP (skipped)" "$T/noksm.json" --command integrity --status integrity=skipped
expect_eq "the reasons in the params" '"no KSM: cannot write '"$T"'/mm/ksm/run: No such file or directory"' \
	"$(jq '.results[0].params.ksm_skipped' "$T/noksm.json")"
run_cmd noksm2 env MMBENCH_MM_SYSFS="$T/mm" "$MMBENCH" integrity --kind ksm,shmem "${small[@]}" --inject-corruption -o "$T/noksm2.json"
expect_eq "no KSM beside a kind that fails: exit (the failure wins)" 1 "$RC"
expect_match "and the skip is still named" '^integrity kind ksm: skipped: no KSM' "@$T/noksm2.out"

bad_input "unknown kind" "^mmbench integrity: option '--kind': unknown name 'frob' \(one of: anon, anon-thp, fork-shared, shmem, file, ksm, mixed, all\)$" \
	"$MMBENCH" integrity --kind anon,frob -o "$T/x.json"
bad_input "unknown mover" "^mmbench integrity: option '--mover': unknown name 'move-pages' " \
	"$MMBENCH" integrity --kind anon --mover move-pages -o "$T/x.json"
bad_input "--mover without --kind" "^mmbench integrity: option '--mover' needs --kind$" \
	"$MMBENCH" integrity --mover mbind -o "$T/x.json"
bad_input "--inject-corruption without --kind" "^mmbench integrity: option '--inject-corruption' needs --kind$" \
	"$MMBENCH" integrity --inject-corruption -o "$T/x.json"
bad_input "--dir that does not exist" "^mmbench integrity: option '--dir': $T/none: No such file or directory$" \
	"$MMBENCH" integrity --kind file --dir "$T/none" -o "$T/x.json"
bad_input "--dir without the file kind" "^mmbench integrity: option '--dir': only --kind file uses it$" \
	"$MMBENCH" integrity --kind shmem --dir "$T" -o "$T/x.json"
bad_input "too few pages" "^mmbench integrity: option '--pages': 8 pages, --kind needs at least 64$" \
	"$MMBENCH" integrity --kind anon --pages 8 -o "$T/x.json"
bad_input "zero sharers" "^mmbench integrity: bad value '0' for option '--sharers'$" \
	"$MMBENCH" integrity --kind shmem --sharers 0 -o "$T/x.json"
bad_input "a non-number threshold" "^mmbench integrity: bad value '1k' for option '--min-migrations'$" \
	"$MMBENCH" integrity --kind anon --min-migrations 1k -o "$T/x.json"
bad_input "--kind elsewhere" "^mmbench contention: option '--kind' does not apply to contention$" \
	"$MMBENCH" contention --kind anon -o "$T/x.json"
expect_absent "no document after bad input" "$T/x.json"
