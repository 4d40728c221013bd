#!/bin/bash
# bench-proof: the patch series' claims, measured on booted guest kernels
# (`make bench-proof`; `make bench-vm` runs it after the side-by-side run).
#   batch    the CONFIG_PAGEVEC_SIZE each config derives for NR_CPUS =
#            8 64 65 256 512 513 8192, both bases (config stage only)
#   flush    remote TLB flushes per 1000 migrated pages and pages/s, patched
#            6.1 vs unpatched 6.1 vs patched 6.12, in one table
#   lockstat lru_lock acquisitions per 1000 faulted pages in LOCK_STAT builds,
#            patched vs unpatched: 6.1 NR_CPUS=256, 6.12 NR_CPUS=1024; fault
#            pages/s compared with `mmbench compare` (2 vCPUs); the same
#            kernels boot again at each other count of PROOF_LOCKSTAT_CPUS
#            (documents proof-lockstat-<base>-<variant>-cpus<N>-fault.json,
#            the lru_lock scaling table of bench-scaling.sh)
#   integrity writers vs migrator on patched 6.1 with numa_balancing 0 and 1
#            (>= 10^6 page migrations each), then the negative control: 6.1
#            with patches/test/6.1-migrate-skip-flush.patch must lose writes
#   drain    per-CPU free-list pages after a large exit, without and with a
#            write to /proc/sys/vm/drain_percpu, patched both bases
# Writes $OUT/bench/proof-step-<step>.md|json per step, PROOF.md and
# proof.json from every step's latest files, and the mmbench documents
# proof-*.json. Exit 1 when a correctness claim fails (corruption on a
# patched kernel, a negative control that loses nothing, a WARN in dmesg) or
# a step could not run; a missed performance goal is reported, not fatal.
# Kernels, each read by its identity file (tools/kbuild/identity.sh): the
# patched and vanilla guest builds of both bases from BENCH_BUILDS (`make
# bench-proof` builds them first); the NR_CPUS, LOCK_STAT and negative-control
# variants built here by tools/vmtest/build-kernel.sh (the kbuild stage
# scripts with exactly those knobs), whose identity paths land in
# $OUT/bench/builds/.
# `bench-proof.sh --kernels` (make bench-kernels) only builds, or finds up to
# date, every build the PROOF_STEPS boot or read, prints each identity file
# and boots nothing: the builds can be made ahead of a long bench-vm run.
# Reads: BENCH_BUILDS, OUT, PROOF_STEPS (set and empty: only put PROOF.md together; default "batch flush lockstat integrity
#   drain"), PROOF_REPS (default 5), PROOF_INTEGRITY_S (seconds per
#   repetition, default 80; 3 repetitions), PROOF_LOCKSTAT_CPUS (vCPU counts
#   of the lockstat boots besides 2, default none; bench-vm passes
#   BENCH_CPUS),
#   BENCH_TIMEOUT, VMTEST_*.
# shellcheck disable=SC2317 # the step_* functions are called as "step_$s"
set -eu

kernels_only=0
case $# in
0) ;;
*) [ "$*" = --kernels ] || { echo "usage: bench-proof.sh [--kernels]" >&2; exit 2; }; kernels_only=1 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
steps=${PROOF_STEPS-batch flush lockstat integrity drain}
reps=${PROOF_REPS:-5}
integ_s=${PROOF_INTEGRITY_S:-80}
lockstat_cpus=${PROOF_LOCKSTAT_CPUS:-2}
[[ $lockstat_cpus =~ ^[0-9]+( [0-9]+)*$ ]] || { echo "ERROR: bench-proof: PROOF_LOCKSTAT_CPUS='$lockstat_cpus': vCPU counts, e.g. '2 4 8'" >&2; exit 2; }
timeout=${BENCH_TIMEOUT:-3600}
bench=$out/bench
mmbench=$out/bin/mmbench
lockstat_frag=$top/configs/kernel/bench/lockstat.config
# The NR_CPUS counts of the batch step's configs; the lockstat step's LOCK_STAT
# builds and goals, BASE:NR_CPUS:patched/unpatched at most:patched at most.
batch_nrs="8 64 65 256 512 513 8192"
lockstat_specs="6.1:256:0.70:69 6.12:1024:0.55:36"
negative_patch=$top/patches/test/6.1-migrate-skip-flush.patch
# The flush step's kernels (BASE:variant) and the integrity step's negative
# control: read by the steps and by --kernels alike.
flush_kernels="6.1:patched 6.1:vanilla 6.12:patched 6.12:vanilla"
negative_knobs=(BASE=6.1 "EXTRA_PATCHES=$negative_patch")
mkdir -p "$bench"

note() { echo "bench-proof: $*" >&2; }
builds=$bench/builds
mkdir -p "$builds"
# shellcheck source=tools/vmtest/bench-lib.sh
. "$here/bench-lib.sh"
for s in $steps; do
	case "$s" in batch|flush|lockstat|integrity|drain) ;;
	*) echo "ERROR: bench-proof: PROOF_STEPS: unknown step '$s' (batch flush lockstat integrity drain)" >&2; exit 2 ;;
	esac
done

failed=0 step_failed=0
fail() { note "FAILED: $*"; failed=1; step_failed=1; }
# Each step writes its own section ($bench/proof-step-<step>.md and .json);
# PROOF.md and proof.json are put together from every step's latest files, so
# the proof can be completed step by step (PROOF_STEPS) as kernels get built.
md=''
json='{}'
emit() { printf '%s\n' "$@" >> "$md"; }
# add_json KEY JSON: one step's figures into its JSON.
add_json() { json=$(jq -c --arg k "$1" --argjson v "$2" '. + {($k): $v}' <<< "$json"); }

# build_of [--config-only] KNOB=VALUE...: the identity file of the guest build
# of these knobs: BASE alone (and PATCHES=0) is a build of BENCH_BUILDS, any
# other knob a variant built here (build-kernel.sh).
build_of() {
	local kv base='' variant=patched other=() opt=() name
	[ "${1:-}" != --config-only ] || { opt=(--config-only); shift; }
	for kv in "$@"; do
		case $kv in
		BASE=*) base=${kv#BASE=} ;;
		PATCHES=0) variant=vanilla ;;
		*) other+=("$kv") ;;
		esac
	done
	if [ ${#other[@]} -eq 0 ] && [ ${#opt[@]} -eq 0 ]; then
		bench_build "$base" "$variant"
		return
	fi
	name=$(printf '%s\n' "$@" | sha256sum | cut -c1-12)
	"$here/build-kernel.sh" -o "$builds/$name.path" ${opt[@]+"${opt[@]}"} FLAVOR=guest "$@" >&2 || return 1
	cat "$builds/$name.path"
}
# lockstat_knobs BASE NR_CPUS patched|vanilla: the knobs of a LOCK_STAT
# build, one a line (their order names the build: build_of).
lockstat_knobs() {
	printf '%s\n' "BASE=$1" "NR_CPUS=$2" "FRAGMENTS=$lockstat_frag"
	[ "$3" = patched ] || echo PATCHES=0
}
# kernel KNOB=VALUE...: the image of that build (a note when there is none).
kernel() {
	local id
	id=$(build_of "$@") && bid_get "$id" IMAGE || { note "no kernel for: $*"; return 1; }
}

# guest NAME KERNEL CMD...: boots KERNEL (guest_cpus vCPUs, default 2), runs
# the mmbench commands CMD (each
# "DOC=ARGS": `mmbench ARGS -o /tmp/<DOC>.json` in the guest, its exit status recorded;
# after the shell commands in $guest_pre, if set), then
# a dmesg WARN count, and unpacks each document into $bench/proof-NAME-doc.json.
# Sets: exits[doc] (mmbench exit status), warns (dmesg WARNING/BUG lines,
# without the smpboot topology warning every kernel prints under this qemu
# NUMA layout), release.
declare -A exits
guest() {
	local name=$1 k=$2 script=${guest_pre:-} c doc args o
	o=$bench/proof-$name.out
	shift 2
	for c in "$@"; do
		doc=${c%%=*} args=${c#*=}
		script+="mmbench $args -o /tmp/$doc.json > /tmp/$doc.log 2>&1; echo \"@@EXIT $doc \$?@@\"; cat /tmp/$doc.log; "
	done
	script+="echo \"@@WARN \$(dmesg | grep -E 'WARNING:|BUG:|Oops' | grep -vc smpboot)@@\"; echo \"@@REL \$(uname -r)@@\"; "
	for c in "$@"; do
		doc=${c%%=*}
		script+="echo '@@JSON $doc@@'; cat /tmp/$doc.json 2>/dev/null; "
	done
	note "[$name] $(basename "${k%/arch/x86/boot/bzImage}"): ${*}"
	"$here/vmtest" boot "$k" --cpus "${guest_cpus:-2}" --timeout "$timeout" --log "$bench/proof-$name.console" -- "$script" > "$o" || true
	sed -n '1,/^@@JSON /p' "$o" | grep -v '^@@JSON ' | sed "s/^/[$name] /" >&2
	warns=$(sed -n 's/^@@WARN \([0-9]*\)@@.*/\1/p' "$o" | tail -n 1)
	release=$(sed -n 's/^@@REL \(.*\)@@.*/\1/p' "$o" | tail -n 1)
	for c in "$@"; do
		doc=${c%%=*}
		exits[$doc]=$(sed -n "s/^@@EXIT $doc \([0-9]*\)@@.*/\1/p" "$o" | tail -n 1)
		awk -v m="@@JSON $doc@@" '$0 == m {on = 1; next} /^@@JSON / {on = 0} on' "$o" > "$bench/proof-$name-$doc.json"
		# -s: jq 1.6's -e exits 0 on an empty file
		[ -s "$bench/proof-$name-$doc.json" ] && jq -e '.schema == "mmbench/1"' "$bench/proof-$name-$doc.json" >/dev/null 2>&1 ||
			{ rm -f "$bench/proof-$name-$doc.json"; [ -n "${exits[$doc]}" ] || exits[$doc]=none; }
	done
	[ -n "$release" ] || { fail "[$name] the guest did not run (console: $bench/proof-$name.console)"; return 1; }
	[ "${warns:-1}" = 0 ] || fail "[$name] $warns WARNING/BUG lines in dmesg (console: $bench/proof-$name.console)"
	return 0
}

# metric FILE BENCH NAME [median|sum]: a metric's median (or the sum of its values), "-" if absent.
metric() {
	[ -f "$1" ] || { echo -; return; }
	jq -r --arg b "$2" --arg m "$3" --arg f "${4:-median}" \
		'first(.results[] | select(.benchmark == $b) | .metrics[] | select(.name == $m) | if $f == "sum" then (.values | add) else .median end) // "-"' "$1"
}
# shellcheck source=bench-lib.sh
. "$here/bench-lib.sh"
# goal VALUE OP LIMIT: "met" / "MISSED" / "-".
goal() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { if (v == "-") { print "-"; exit }
	ok = (op == "<=") ? (v + 0 <= l + 0) : (v + 0 >= l + 0); print ok ? "met" : "MISSED" }'; }

step_batch() {
	local base n cfg size rows='[]' expect
	emit "## Batch size derived from CONFIG_NR_CPUS" "" \
		"the config stage (BASE=<base> FLAVOR=guest NR_CPUS=<n>), then \`CONFIG_PAGEVEC_SIZE\` of the final .config" \
		"(rule of patch 0010: never below the base's upstream size; 6.1: 15 up to 64 CPUs, 31 above;" \
		"6.12: 31 up to 512 CPUs, 63 above)." "" \
		"| base | 8 | 64 | 65 | 256 | 512 | 513 | 8192 |" "|---|---|---|---|---|---|---|---|"
	for base in 6.1 6.12; do
		local line="| $base |"
		for n in $batch_nrs; do
			size=-
			if cfg=$(build_of --config-only BASE=$base NR_CPUS=$n) && cfg=$(bid_get "$cfg" CONFIG) && [ -f "$cfg" ]; then
				size=$(sed -n 's/^CONFIG_PAGEVEC_SIZE=//p' "$cfg")
			fi
			case $base in
			6.1) if [ "$n" -le 64 ]; then expect=15; else expect=31; fi ;;
			6.12) if [ "$n" -le 512 ]; then expect=31; else expect=63; fi ;;
			esac
			[ "${size:--}" = "$expect" ] || fail "batch: $base NR_CPUS=$n gave '${size:-none}', the rule says $expect"
			line+=" ${size:--} |"
			rows=$(jq -c --arg b $base --argjson n $n --arg s "${size:--}" --argjson e $expect \
				'. + [{base: $b, nr_cpus: $n, pagevec_size: ($s | tonumber? // null), expected: $e}]' <<< "$rows")
		done
		emit "$line"
	done
	emit ""
	add_json batch "$rows"
}

step_flush() {
	local k name rows='[]' d base v
	local -A rate ipi rel
	emit "## Remote TLB flushes during migration: patched 6.1 vs unpatched 6.1 vs 6.12" "" \
		"\`mmbench migrate --reps $reps\` (64 MiB of 4 KiB pages moved between the nodes with move_pages(2)" \
		"while a second thread of the process runs on the other CPU); flushes = TLB shootdown IPIs" \
		"(\`/proc/interrupts\` TLB row) per 1000 migrated pages. Goals for patched 6.1: <= 2.5 per 1000" \
		"(as 6.12) and pages/s >= 1.5x unpatched 6.1." "" \
		"| kernel | release | TLB flushes / 1000 pages | pages/s | pages/s vs unpatched 6.1 | goal |" "|---|---|---|---|---|---|"
	for v in $flush_kernels; do
		base=${v%%:*} name=flush-$base-${v#*:}
		if [ "${v#*:}" = vanilla ]; then k=$(kernel BASE=$base PATCHES=0) || { fail "flush: no kernel for $v"; continue; }
		else k=$(kernel BASE=$base) || { fail "flush: no kernel for $v"; continue; }; fi
		guest "$name" "$k" "migrate=migrate --reps $reps --size-mib 64" || continue
		d=$bench/proof-$name-migrate.json
		[ "${exits[migrate]}" = 0 ] || fail "flush: mmbench migrate exited ${exits[migrate]} on $v"
		rate[$v]=$(metric "$d" migrate pages_per_s) ipi[$v]=$(metric "$d" migrate tlb_ipis_per_1000_pages)
		rel[$v]=$release
	done
	for v in $flush_kernels; do
		local r=${rate[$v]:--} i=${ipi[$v]:--} rr g=''
		rr=$(ratio "$r" "${rate[6.1:vanilla]:--}")
		if [ "$v" = 6.1:patched ]; then
			g="flushes $(goal "$i" '<=' 2.5), speed $(goal "$rr" '>=' 1.5)"
		fi
		emit "| ${v%%:*} ${v#*:} | \`${rel[$v]:-missing}\` | $(fmt "$i") | $(fmt "$r") | $rr | $g |"
		rows=$(jq -c --arg k "$v" --arg i "$i" --arg r "$r" --arg rr "$rr" \
			'def n: tonumber? // null; . + [{kernel: $k, tlb_flushes_per_1000_pages: ($i|n), pages_per_s: ($r|n), speed_vs_unpatched_6_1: ($rr|n)}]' <<< "$rows")
	done
	emit "" "Under TCG the pages/s depend on the host's load; the flush counts are exact." ""
	add_json flush "$rows"
}

step_lockstat() {
	local base nr lim rel_lim k v n name rows='[]' d p u pr ur
	emit "## lru_lock acquisitions per 1000 faulted pages (LOCK_STAT builds)" "" \
		"Guest flavor + \`configs/kernel/bench/lockstat.config\`, patched vs unpatched (\`PATCHES=0\`) of the same" \
		"NR_CPUS; \`mmbench fault --reps $reps\` (threads fault and unmap 4 KiB pages), acquisitions of" \
		"\`&lruvec->lru_lock\` from \`/proc/lock_stat\`. The verdict on pages/s is \`mmbench compare\`'s" \
		"(95% bootstrap CI); the goal there is \"not lower\" (better or same)." "" \
		"| base | NR_CPUS | batch | unpatched acq/1000 | patched acq/1000 | ratio | goal | unpatched pages/s | patched pages/s | pages/s verdict |" \
		"|---|---|---|---|---|---|---|---|---|---|"
	for spec in $lockstat_specs; do
		IFS=: read -r base nr rel_lim lim <<< "$spec"
		for v in patched vanilla; do
			name=lockstat-$base-$v
			local knobs
			mapfile -t knobs < <(lockstat_knobs "$base" "$nr" $v)
			k=$(kernel "${knobs[@]}") || { fail "lockstat: no kernel for $base $v"; continue; }
			# 2 vCPUs always (the table below); then the other counts
			for n in 2 $(tr ' ' '\n' <<< "$lockstat_cpus" | grep -vx 2 | paste -sd ' '); do
				name=lockstat-$base-$v
				[ "$n" = 2 ] || name+=-cpus$n
				guest_cpus=$n guest "$name" "$k" "fault=fault --reps $reps" || continue
				[ "${exits[fault]}" = 0 ] || fail "lockstat: mmbench fault exited ${exits[fault]} on $base $v at $n vCPUs"
			done
		done
		d=$bench/proof-lockstat-$base
		p=$(metric "$d-patched-fault.json" fault lru_lock_acq_per_1000_pages)
		u=$(metric "$d-vanilla-fault.json" fault lru_lock_acq_per_1000_pages)
		pr=$(metric "$d-patched-fault.json" fault pages_per_s) ur=$(metric "$d-vanilla-fault.json" fault pages_per_s)
		[ "$p" != - ] && [ "$u" != - ] || fail "lockstat: $base: no lru_lock figures (is /proc/lock_stat there?)"
		local verdict=- r batch
		if [ -f "$d-patched-fault.json" ] && [ -f "$d-vanilla-fault.json" ]; then
			(cd "$bench" && "$mmbench" compare "proof-lockstat-$base-vanilla-fault.json" "proof-lockstat-$base-patched-fault.json") \
				> "$d-compare.txt" 2>&1 || true
			verdict=$(awk '$1 == "fault" && $2 == "pages_per_s" { v = $0; sub(/^.*\] +/, "", v) } END { print (v == "" ? "-" : v) }' "$d-compare.txt")
		fi
		r=$(ratio "$p" "$u")
		batch=
		if cfg=$(build_of BASE=$base NR_CPUS=$nr FRAGMENTS="$lockstat_frag" 2>/dev/null) && cfg=$(bid_get "$cfg" CONFIG 2>/dev/null); then
			batch=$(sed -n 's/^CONFIG_PAGEVEC_SIZE=//p' "$cfg")
		fi
		emit "| $base | $nr | ${batch:--} | $(fmt "$u") | $(fmt "$p") | $r | ratio <= $rel_lim $(goal "$r" '<=' "$rel_lim"), <= $lim $(goal "$p" '<=' "$lim") | $(fmt "$ur") | $(fmt "$pr") | $verdict |"
		rows=$(jq -c --arg b $base --argjson n $nr --arg p "$p" --arg u "$u" --arg r "$r" --arg pr "$pr" --arg ur "$ur" --arg v "$verdict" --arg bs "${batch:--}" \
			'def n: tonumber? // null; . + [{base: $b, nr_cpus: $n, pagevec_size: ($bs|n), lru_acq_per_1000: {unpatched: ($u|n), patched: ($p|n)}, ratio: ($r|n), pages_per_s: {unpatched: ($ur|n), patched: ($pr|n)}, pages_per_s_verdict: $v}]' <<< "$rows")
	done
	emit ""
	add_json lockstat "$rows"
}

step_integrity() {
	local k kn rows='[]' nb d c m name e
	emit "## Data integrity while pages migrate (6.1)" "" \
		"\`mmbench integrity --pages 256 --seconds $integ_s --reps 3\`: writers keep rewriting known patterns while a" \
		"migrator moves the 256 pages between the nodes (move_pages and mbind MPOL_MF_MOVE); every byte is" \
		"checked at the end. A small buffer keeps the writer's TLB entries alive, the case a missing flush" \
		"breaks. Goal: >= 10^6 page migrations per run, 0 corrupt bytes, no WARNING in dmesg; the negative" \
		"control (a 6.1 build whose migration unmap skips the TLB flush) must report corruption." "" \
		"| kernel | numa_balancing | writers | page migrations | mismatched bytes (writers' checks + final check) | mmbench exit | dmesg WARN | verdict |" \
		"|---|---|---|---|---|---|---|---|"
	k=$(kernel BASE=6.1) || { fail "integrity: no patched 6.1 kernel"; emit "(patched 6.1 kernel missing)" ""; }
	kn=$(kernel "${negative_knobs[@]}") || fail "integrity: no negative-control kernel"
	for run in patched:0:1 patched:1:2 negative:0:1; do
		IFS=: read -r v nb w <<< "$run"
		name=integrity-6.1-$v-nb$nb
		local kk=$k s=$integ_s r=3
		[ $v = negative ] && { kk=${kn:-}; s=20; r=1; }
		[ -n "$kk" ] || continue
		# "&&": when the knob cannot be set, mmbench does not run and the run fails.
		guest_pre="echo $nb > /proc/sys/kernel/numa_balancing && " \
			guest "$name" "$kk" "integrity=integrity --pages 256 --writers $w --seconds $s --reps $r" || continue
		d=$bench/proof-$name-integrity.json
		m=$(metric "$d" integrity custom_pgmigrate_success sum) c=$(metric "$d" integrity custom_corrupt_bytes sum)
		e=${exits[integrity]}
		local verdict
		if [ $v = negative ]; then
			if [ "$c" != - ] && [ "$c" != 0 ] && [ "$e" = 1 ]; then verdict="corruption detected (the test can fail)"
			else verdict="NOT DETECTED"; fail "integrity: the negative control lost nothing (corrupt=$c, exit $e)"; fi
		else
			if [ "$c" = 0 ] && [ "$e" = 0 ] && [ "$warns" = 0 ]; then verdict=ok; else verdict=FAILED; fail "integrity: $name corrupt=$c exit=$e warns=$warns"; fi
			[ "$m" != - ] && awk -v m="$m" 'BEGIN { exit !(m >= 1000000) }' || verdict+=", below 10^6 migrations"
		fi
		emit "| 6.1 $v \`$release\` | $nb | $w | $(fmt "$m") | $(fmt "$c") | $e | $warns | $verdict |"
		rows=$(jq -c --arg k "$v" --argjson nb $nb --argjson w $w --arg m "$m" --arg c "$c" --arg e "$e" --argjson wa "${warns:-null}" --arg v "$verdict" \
			'def n: tonumber? // null; . + [{kernel: $k, numa_balancing: $nb, writers: $w, page_migrations: ($m|n), corrupt_bytes: ($c|n), exit: ($e|n), dmesg_warnings: $wa, verdict: $v}]' <<< "$rows")
	done
	emit ""
	add_json integrity "$rows"
}

# pages FILE METRIC: an exitdrain KiB median in 4 KiB pages.
pages() { local v; v=$(metric "$1" exitdrain "$2"); awk -v v="$v" 'BEGIN { if (v == "-") print "-"; else printf "%d\n", v / 4 }'; }

step_drain() {
	local base k rows='[]' d0 d1 b
	emit "## Per-CPU caches after a large exit, without and with drain_percpu" "" \
		"\`mmbench exitdrain --reps 3\` (a 2-thread child faults 512 MiB of 4 KiB pages and exits), then the same" \
		"with \`--drain-knob\` (writes 1 to /proc/sys/vm/drain_percpu right after \`waitpid()\`): per-CPU free-list" \
		"pages (\`/proc/zoneinfo\` pcp \`count:\`), medians, in 4 KiB pages. The drain runs right after the" \
		"+0 ms sample (the moment of the child's exit)." "" \
		"| kernel | before the child | at exit (+0 ms) | +100 ms, no drain | +10 ms, drained | +100 ms, drained |" "|---|---|---|---|---|---|"
	for base in 6.1 6.12; do
		k=$(kernel BASE=$base) || { fail "drain: no patched $base kernel"; continue; }
		guest "drain-$base" "$k" "plain=exitdrain --reps 3" "knob=exitdrain --reps 3 --drain-knob" || continue
		[ "${exits[plain]}" = 0 ] && [ "${exits[knob]}" = 0 ] || fail "drain: exitdrain exited ${exits[plain]}/${exits[knob]} on $base"
		d0=$bench/proof-drain-$base-plain.json d1=$bench/proof-drain-$base-knob.json
		b=$(pages "$d0" 4k_pcp_kib_before)
		local n0 n100 k0 k100
		n0=$(pages "$d0" 4k_pcp_kib_0ms) n100=$(pages "$d0" 4k_pcp_kib_100ms) k0=$(pages "$d1" 4k_pcp_kib_10ms) k100=$(pages "$d1" 4k_pcp_kib_100ms)
		emit "| $base patched \`$release\` | $b | $n0 | $n100 | $k0 | $k100 |"
		rows=$(jq -c --arg b $base --arg pb "$b" --arg a "$n0" --arg c "$n100" --arg d "$k0" --arg e "$k100" \
			'def n: tonumber? // null; . + [{base: $b, pcp_pages: {before: ($pb|n), at_exit: ($a|n), no_drain_100ms: ($c|n), drained_10ms: ($d|n), drained_100ms: ($e|n)}}]' <<< "$rows")
	done
	emit ""
	add_json drain "$rows"
}

# prebuild [--config-only] KNOB=VALUE...: the build of these knobs made (or
# found up to date) and its identity file printed, once per build.
declare -A prebuilt
prebuild() {
	local id
	id=$(build_of "$@") || { fail "no build for: $*"; return 0; }
	[ -z "${prebuilt[$id]:-}" ] || return 0
	prebuilt[$id]=1
	echo "$id"
}
if [ $kernels_only = 1 ]; then
	for s in $steps; do
		case $s in
		batch) for base in 6.1 6.12; do for n in $batch_nrs; do prebuild --config-only "BASE=$base" "NR_CPUS=$n"; done; done ;;
		flush)
			for v in $flush_kernels; do
				if [ "${v#*:}" = vanilla ]; then prebuild "BASE=${v%%:*}" PATCHES=0; else prebuild "BASE=${v%%:*}"; fi
			done
			;;
		lockstat)
			for spec in $lockstat_specs; do
				IFS=: read -r base nr _ <<< "$spec"
				for v in patched vanilla; do
					mapfile -t knobs < <(lockstat_knobs "$base" "$nr" $v)
					prebuild "${knobs[@]}"
				done
			done
			;;
		integrity) prebuild BASE=6.1; prebuild "${negative_knobs[@]}" ;;
		drain) prebuild BASE=6.1; prebuild BASE=6.12 ;;
		esac
	done
	[ $failed = 0 ] || note "a build the proof needs failed (above)"
	exit $failed
fi

t0=$SECONDS
[ -x "$mmbench" ] || { echo "ERROR: bench-proof: no $mmbench (make mmbench)" >&2; exit 1; }
for s in $steps; do
	t1=$SECONDS step_failed=0 json='{}'
	md=$bench/proof-step-$s.md.tmp
	: > "$md"
	"step_$s"
	emit "(step \`$s\` run $(date -u +%Y-%m-%dT%H:%MZ), $((SECONDS - t1)) s$([ $step_failed = 0 ] || echo ", FAILED: see the bench-proof output"))" ""
	mv "$md" "$bench/proof-step-$s.md"
	jq -n --argjson p "$json" --arg g "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson f $step_failed \
		'{generated: $g, failed: ($f == 1)} + $p' > "$bench/proof-step-$s.json"
	note "step $s: $((SECONDS - t1)) s"
done
{
	echo "# mmbatch patch series: proof on booted kernels"
	echo
	echo "Put together $(date -u +%Y-%m-%dT%H:%MZ) by \`make bench-proof\` (also run by \`make bench-vm\`; \`PROOF_STEPS\` runs"
	echo "some steps and keeps the others' latest results). Guests: qemu, 2 vCPUs, 2 NUMA nodes (1 GiB each),"
	echo "the quick-path busybox initramfs."
	echo
	for s in batch flush lockstat integrity drain; do
		[ -f "$bench/proof-step-$s.md" ] && cat "$bench/proof-step-$s.md"
	done
} > "$bench/PROOF.md.tmp"
mv "$bench/PROOF.md.tmp" "$bench/PROOF.md"
all=()
for s in batch flush lockstat integrity drain; do
	[ -f "$bench/proof-step-$s.json" ] && all+=("$bench/proof-step-$s.json")
done
jq -s --arg g "$(date -u +%Y-%m-%dT%H:%M:%SZ)" '{schema: "mmbatch-bench-proof/1", generated: $g, failed: (map(.failed) | any)} + (reduce .[] as $x ({}; . + ($x | del(.generated, .failed))))' \
	"${all[@]}" > "$bench/proof.json"
note "wrote $bench/PROOF.md, proof.json ($((SECONDS - t0)) s)"
exit $failed
