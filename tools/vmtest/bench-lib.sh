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
# benchmark of the suite (one mmbench document each, printed between a
# marker line and an end line as soon as its benchmark ends, so a boot
# killed at its timeout still gives the documents of the items before it);
# the host merges them into $bench/<base>-<variant>.json, the form
# mmbench compare reads. Reads the caller's bench (directory), suite
# (comma-separated items), reps, quick (non-empty: --quick), timeout (per
# boot), note (a function), and, if set, bench_boot_opts (an array of more
# vmtest options), bench_guest_tail (guest shell commands run after the
# benchmarks and their documents), bench_tag (a suffix for the
# console and output files, so boots of one kernel with other vCPU counts
# keep theirs) and bench_docs (an array of "FILE=ITEMS": the documents this
# boot writes into $bench, each merged from its own items; default
# "<base>-<variant>.json=$suite"; an item in several documents runs once),
# bench_item_opts (BENCHMARK -> more options of that benchmark in this
# boot, e.g. [migrate]="--size-mib 4").
# An item is a benchmark, or BENCH:SHAPE for `mmbench BENCH --shape SHAPE`.
# Console: $bench/<base>-<variant><tag>.console, output: .out. Returns 1 when
# no document came back.
declare -A bench_item_opts=()
# shellcheck disable=SC2154 # bench, reps, suite, timeout, bench_boot_opts: the caller's
bench_run_suite() {
	local base=$1 variant=$2 kernel=$3 tag=${bench_tag:-} rc=0 it spec args run='' items
	local stem=$bench/$1-$2$tag
	local opts="--reps $reps${quick:+ --quick}"
	local specs=("${bench_docs[@]-$base-$variant.json=$suite}")
	items=$(for spec in "${specs[@]}"; do tr , '\n' <<< "${spec#*=}"; done | awk 'NF && !seen[$0]++' | paste -sd ' ')
	for it in $items; do
		args=${it%%:*}
		[ "$it" = "${it#*:}" ] || args+=" --shape ${it#*:}"
		args+=${bench_item_opts[$it]:+" ${bench_item_opts[$it]}"}
		# Each item's seconds in the output: what sizes a run (the boots'
		# bounds, which items fit the smoke or make check).
		run+="t0=\$(date +%s); mmbench $args $opts -o /tmp/$it.json > /tmp/$it.log 2>&1; "
		run+="rc=\$?; echo \"mmbench $it: exit \$rc after \$((\$(date +%s) - t0)) s\"; cat /tmp/$it.log; "
		run+="echo '@@JSON $it@@'; cat /tmp/$it.json 2>/dev/null; echo '@@JSON-END@@'; "
	done
	note "[$base $variant$tag] booting $(basename "$kernel"): mmbench {${items// /,}} $opts"
	"$(dirname "${BASH_SOURCE[0]}")/vmtest" boot "$kernel" --timeout "$timeout" --log "$stem.console" ${bench_boot_opts[@]+"${bench_boot_opts[@]}"} -- \
		"$run" "${bench_guest_tail:-true}" > "$stem.out" || rc=$?
	awk '/^@@JSON-END@@$/ { on = 0; next } /^@@JSON / { on = 1; next } !on && !/^dmesg \| /' "$stem.out" |
		sed "s/^/[$base $variant$tag] /" >&2
	bench_split_output "$stem.out" "$stem" "${specs[@]}" && return 0
	note "[$base $variant$tag] no results (vmtest exit $rc); console: $stem.console"
	return 1
}

# bench_split_output OUT STEM FILE=ITEMS...: the documents of one boot's
# output OUT (each item's after its "@@JSON item@@" line, up to the next
# "@@JSON" line: the next item's marker or the end line) merged into
# $bench/FILE per spec, from the items that gave an mmbench/1 document;
# a spec none of whose items did is not written. Kept apart from the boot so
# the tests can feed it recorded output. Fails when no FILE was written.
bench_split_output() {
	local out=$1 stem=$2 spec it f wrote=1 docs parts
	shift 2
	for spec in "$@"; do
		docs=() parts=()
		for it in $(tr , ' ' <<< "${spec#*=}"); do
			f=$stem-${it//:/-}.part.json
			parts+=("$f")
			awk -v m="@@JSON $it@@" '$0 == m {on = 1; next} /^@@JSON[ -]/ {on = 0} on' "$out" > "$f"
			# -s: jq 1.6's -e exits 0 on an empty file (a boot that died
			# before the item printed anything).
			if [ -s "$f" ] && jq -e '.schema == "mmbench/1"' "$f" >/dev/null 2>&1; then
				docs+=("$f")
			else
				note "[${stem##*/}] no mmbench document for $it"
			fi
		done
		if [ ${#docs[@]} -gt 0 ]; then
			jq -s '.[0] + {command: "bench-vm", results: [.[].results[]]}' "${docs[@]}" > "$bench/${spec%%=*}"
			wrote=0
		fi
		rm -f "${parts[@]}"
	done
	return $wrote
}

# bench_merge_boots OUT DOC...: one document of several boots of one kernel
# (bench-vm.sh, BENCH_BOOTS): each metric's values are the boots' medians,
# one value per boot, and its median is the median of those, so mmbench
# compare's interval is taken over the boots: a difference that lasts a
# whole boot counts once, not once per repetition. Each result keeps the
# first boot's fields, with `repetitions` the boots it counts, `params`
# plus `boots` and `reps_per_boot`; only the boots whose status is ok count
# (all of them when none is); its status is ok when every boot's was, else
# the first other status with its reason; `counters` are the first boot's.
# Results are matched by position and must name the same benchmarks in
# every DOC; the top level gains `boots`. Fails, writing nothing, when they
# do not.
bench_merge_boots() {
	local dest=$1
	shift
	[ $# -gt 0 ] || return 1
	# shellcheck disable=SC2016 # jq's variables
	jq -s '
		def med: sort | if length == 0 then null
			elif length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		. as $docs
		| if ([$docs[] | [.results[] | .benchmark + ":" + (.params.shape // "")]] | unique | length) != 1
		  then error("the boots ran different benchmarks") else . end
		| $docs[0] + {boots: ($docs | length), results: [range(0; $docs[0].results | length) as $i
			| [$docs[].results[$i]] as $rs
			| ([$rs[] | select(.status == "ok")]) as $ok
			| (if ($ok | length) > 0 then $ok else $rs end) as $src
			| ([$rs[] | select(.status != "ok")] | first) as $bad
			| $rs[0] + {
				status: (if $bad then $bad.status else "ok" end),
				repetitions: ($src | length),
				params: (($rs[0].params // {}) + {boots: ($rs | length), reps_per_boot: $rs[0].repetitions}),
				metrics: [($src[0].metrics // [])[] | .name as $n
					| [$src[] | (.metrics // [])[] | select(.name == $n) | .median | select(. != null)] as $v
					| . + {values: $v, median: ($v | med)}]
			  }
			| if $bad then . + {reason: $bad.reason} else del(.reason) end]}
	' "$@" > "$dest.tmp" 2>/dev/null && mv "$dest.tmp" "$dest" && return 0
	rm -f "$dest.tmp"
	return 1
}

# bench_host_desc: the host in one phrase, for the reports: name, CPUs and
# their model, memory.
bench_host_desc() {
	echo "$(uname -n), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
}

# fmt V: 4 significant digits, whole numbers from 1000 up (no exponents).
fmt() { awk -v v="$1" 'BEGIN { if (v == "-" || v == "") print "-"; else if (v >= 1000 || v <= -1000) printf "%.0f\n", v; else printf "%.4g\n", v }'; }
# ratio A B: A/B with 3 significant digits.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.3g\n", a / b }'; }

# bench_cell FILE ITEM METRIC: one cell of the scaling and seed tables: the
# median of METRIC in ITEM's result (BENCH, or BENCH:SHAPE for the result
# with that params.shape) in the document FILE, as a raw number; or why
# there is none: "not run" (no document, or no such result), "skipped",
# "failed", "n/a (no lock_stat)" (an lru_lock metric on a kernel without
# CONFIG_LOCK_STAT), "n/a (no TLB row)" (an IPI metric without the
# /proc/interrupts row), "n/a", "unreadable" (not JSON). Never a 0 that
# stands for a missing figure.
bench_cell() {
	local bench_name=${2%%:*} shape='' cell
	[ "$2" = "${2#*:}" ] || shape=${2#*:}
	[ -f "$1" ] || { echo "not run"; return 0; }
	cell=$(jq -r --arg b "$bench_name" --arg s "$shape" --arg m "$3" '
		.system.lock_stat as $ls
		| first(.results[] | select(.benchmark == $b and (.params.shape // "") == $s)) // null
		| if . == null then "not run"
		  elif .status == "skipped" then "skipped"
		  elif .status != "ok" then "failed"
		  else (first((.metrics // [])[] | select(.name == $m) | .median | numbers) // null) as $v
		  | if $v != null then $v
		    elif ($m | test("lru_lock")) and ($ls != true) then "n/a (no lock_stat)"
		    elif ($m | test("tlb_ipis")) then "n/a (no TLB row)"
		    else "n/a" end
		  end' "$1" 2>/dev/null) || cell=unreadable
	echo "$cell"
}

# is_number V: V is a number (a cell with a figure).
is_number() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }
# cell_text V: a cell as the tables show it: numbers by fmt, words as they are.
cell_text() { if is_number "$1"; then fmt "$1"; else echo "$1"; fi; }
# cell_ratio A B: A/B when both are figures (B not 0), else "-".
cell_ratio() { if is_number "$1" && is_number "$2"; then ratio "$1" "$2"; else echo -; fi; }
