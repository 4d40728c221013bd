#!/bin/bash
# stress-ng, Debian's package (an outside suite), on one of our kernels in a
# full-path guest:
#   stress-ng.sh BUILD_IDENTITY [--seconds S]
# BUILD_IDENTITY: a build's mmbatch-build.env (tools/kbuild/identity.sh);
# KERNELRELEASE, IMAGE_DEB and MMBATCHD_DEB are read from it (a missing key
# fails before anything is built, naming the file and the key). The rootfs is
# the full path's (tools/vmtest/mkrootfs.sh: MMBATCHD_DEB, IMAGE_DEB, and
# --apt stress-ng: bookworm's stress-ng .deb and its dependencies fetched
# with apt-get download and installed with dpkg -i), cached like the other
# rootfs images. It boots with systemd, --cpus 4 --nodes 2 --mem 3072
# (SNG_CPUS, SNG_MEM), and tests/vm/stress_ng_guest.sh runs each stressor
# for S seconds (default 20): numa, vm with the flip, move-inv and rand-set
# methods, vm-ksm (mergeable vm buffers with KSM running), ksm (a skip with
# stress-ng 0.15, which has no --ksm), mmap, madvise, memhotplug; all with
# --verify --metrics-brief --log-file --yaml.
# Stdout: one verdict line per stressor, and the same lines in
# $OUT/peer/stress-ng-<release>.txt:
#   stress-ng <stressor> <kernelrelease> pass|fail|skip <seconds> <reason>
# plus two lines of the run itself: "boot" (vmtest's exit status and the
# boot's seconds) and "kernel-log" (every kernel splat in the kernel log the
# guest dumped or in the console fails it: tests/vm/host.sh's scan, as
# guest_splats runs it, with one difference: memory offlining's page dumps,
# "page dumped because: unmovable page" and "... migration failure", are
# blanked first, below, and counted in the line's reason).
# A skip (the guest cannot run it: stress-ng says so) is never a pass; a
# stressor the guest planned but gave no result for is a fail. Exit status:
# non-zero when any line is a fail.
# Everything else (the guest's checks counted as assertions, the step
# timings) goes to stderr. Logs: $OUT/peer/stress-ng-<release>.{out,console,
# dmesg} and each stressor's stress-ng log and YAML in
# $OUT/peer/stress-ng-<release>/<stressor>.{log,yaml}.
# Reads: OUT (default out/ of this repo), SNG_CPUS (4), SNG_MEM (MiB, 3072),
# SNG_TIMEOUT (the boot's limit, default 900 + 9 * (S + 60) s), SNG_ONLY
# (stressor names to run, default all), SNG_NICE (the boot's nice level,
# default 10: a shared build host), VMTEST_*, and what mkrootfs.sh
# reads (MKCHROOT_SUITE ...).
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
usage() { echo "usage: stress-ng.sh BUILD_IDENTITY [--seconds S] | --verdicts GUEST_OUT | --splats GUEST_OUT CONSOLE" >&2; exit 2; }
[ $# -ge 1 ] || usage

# stressor_verdicts GUEST_OUT: "NAME VERDICT SECONDS REASON" for every
# stressor of the guest's plan line, from its result lines; a planned
# stressor without one (the guest died, or the line was garbled) is a fail,
# as is a verdict that is not pass, fail or skip. No plan line: one fail
# line named "plan".
stressor_verdicts() {
	local plan results name line v s reason
	plan=$(sed -n 's/^    | stress-ng-plan: //p' "$1" | head -n 1)
	if [ -z "$plan" ]; then
		echo "plan fail 0 no stress-ng-plan line in the guest's output (the guest script did not start)"
		return 0
	fi
	results=$(sed -n 's/^    | stress-ng-result //p' "$1")
	for name in $plan; do
		line=$(awk -v n="$name" '$1 == n' <<< "$results" | head -n 1)
		if [ -z "$line" ]; then
			echo "$name fail 0 no result line from the guest (it ended before this stressor, or the line was garbled)"
			continue
		fi
		read -r _ v s reason <<< "$line"
		case $s in ''|*[!0-9]*) s=0 ;; esac
		case $v in pass|fail|skip) ;; *) reason="unknown verdict '$v' ($reason)" v=fail ;; esac
		echo "$name $v $s $reason"
	done
}

# Memory offlining's page dumps are no splats here: tests/vm/host.sh's
# guest_splats --blank-offline blanks them for the scan and says how many
# (offline_note).

# --verdicts GUEST_OUT: the stressor verdicts of a recorded guest output
# alone (nothing built or booted; tests/vm/stress_ng_parse_test.sh); exit 1
# when one is a fail.
if [ "$1" = --verdicts ]; then
	if [ $# -ne 2 ] || [ ! -f "$2" ]; then usage; fi
	stressor_verdicts "$2" | awk '{print} $2 == "fail" {f = 1} END {exit f}'
	exit
fi
# --splats GUEST_OUT CONSOLE: the kernel-log scan of a recorded guest output
# and console alone (the same test); exit 1 when it fails.
if [ "$1" = --splats ]; then
	if [ $# -ne 3 ]; then usage; fi
	TEST_NAME=stress-ng-splats
	# shellcheck source=tests/lib/assert.sh
	. "$top/tests/lib/assert.sh"
	# shellcheck source=tests/vm/host.sh
	. "$top/tests/vm/host.sh"
	guest_splats "$2" "$3" --blank-offline
	[ -z "$offline_note" ] || echo "offline: $offline_note"
	test_summary
	exit
fi

build=$1
shift
secs=20
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) [ $# -ge 2 ] || usage; secs=$2; shift 2 ;;
	*) usage ;;
	esac
done
case $secs in ''|*[!0-9]*|0) echo "ERROR: stress-ng: --seconds wants a positive integer (got '$secs')" >&2; exit 2 ;; esac

# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
bid_check "$build"
krel=$(bid_get "$build" KERNELRELEASE)
kdeb=$(bid_get "$build" IMAGE_DEB)
ddeb=$(bid_get "$build" MMBATCHD_DEB)
[ -f "$kdeb" ] || bid_die "build identity $build: IMAGE_DEB $kdeb does not exist"
[ -f "$ddeb" ] || bid_die "build identity $build: MMBATCHD_DEB $ddeb does not exist"

# The verdict lines go to the original stdout (fd 3); the rest to stderr.
exec 3>&1 1>&2
tag=stress-ng-$krel
TEST_NAME=$tag
# shellcheck source=tests/lib/assert.sh
. "$top/tests/lib/assert.sh"
# shellcheck source=tests/vm/host.sh
. "$top/tests/vm/host.sh"
peer=$out/peer
logs=$peer/$tag
mkdir -p "$peer"
rm -rf "$logs"
mkdir -p "$logs"
report=$peer/$tag.txt
: > "$report"
verdicts=0
# verdict NAME VERDICT SECONDS REASON: one line on stdout and in the report.
verdict() {
	printf 'stress-ng %s %s %s %s %s\n' "$1" "$krel" "$2" "$3" "$4" | tee -a "$report" >&3
	verdicts=$((verdicts + 1))
}
echo "$tag: build $build"

rootfs=$peer/$tag.rootfs
if ! step rootfs "$top/tools/vmtest/mkrootfs.sh" -o "$rootfs" --apt stress-ng "$ddeb" "$kdeb"; then
	fail "rootfs (dpkg -i ${ddeb##*/} ${kdeb##*/} stress-ng) failed (tools/vmtest/mkrootfs.sh)"
	verdict boot fail 0 "the rootfs could not be built (tools/vmtest/mkrootfs.sh --apt stress-ng)"
	exit 1
fi
expect_eq "kernel release the rootfs exports" "$krel" "$(cat "$rootfs/kernelrelease")"
expect_match "stress-ng installed in the rootfs" '^stress-ng [^ ]+ install ok installed$' "@$rootfs/packages.txt"

timeout=${SNG_TIMEOUT:-$((900 + 9 * (secs + 60)))}
guest_env=
# The guest's sh reads these words (vmtest joins the command's words).
# shellcheck disable=SC2089 # the quotes are for the guest's sh
[ -z "${SNG_ONLY:-}" ] || guest_env="SNG_ONLY='$SNG_ONLY'"
echo "$tag: booting (cpus ${SNG_CPUS:-4}, 2 nodes, ${SNG_MEM:-3072} MiB, ${secs} s per stressor, timeout ${timeout} s${guest_env:+; $guest_env})"
rc=0 t0=$SECONDS
# log_buf_len=8M: memhotplug's failed offline attempts dump several lines
# for each of hundreds of pages a run, which filled the kernel's default log
# buffer (measured: docs/results/2026-12-05-peer-stress-ng.md); the log the
# guest dumped then no longer began at boot, and the scan cannot vouch for
# what was lost (guest_splats).
# shellcheck disable=SC2090 # guest_env's quotes are for the guest's sh, not this one
nice -n "${SNG_NICE:-10}" "$top/tools/vmtest/vmtest" boot "$rootfs/vmlinuz" --rootfs "$rootfs/rootfs.img" \
	--initramfs "$rootfs/initrd.img" --cpus "${SNG_CPUS:-4}" --nodes 2 --mem "${SNG_MEM:-3072}" \
	--timeout "$timeout" --append log_buf_len=8M --log "$peer/$tag.console" \
	--add "$top/tests/vm/lib.sh" --add "$top/tests/vm/stress_ng_guest.sh" \
	-- ${guest_env:+"$guest_env"} sh stress_ng_guest.sh "$krel" "$secs" > "$peer/$tag.out" || rc=$?
t_boot=$((SECONDS - t0))
echo "$tag: the boot took $t_boot s (vmtest exit $rc)"
guest_results "$peer/$tag.out"
f0=$test_failures
guest_splats "$peer/$tag.out" "$peer/$tag.console" --blank-offline
splats=$((test_failures - f0))
expect_match "the guest's checks ran to their end" '^summary: [0-9]+ ok, [0-9]+ failed, [0-9]+ not live$' "@$peer/$tag.out"
expect_status "vmtest boot (the guest command's exit status; console $peer/$tag.console)" 0 "$rc"

# Each stressor's stress-ng log and YAML, as the guest printed them.
sed -n 's/^    | \([a-z0-9-]*\)\.\(log\|out\|yaml\): \(.*\)$/\1.\2\t\3/p' "$peer/$tag.out" |
	while IFS=$'\t' read -r file text; do printf '%s\n' "$text" >> "$logs/$file"; done

# The verdicts: the run, then each planned stressor's.
case $rc in
0) verdict boot pass "$t_boot" "vmtest exit 0" ;;
124) verdict boot fail "$t_boot" "the guest did not finish within $timeout s (vmtest exit 124)" ;;
*) verdict boot fail "$t_boot" "vmtest exit $rc (a guest check failed or the guest died; console $peer/$tag.console)" ;;
esac
if [ "$splats" -eq 0 ]; then
	verdict kernel-log pass 0 "no kernel splat in the kernel log or the console${offline_note:+ ($offline_note)}"
else
	verdict kernel-log fail 0 "$splats failed splat check(s) (kernel splats or an unreadable kernel log; $peer/$tag.dmesg, the console)${offline_note:+; $offline_note}"
fi
while read -r name v s reason; do
	verdict "$name" "$v" "$s" "$reason"
	# (a stressor's FAIL line was counted with the guest's lines; a missing one is not there)
	case $reason in "no result line"*|"no stress-ng-plan line"*) fail "stress-ng $name: $reason" ;; esac
done < <(stressor_verdicts "$peer/$tag.out")
echo "$tag: $verdicts verdict lines in $report"
test_summary || true
grep -q '^stress-ng [^ ]* [^ ]* fail ' "$report" && exit 1
[ "$test_failures" -eq 0 ] || exit 1
exit 0
