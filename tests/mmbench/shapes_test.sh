#!/bin/bash
# The seed tools' shapes of fault and munmap (--shape; their parameters and
# why: docs/developing/bench-shapes.md): fault --shape page_fault2 and munmap
# --shape ebizzy run --quick on this machine (page_fault2 also as an
# unprivileged user) and write documents with the documented shape fields
# and the default shape's metrics (the lru_lock count among them where
# lock_stat exists); without --shape the parameters are as before; bad shape
# values are refused (one line, exit 2). Negative controls: the file-pages
# check fails for the default (anonymous) shape, and the schema checker
# rejects documents whose shape fields are wrong, so their passes above
# mean something.
# Reads: MMBENCH, TOP.
. "$(dirname "$0")/lib.sh"
setup

cpus=$(nproc)
json_of() { jq -c "$2" "$1"; }
metric_names() { jq -c '[.results[0].metrics[].name]' "$1"; }

# The default shapes, as the comparisons and smoke verdicts know them: no
# "shape" parameter, the same parameters as before.
run_cmd pf1 "$MMBENCH" fault --quick --reps 2 -o "$T/pf1.json"
expect_eq "fault (no --shape): exit" 0 "$RC"
schema_ok "fault (no --shape)" "$T/pf1.json" --command fault --status fault=ok
expect_eq "fault (no --shape): parameters unchanged" '["threads","size_mib_per_thread","loops","pages"]' \
	"$(json_of "$T/pf1.json" '.results[0].params | keys_unsorted')"
run_cmd mu "$MMBENCH" munmap --quick --reps 2 -o "$T/mu.json"
expect_eq "munmap (no --shape): exit" 0 "$RC"
expect_eq "munmap (no --shape): parameters unchanged" '["threads","op_kib","ops_per_thread"]' \
	"$(json_of "$T/mu.json" '.results[0].params | keys_unsorted')"
expect_match "munmap (no --shape): the MADV_DONTNEED variant" '^munmap dontneed_ops_per_s ' "@$T/mu.out"

# fault --shape page_fault2: a memfd per thread, mapped MAP_PRIVATE, every
# page written (a copy-on-write of a page-cache page), then munmap
run_cmd pf2 "$MMBENCH" fault --shape page_fault2 --quick --reps 2 -o "$T/pf2.json"
if [ "$RC" = 77 ]; then
	expect_match "page_fault2 skipped: the reason" '^fault: skipped: --shape page_fault2 needs memfd_create' "@$T/pf2.out"
	skip "fault --shape page_fault2" "$(head -n 1 "$T/pf2.out")"
else
	expect_eq "fault --shape page_fault2: exit" 0 "$RC"
	schema_ok "fault --shape page_fault2" "$T/pf2.json" --command fault --status fault=ok --shape fault=page_fault2
	expect_eq "page_fault2: backing" '"memfd, MAP_PRIVATE"' "$(json_of "$T/pf2.json" '.results[0].params.backing')"
	expect_eq "page_fault2: threads (one per CPU)" "$cpus" "$(json_of "$T/pf2.json" '.results[0].params.threads')"
	# the same metrics as the default shape, lru_lock count included (it is
	# there when this kernel has lock_stat)
	expect_eq "page_fault2: the default shape's metrics" "$(metric_names "$T/pf1.json")" "$(metric_names "$T/pf2.json")"
	if [ "$(json_of "$T/pf2.json" '.system.lock_stat')" = true ]; then
		expect_eq "page_fault2: lru_lock acquisitions counted" true \
			"$(json_of "$T/pf2.json" '[.results[0].metrics[].name] | index("lru_lock_acq_per_1000_pages") != null')"
	else
		skip "page_fault2: lru_lock_acq_per_1000_pages" "no /proc/lock_stat on this kernel (CONFIG_LOCK_STAT): the metric is left out, as for the default shape"
	fi
	# the files were really there: the run's shmem grew by about their
	# pages (threads x 16 MiB; the machine's counter, so half is enough)
	want=$((cpus * 16 * 256 / 2))
	expect_eq "page_fault2: shmem pages of the files (nr_shmem >= $want)" true \
		"$(json_of "$T/pf2.json" "(.results[0].counters.vmstat.nr_shmem // 0) >= $want")"
	expect_eq "page_fault2: faults counted" true \
		"$(json_of "$T/pf2.json" '(.results[0].counters.vmstat.pgfault // 0) > 0')"
	# and the check tells the shapes apart: anonymous memory grows no shmem
	expect_eq "the same check on the default shape (anonymous): nr_shmem < $want" true \
		"$(json_of "$T/pf1.json" "(.results[0].counters.vmstat.nr_shmem // 0) < $want")"
fi

# unprivileged: memfd_create needs no capability
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null; then
	skip "page_fault2 as an unprivileged user" "needs root and setpriv(1) to drop to nobody"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$MMBENCH"; then
	skip "page_fault2 as an unprivileged user" "nobody cannot run $MMBENCH (a directory on its path is not searchable)"
else
	run_cmd nobody setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$MMBENCH" fault --shape page_fault2 --quick --reps 1 --size-mib 4 --json
	expect_eq "page_fault2 as nobody: exit" 0 "$RC"
	schema_ok "page_fault2 as nobody" "$T/nobody.out" --shape fault=page_fault2
fi

# munmap --shape ebizzy: 2 threads per CPU, 10 shared chunks, each op a
# fresh mapping filled from a chunk, a lookup in it and munmap
run_cmd eb "$MMBENCH" munmap --shape ebizzy --quick --reps 2 -o "$T/eb.json"
expect_eq "munmap --shape ebizzy: exit" 0 "$RC"
schema_ok "munmap --shape ebizzy" "$T/eb.json" --command munmap --status munmap=ok --shape munmap=ebizzy
expect_eq "ebizzy: threads (two per CPU)" "$((2 * cpus))" "$(json_of "$T/eb.json" '.results[0].params.threads')"
expect_eq "ebizzy: chunks" 10 "$(json_of "$T/eb.json" '.results[0].params.chunks')"
expect_eq "ebizzy: chunk size (op_kib)" 512 "$(json_of "$T/eb.json" '.results[0].params.op_kib')"
expect_match "ebizzy: munmap rate" '^munmap munmap_ops_per_s ' "@$T/eb.out"
expect_match "ebizzy: system time" '^munmap munmap_sys_s ' "@$T/eb.out"
expect_no_match "ebizzy: no MADV_DONTNEED variant" '^munmap dontneed_' "@$T/eb.out"
run_cmd eb3 "$MMBENCH" munmap --shape ebizzy --threads 3 --op-kib 64 --ops 20 --reps 1 -o "$T/eb3.json"
expect_eq "ebizzy --threads 3 --op-kib 64: exit" 0 "$RC"
expect_eq "ebizzy --threads 3 --op-kib 64: parameters" '[3,64,20]' \
	"$(json_of "$T/eb3.json" '.results[0].params | [.threads, .op_kib, .ops_per_thread]')"

# the default shapes by name: the same run, now saying which
run_cmd pf1n "$MMBENCH" fault --shape page_fault1 --quick --reps 1 --size-mib 2 -o "$T/pf1n.json"
expect_eq "fault --shape page_fault1: exit" 0 "$RC"
schema_ok "fault --shape page_fault1" "$T/pf1n.json" --shape fault=page_fault1
run_cmd mud "$MMBENCH" munmap --shape default --quick --reps 1 --ops 20 -o "$T/mud.json"
expect_eq "munmap --shape default: exit" 0 "$RC"
schema_ok "munmap --shape default" "$T/mud.json" --shape munmap=default
expect_match "munmap --shape default: the MADV_DONTNEED variant" '^munmap dontneed_ops_per_s ' "@$T/mud.out"

bad_input "fault: unknown shape" "^mmbench fault: bad value 'frob' for option '--shape' \(page_fault1 or page_fault2\)$" \
	"$MMBENCH" fault --shape frob -o "$T/x.json"
bad_input "fault: munmap's shape" "^mmbench fault: bad value 'ebizzy' for option '--shape'" "$MMBENCH" fault --shape ebizzy -o "$T/x.json"
bad_input "munmap: fault's shape" "^mmbench munmap: bad value 'page_fault2' for option '--shape' \(default or ebizzy\)$" \
	"$MMBENCH" munmap --shape page_fault2 -o "$T/x.json"
bad_input "munmap: empty shape" "^mmbench munmap: bad value '' for option '--shape'" "$MMBENCH" munmap --shape '' -o "$T/x.json"
bad_input "shape without a value" "^mmbench fault: option '--shape' needs a value$" "$MMBENCH" fault --shape
bad_input "page_fault2 with --thp" "^mmbench fault: --thp does not apply to --shape page_fault2$" \
	"$MMBENCH" fault --shape page_fault2 --thp -o "$T/x.json"
bad_input "shape of another benchmark" "^mmbench migrate: option '--shape' does not apply to migrate$" \
	"$MMBENCH" migrate --shape default -o "$T/x.json"
bad_input "shape on smoke" "^mmbench smoke: option '--shape' does not apply to smoke$" "$MMBENCH" smoke --shape default
expect_absent "no document after bad input" "$T/x.json"

# Negative controls: the checker that passed the documents above fails
# documents whose shape fields are wrong, naming what is wrong.
check_broken() {
	local what=$1 regex=$2 src=$3 filter=$4 rc=0
	shift 4
	jq "$filter" "$src" > "$T/broken.json"
	python3 "$TOP/tests/mmbench/check_schema.py" "$T/broken.json" "$@" > "$T/broken.log" 2>&1 || rc=$?
	expect_fails "checker: $what" "$regex" "$rc" "@$T/broken.log"
}
check_broken "a shape fault does not have" "unknown shape 'page_fault3' of fault" \
	"$T/pf1n.json" '.results[0].params.shape = "page_fault3"'
check_broken "a shape on a benchmark without shapes" "param 'shape' on exitdrain" \
	"$T/pf1n.json" '.results[0].benchmark = "exitdrain"'
check_broken "the MADV_DONTNEED variant in an ebizzy result" "shape ebizzy: metric 'dontneed_ops_per_s'" \
	"$T/eb.json" '.results[0].metrics += [.results[0].metrics[0] | .name = "dontneed_ops_per_s"]'
check_broken "ebizzy without its chunk count" "shape ebizzy: param 'chunks' missing" \
	"$T/eb.json" 'del(.results[0].params.chunks)'
check_broken "a default run asked to be page_fault2" "expected fault shape 'page_fault2', got None" \
	"$T/pf1.json" '.' --shape fault=page_fault2
if [ -f "$T/pf2.json" ]; then
	check_broken "page_fault2 without its backing" "shape page_fault2: param 'backing' missing" \
		"$T/pf2.json" 'del(.results[0].params.backing)'
fi
