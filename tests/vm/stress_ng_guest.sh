#!/bin/sh
# stress-ng (Debian's package, an outside suite) in a full-path guest: a
# rootfs made by tools/vmtest/mkrootfs.sh --apt stress-ng, booted with
# systemd by tools/peer/stress-ng.sh:
#   vmtest boot VMLINUZ --rootfs IMG --initramfs INITRD --add tests/vm/lib.sh \
#       --add tests/vm/stress_ng_guest.sh -- sh stress_ng_guest.sh KERNELRELEASE SECONDS
# Runs the memory-management stressors below one after the other, each
# bounded by stress-ng's --timeout SECONDS (and killed SECONDS+120 s later if
# it hangs), with --verify --metrics-brief --log-file --yaml, and gives each
# one verdict:
#   pass  stress-ng exited 0, said "successful run completed", counted bogo
#         ops, and printed no fail/error line and no skip message;
#   skip  the guest cannot run it: stress-ng said so (skipping / will be
#         skipped / not implemented) or exited 3 (no resources, a missing
#         system call) or 4 (not implemented); never a pass;
#   fail  anything else: a "fail:" or "error:" line (verification errors are
#         "fail:" lines), exit 1, 2 (a stressor failed), 5 (killed by a
#         signal), 6, 7 (metrics untrustworthy), no "run completed" line, no
#         bogo ops, or the hang guard fired.
# Output, per stressor (the host counts these lines, tests/vm/host.sh):
#   ok       stress-ng NAME: pass in S s (REASON)
#   FAIL     stress-ng NAME: REASON (S s)
#   NOT-LIVE stress-ng NAME: REASON
#     | stress-ng-result NAME pass|fail|skip S REASON   (tools/peer/stress-ng.sh's verdicts)
#     | NAME.log: ...  and  | NAME.yaml: ...             (stress-ng's log and YAML)
# The result and the dumps are indented, so the host's console splat scan
# skips them (stress-ng's own messages may say "WARNING:"). First a plan
# line, "    | stress-ng-plan: NAME...", names every stressor that must have a
# result; last the kernel log dump and vm_summary (tests/vm/lib.sh).
# The console log level is lowered to warnings (dmesg -n 5) while it runs:
# memory hotplug and the OOM killer print at info level, and those lines
# would land inside this script's output; dmesg (dumped at the end) keeps
# everything, and an oops raises the level by itself.
#
#   sh stress_ng_guest.sh --parse NAME STRESSOR RC SECONDS LOG...
#       the verdict of one recorded run alone (no lib.sh, nothing run): the
#       result line, without its indent (tests/vm/stress_ng_parse_test.sh).
#   sh stress_ng_guest.sh --has-option OPT HELP
#       exit 0 when HELP (a recorded stress-ng --help) lists the option OPT.
# Reads: STRESS_NG (default stress-ng), SNG_ONLY (names to run, default all).

# sng_verdict NAME STRESSOR RC SECONDS LOG...: "VERDICT REASON" of one run of
# stress-ng, from its exit status RC and its messages (the --log-file and
# what it printed); STRESSOR is the name stress-ng prints in its metrics.
sng_verdict() {
	_name=$1 _stressor=$2 _rc=$3 _secs=$4
	shift 4
	cat "$@" 2>/dev/null | tr -d '\r' | awk -v name="$_name" -v st="$_stressor" -v rc="$_rc" -v secs="$_secs" '
		function clean(s) {
			sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
			gsub(/: /, "; ", s); gsub(/[ \t]+/, " ", s)
			return s
		}
		# "stress-ng: TAG: [PID] MESSAGE" (TAG info, fail, error, warn, metrc, debug)
		match($0, /^stress-ng: [a-z]+: +\[[0-9]+\] /) {
			tag = $2; sub(/:$/, "", tag)
			msg = substr($0, RLENGTH + 1)
			if (tag == "metrc") {
				# (one line for all instances; the same line again from the other file)
				if ($4 == st && $5 ~ /^[0-9]+$/ && !have_ops) { ops = $5; have_ops = 1 }
				next
			}
			if (tag == "fail" && failmsg == "") failmsg = msg
			# (all of them skipped: "No stress workers invoked (one or more were unsupported)")
			if (tag == "error" && msg ~ /^No stress workers invoked/) noworkers = msg
			else if (tag == "error" && errmsg == "") errmsg = msg
			if (tag == "warn" && warnmsg == "") warnmsg = msg
			if (msg ~ /skipping|will be skipped|not implemented/ && skipmsg == "") skipmsg = msg
			if (msg ~ /^successful run completed/) done = "ok"
			if (msg ~ /^unsuccessful run completed/) done = "bad"
			next
		}
		# options stress-ng rejects are printed without the prefix
		NF && first == "" { first = $0 }
		END {
			if (rc == 124 || rc == 137)
				v = "fail did not end within " secs " s (killed by the hang guard, exit " rc ")"
			else if (failmsg != "")
				v = "fail " clean(failmsg) " (exit " rc ")"
			else if (errmsg != "")
				v = "fail stress-ng error; " clean(errmsg) " (exit " rc ")"
			else if (rc == 3 || rc == 4 || skipmsg != "" || noworkers != "")
				v = "skip " (skipmsg != "" ? clean(skipmsg) (rc != 0 ? " (exit " rc ")" : "") : \
					noworkers != "" ? clean(noworkers) (rc != 0 ? " (exit " rc ")" : "") : \
					rc == 3 ? "no resources (stress-ng exit 3)" : "not implemented here (stress-ng exit 4)")
			else if (rc == 2) v = "fail one or more stressors failed (exit 2)"
			else if (rc == 5) v = "fail a stressor was killed by an unexpected signal (exit 5)"
			else if (rc == 6) v = "fail a stressor exited unexpectedly, no timing metrics (exit 6)"
			else if (rc == 7) v = "fail bogo-ops metrics untrustworthy (exit 7" (warnmsg != "" ? "; " clean(warnmsg) : "") ")"
			else if (rc != 0) v = "fail stress-ng exit " rc (first != "" ? "; " clean(first) : "")
			else if (done == "") v = "fail no run completed line (stress-ng ended early?)"
			else if (done != "ok") v = "fail unsuccessful run completed (exit 0)"
			else if (!have_ops || ops == 0) v = "fail no bogo ops counted for " st
			else v = "pass " ops " bogo ops"
			print v
		}'
}

# sng_has_option OPT HELP: HELP (stress-ng --help's output) lists OPT as an
# option of its own ("      --numa N ...", "-m N, --vm N ...").
sng_has_option() { grep -qE -- "^(-[A-Za-z] [A-Z], | +)$1 " "$2"; }

if [ "${1:-}" = --has-option ]; then
	[ $# -eq 3 ] || { echo "usage: stress_ng_guest.sh --has-option OPT HELP" >&2; exit 2; }
	sng_has_option "$2" "$3"
	exit
fi
if [ "${1:-}" = --parse ]; then
	[ $# -ge 6 ] || { echo "usage: stress_ng_guest.sh --parse NAME STRESSOR RC SECONDS LOG..." >&2; exit 2; }
	_n=$2 _s=$3 _r=$4 _t=$5
	shift 5
	_v=$(sng_verdict "$_n" "$_s" "$_r" "$_t" "$@")
	echo "stress-ng-result $_n ${_v%% *} $_t ${_v#* }"
	exit 0
fi

# shellcheck source=tests/vm/lib.sh
. ./lib.sh

[ $# -eq 2 ] || { echo "usage: stress_ng_guest.sh KERNELRELEASE SECONDS"; exit 2; }
want_release=$1 secs=$2
sng=${STRESS_NG:-stress-ng}
d=$(mktemp -d /var/tmp/stress-ng.XXXXXX)
ksm=/sys/kernel/mm/ksm

# The stressors: NAME STRESSOR OPTIONS... (STRESSOR: the name in stress-ng's
# metrics). The vm methods write and read back patterns (flip: bit flips;
# move-inv: memtest's moving inversions; rand-set: random addresses); with
# two NUMA nodes and NUMA balancing on, the kernel migrates those pages
# meanwhile. vm-ksm: mergeable pages that KSM merges and unmerges under the
# writers (ksm/run=1); stress-ng 0.15 has no --ksm stressor of its own (a
# newer one that does runs it as "ksm").
plan='numa numa --numa 2
vm-flip vm --vm 2 --vm-bytes 256M --vm-method flip
vm-move-inv vm --vm 2 --vm-bytes 256M --vm-method move-inv
vm-rand-set vm --vm 2 --vm-bytes 256M --vm-method rand-set
vm-ksm vm --vm 2 --vm-bytes 128M --vm-method zero-one --vm-madvise mergeable
ksm ksm --ksm 2
mmap mmap --mmap 2 --mmap-bytes 64M
madvise madvise --madvise 2
memhotplug memhotplug --memhotplug 1'
[ -z "${SNG_ONLY:-}" ] || plan=$(echo "$plan" | awk -v only=" $SNG_ONLY " 'index(only, " " $1 " ")')
echo "    | stress-ng-plan: $(echo "$plan" | awk '{print $1}' | paste -sd' ')"

vm_expect "running kernel release" "$want_release" "$(uname -r)"
vm_expect "NUMA nodes online" "0-1" "$(cat /sys/devices/system/node/online 2>&1)"
vm_expect "dpkg status of stress-ng" "install ok installed" "$(dpkg-query -W -f='${Status}' stress-ng 2>&1)"
version=$("$sng" --version 2>&1)
echo "    | $version"
vm_expect_match "stress-ng --version" "stress-ng, version *" "$version"
"$sng" --help > "$d/help.txt" 2>&1
blocks=$(find /sys/devices/system/memory -maxdepth 1 -name 'memory[0-9]*' 2>/dev/null | wc -l)
echo "    | kernel.numa_balancing=$(cat /proc/sys/kernel/numa_balancing 2>&1); THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1); memory blocks $blocks"
dmesg -n 5 2>/dev/null || echo "    | dmesg -n 5 failed: the kernel's info messages go to the console"

# result NAME VERDICT SECONDS REASON: the counted line and the result line.
result() {
	case $2 in
	pass) echo "ok       stress-ng $1: pass in $3 s ($4)"; vm_passed=$((vm_passed + 1)) ;;
	skip) vm_not_live "stress-ng $1" "$4" ;;
	*) echo "FAIL     stress-ng $1: $4 ($3 s)"; vm_failed=$((vm_failed + 1)) ;;
	esac
	echo "    | stress-ng-result $1 $2 $3 $4"
}

# ksm_watch FILE: samples ksm/pages_sharing every second into FILE (its
# largest value on the last line) until killed.
ksm_watch() {
	_max=0
	while :; do
		_v=$(cat "$ksm/pages_sharing" 2>/dev/null || echo 0)
		[ "$_v" -le "$_max" ] || _max=$_v
		echo "$_max" > "$1"
		sleep 1
	done
}

while read -r name stressor opts; do
	[ -n "$name" ] || continue
	# the option this stressor needs must be in this stress-ng
	opt=$(echo "$opts" | awk '{print $1}')
	if ! sng_has_option "$opt" "$d/help.txt"; then
		result "$name" skip 0 "stress-ng $(echo "$version" | awk '{print $3}' | tr -d ,) has no $opt stressor (stress-ng --help)"
		continue
	fi
	watch_pid='' ksm_before=''
	if [ "$name" = vm-ksm ]; then
		if [ ! -w "$ksm/run" ]; then
			result "$name" skip 0 "no $ksm/run (kernel without CONFIG_KSM)"
			continue
		fi
		ksm_before="$(cat "$ksm/run") $(cat "$ksm/pages_to_scan") $(cat "$ksm/sleep_millisecs")"
		echo 1 > "$ksm/run"; echo 1000 > "$ksm/pages_to_scan"; echo 20 > "$ksm/sleep_millisecs"
		echo 0 > "$d/ksm.max"
		ksm_watch "$d/ksm.max" &
		watch_pid=$!
	fi
	echo "run      stress-ng $name: $sng $opts --timeout ${secs}s --metrics-brief --verify"
	t0=$(date +%s)
	# shellcheck disable=SC2086 # the options are words
	timeout -k 10 $((secs + 120)) "$sng" $opts --timeout "${secs}s" --metrics-brief --verify \
		--temp-path "$d" --log-file "$d/$name.log" --yaml "$d/$name.yaml" \
		> "$d/$name.out" 2>&1 < /dev/null
	rc=$?
	t=$(($(date +%s) - t0))
	v=$(sng_verdict "$name" "$stressor" "$rc" "$t" "$d/$name.log" "$d/$name.out")
	verdict=${v%% *} reason=${v#* }
	if [ -n "$watch_pid" ]; then
		kill "$watch_pid" 2>/dev/null; wait "$watch_pid" 2>/dev/null
		shared=$(tail -n 1 "$d/ksm.max")
		echo "    | ksm: pages_sharing at most $shared during the run; full_scans $(cat "$ksm/full_scans")"
		# set ksm_before's three values back (run: 2 would unmerge; the old value)
		# shellcheck disable=SC2086 # ksm_before is three words, split on purpose
		set -- $ksm_before
		echo "$1" > "$ksm/run"; echo "$2" > "$ksm/pages_to_scan"; echo "$3" > "$ksm/sleep_millisecs"
		if [ "$verdict" = pass ]; then
			if [ "${shared:-0}" -gt 0 ]; then reason="$reason, KSM shared up to $shared pages"
			else verdict=fail reason="KSM merged no page of the mergeable buffers (ksm/pages_sharing stayed 0; stress-ng itself passed, $reason)"; fi
		fi
	fi
	# The log, what stress-ng printed beyond it (messages before the log
	# opened, "N failures reached" ...), the YAML. (awk: a last line
	# without its newline still ends its line here.)
	touch "$d/$name.log"
	awk -v p="    | $name.log: " '{print p $0}' "$d/$name.log"
	awk -v p="    | $name.out: " -v lf="$d/$name.log" 'BEGIN {while ((getline l < lf) > 0) seen[l] = 1}
		!($0 in seen) {print p $0}' "$d/$name.out"
	[ ! -s "$d/$name.yaml" ] || awk -v p="    | $name.yaml: " '{print p $0}' "$d/$name.yaml"
	result "$name" "$verdict" "$t" "$reason"
done <<PLAN
$plan
PLAN

vm_dump_kernel_log
vm_summary
