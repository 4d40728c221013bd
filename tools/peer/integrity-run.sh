#!/bin/bash
# mmbench integrity over every kind of folio on booted guests, one boot per
# build and kind (a kernel that corrupts memory may take the whole guest
# down: the next kind still gets its own boot), and the report.
#   integrity-run.sh [--expect ok|fail] [--kinds LIST] [--seconds S] [--pages N]
#                    [--goal N] [--report FILE] BUILD_IDENTITY...
# --expect ok (default): each kind must end with exit 0, no lost write, no
#   corrupt or stray byte and no kernel splat; with --goal N the builds'
#   page migrations (pgmigrate_success) must add up to at least N per build.
# --expect fail: the negative control. Each kind must catch the broken
#   kernel: mmbench exits 1 with lost writes, corrupt or stray bytes, or it
#   is killed by a signal, or the guest hangs past its bound, or the kernel
#   reports a splat; how is in the verdict. A kind that ends clean is
#   "NOT DETECTED" and fails the run.
# --verdict ok|fail RC GUEST_OUT CONSOLE LIMIT: judge one recorded boot and
#   print its line (kind_verdict below), nothing booted: the no-boot tests.
# --kinds: mmbench's kind names, comma-separated, and file-ext4 (default all
#   eight). file runs in /tmp, tmpfs; file-ext4 is mmbench's file kind on an
#   ext4 file system the host makes (mkfs.ext4, a fresh 512 MiB image for
#   each boot) and gives the guest as its disk, where fsync(2) puts the
#   dirty pages under writeback while they move.
# Boots: tools/vmtest/vmtest, 4 vCPUs (VM_CPUS), 2 NUMA nodes, 2048 MiB
# (VM_MEM; debug builds 3072), the quick-path initramfs with the static
# mmbench, tests/vm/integrity_guest.sh; bound S + 180 s (debug: twice).
# Report (default $OUT/peer/integrity-report.txt): one line per build and
# kind,
#   KERNELRELEASE KIND VERDICT SECONDS PGMIGRATE LOST CORRUPT STRAY HOW
# then per build the migrations in all. Logs: $OUT/peer/integrity/<release>-<kind>.{out,console,dmesg}.
# Reads: OUT, VM_CPUS, VM_MEM, MMBENCH_STATIC (default $OUT/bin/static/mmbench), VMTEST_*.
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
export OUT=$out
usage() { echo "usage: integrity-run.sh [--expect ok|fail] [--kinds LIST] [--seconds S] [--pages N] [--goal N] [--report FILE] BUILD_IDENTITY... | --verdict ok|fail RC GUEST_OUT CONSOLE LIMIT" >&2; exit 2; }
die() { echo "ERROR: integrity-run: $*" >&2; exit 2; }
uint() { case $2 in ''|*[!0-9]*) die "$1 '$2': expected a whole number" ;; esac; }
# kind_verdict EXPECT RC OUT CONSOLE LIMIT: one kind's boot (vmtest's exit
# status RC, the guest's output OUT, the serial console CONSOLE, the bound
# LIMIT in s) judged; prints "VERDICT PGMIGRATE LOST CORRUPT STRAY HOW".
# The figures come from the guest's integrity-result line ("-": none, the
# guest never got there). VERDICT, --expect ok: pass (exit 0, every figure
# 0, no splat, no failed guest check), skip (mmbench said the kind cannot
# run here), else fail. --expect fail: detected when there is evidence
# (lost, corrupt or stray > 0; mmbench, or a child of its run, killed by a
# signal; the guest hung at its bound; a kernel splat), NOT-DETECTED when
# the run ended clean, skip as above, else fail (an exit 1 without a
# figure, a guest check that failed, a guest that went wrong before mmbench
# ran: no evidence either way).
kind_verdict() {
	local expect=$1 rc=$2 out=$3 console=$4 limit=$5 grc m l c s k scan splat=none how evidence=0 why
	read -r _ _ grc m l c s < <(grep -m1 '^integrity-result ' "$out" || echo "- - x - - - -")
	# children of the run that failed, as mmbench's kind line counts them
	k=$(sed -n 's/^mmbench | integrity kind .*, \([0-9][0-9]*\) children failed.*/\1/p' "$out" | head -n 1)
	k=${k:-0}
	# the splat scan (tests/vm/host.sh), its FAIL lines kept apart from
	# this run's own verdicts: the first report, or why the log could not
	# be scanned (a hung guest never dumped it)
	scan=$(guest_splats "$out" "$console" 2>&1 >/dev/null | sed -n 's/^  FAIL: //p')
	if grep -q '^kernel splat in ' <<< "$scan"; then
		splat=$(grep -m1 '^kernel splat in ' <<< "$scan") evidence=1
	elif [ -n "$scan" ] && [ "$rc" = 0 ]; then
		splat="the kernel log was not scanned: $(head -n 1 <<< "$scan")"
	fi
	case $rc in
	0) how="exit 0" ;;
	124) how="the guest hung: killed at its bound of $limit s" evidence=1 ;;
	125|126) how="the guest failed before mmbench ended (vmtest exit $rc)" ;;
	*) if [ "$rc" -gt 128 ]; then how="mmbench killed by signal $((rc - 128))" evidence=1; else how="exit $rc"; fi ;;
	esac
	case $m in ''|*[!0-9]*) m=- ;; esac
	if [ "$m" != - ]; then
		how+=": $l lost writes, $c corrupt bytes, $s stray bytes"
		[ "$l$c$s" = 000 ] || evidence=1
	fi
	# a child of the run killed by a signal: its memory was broken
	if [ "$k" -gt 0 ]; then
		how+=", $k children failed"
		if grep -q '^mmbench | integrity kind .*; first: child [0-9]* killed by signal' "$out"; then
			how+=" ($(sed -n 's/^mmbench | integrity kind .*; first: \(child [0-9]* killed by signal.*\)$/\1/p' "$out" | head -n 1))"
			evidence=1
		fi
	fi
	[ "$splat" = none ] || how+="; $splat"
	[ "$grc" = x ] || [ "$grc" = "$rc" ] || how+=" (mmbench itself: exit $grc)"
	why=$(sed -n 's/^mmbench | integrity\( kind [^:]*\)\{0,1\}: skipped: //p' "$out" | head -n 1)
	if grep -q '^FAIL ' "$out"; then
		how+="; a guest check failed: $(grep -m1 '^FAIL ' "$out")"
		evidence=0
		[ "$expect" = ok ] || { echo "fail $m ${l:--} ${c:--} ${s:--} $how"; return 0; }
	fi
	if [ "$rc" = 77 ] && [ -n "$why" ]; then
		echo "skip $m - - - skipped: $why"
	elif [ "$expect" = ok ]; then
		if [ "$rc" = 0 ] && [ "$m" != - ] && [ "$l$c$s$k" = 0000 ] && [ "$splat" = none ] && ! grep -q '^FAIL ' "$out"; then
			echo "pass $m $l $c $s $how"
		else
			echo "fail $m ${l:--} ${c:--} ${s:--} $how"
		fi
	elif [ "$evidence" = 1 ]; then
		echo "detected $m ${l:--} ${c:--} ${s:--} $how"
	elif [ "$rc" = 0 ]; then
		echo "NOT-DETECTED $m ${l:--} ${c:--} ${s:--} $how"
	else
		echo "fail $m ${l:--} ${c:--} ${s:--} $how (no evidence either way)"
	fi
}

verdict_only=0 expect=ok kinds=anon,anon-thp,fork-shared,shmem,file,file-ext4,ksm,mixed seconds=20 pages=1024 goal=0
report=$out/peer/integrity-report.txt
while [ $# -gt 0 ]; do
	case $1 in
	--expect) [ $# -ge 2 ] || usage; expect=$2; shift 2 ;;
	--kinds) [ $# -ge 2 ] || usage; kinds=$2; shift 2 ;;
	--seconds) [ $# -ge 2 ] || usage; uint "$1" "$2"; seconds=$2; shift 2 ;;
	--pages) [ $# -ge 2 ] || usage; uint "$1" "$2"; pages=$2; shift 2 ;;
	--goal) [ $# -ge 2 ] || usage; uint "$1" "$2"; goal=$2; shift 2 ;;
	--report) [ $# -ge 2 ] || usage; report=$2; shift 2 ;;
	--verdict) [ $# -eq 6 ] || usage; verdict_only=1; shift; break ;;
	-h|--help) usage ;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
done
[ "$verdict_only" = 0 ] || expect=$1
case $expect in ok|fail) ;; *) die "--expect '$expect': expected ok or fail" ;; esac
[ $# -ge 1 ] || usage
if [ "$verdict_only" = 1 ]; then
	# shellcheck source=tests/lib/assert.sh
	. "$top/tests/lib/assert.sh"
	# shellcheck source=tests/vm/host.sh
	. "$top/tests/vm/host.sh"
	kind_verdict "$@"
	exit 0
fi
mmbench=${MMBENCH_STATIC:-$out/bin/static/mmbench}
[ -x "$mmbench" ] || die "no static mmbench at $mmbench (make mmbench)"
# The kinds, checked before anything boots (mmbench's --kind names).
known_kinds=,anon,anon-thp,fork-shared,shmem,file,file-ext4,ksm,mixed,
for k in ${kinds//,/ }; do
	case $known_kinds in
	*,"$k",*) ;;
	*) die "--kinds: unknown kind '$k' (anon, anon-thp, fork-shared, shmem, file, file-ext4, ksm, mixed)" ;;
	esac
done
case ,$kinds, in
*,file-ext4,*) command -v mkfs.ext4 >/dev/null || die "file-ext4 needs mkfs.ext4 (make deps-vm installs e2fsprogs)" ;;
esac
# shellcheck disable=SC2034 # read by tests/lib/assert.sh
TEST_NAME=integrity
# shellcheck source=tests/lib/assert.sh
. "$top/tests/lib/assert.sh"
# shellcheck source=tests/vm/host.sh
. "$top/tests/vm/host.sh"
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
logs=$out/peer/integrity
mkdir -p "$logs" "$(dirname "$report")"
initramfs=$logs/initramfs.cpio.gz
"$top/tools/vmtest/mkinitramfs.sh" -o "$initramfs" "$mmbench:/usr/bin/mmbench"
rows=$logs/rows.txt
: > "$rows"

for build in "$@"; do
	bid_check "$build"
	krel=$(bid_get "$build" KERNELRELEASE) image=$(bid_get "$build" IMAGE) debug=$(bid_get "$build" DEBUG)
	cpus=${VM_CPUS:-4} mem=${VM_MEM:-2048} limit=$((seconds + 180))
	[ "$debug" = 0 ] || { mem=${VM_MEM:-3072}; limit=$((limit * 2)); }
	total=0
	for kind in ${kinds//,/ }; do
		name=$krel-$kind rc=0 t0=$SECONDS mb_kind=$kind disk=() fs=
		if [ "$kind" = file-ext4 ]; then
			mb_kind=file fs=ext4 disk=(--scratch-disk "$logs/$name.ext4")
			rm -f "$logs/$name.ext4"
			truncate -s 512M "$logs/$name.ext4"
			mkfs.ext4 -q -F "$logs/$name.ext4" || die "mkfs.ext4 $logs/$name.ext4 failed"
		fi
		echo "== $krel: kind $kind, ${seconds} s, $pages pages, $cpus vCPUs, expect $expect, bound $limit s"
		"$top/tools/vmtest/vmtest" boot "$image" --initramfs "$initramfs" --cpus "$cpus" --nodes 2 --mem "$mem" \
			--timeout "$limit" --append log_buf_len=8M --log "$logs/$name.console" ${disk[@]+"${disk[@]}"} \
			--add "$top/tests/vm/lib.sh" --add "$top/tests/vm/integrity_guest.sh" \
			-- "IG_KIND=$mb_kind IG_FS=$fs IG_SECONDS=$seconds IG_PAGES=$pages" sh integrity_guest.sh "$krel" \
			> "$logs/$name.out" 2>&1 || rc=$?
		rm -f "$logs/$name.ext4"
		secs=$((SECONDS - t0))
		grep -E '^(mmbench \| integrity|integrity-result|FAIL) ' "$logs/$name.out" | sed 's/^/    /' || true
		read -r verdict m l c s how < <(kind_verdict "$expect" "$rc" "$logs/$name.out" "$logs/$name.console" "$limit")
		case $m in ''|*[!0-9]*) ;; *) total=$((total + m)) ;; esac
		echo "$krel $kind $verdict $secs $m $l $c $s $how" >> "$rows"
		case $verdict in
		pass|detected) pass "$krel: kind $kind: $verdict ($how; $m pages migrated)" ;;
		skip) skip "$krel: kind $kind" "$how" ;;
		*) fail "$krel: kind $kind: $verdict ($how; $m pages migrated; logs $logs/$name.*)" ;;
		esac
	done
	echo "$krel total-migrations $total" >> "$rows"
	if [ "$goal" -gt 0 ]; then
		if [ "$total" -ge "$goal" ]; then pass "$krel: $total page migrations in all (goal $goal)"
		else fail "$krel: $total page migrations in all, below the goal of $goal"; fi
	fi
done

{
	echo "# mmbench integrity kinds, $(date -u +%Y-%m-%dT%H:%MZ), expect $expect, ${seconds} s and $pages pages per kind (tools/peer/integrity-run.sh)"
	echo "# KERNELRELEASE KIND VERDICT SECONDS PGMIGRATE LOST CORRUPT STRAY HOW"
	cat "$rows"
} > "$report"
echo "integrity: report $report"
test_summary
