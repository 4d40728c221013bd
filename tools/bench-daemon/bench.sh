#!/bin/bash
# mmbatchd vs TuneD 2.20, side by side in one run, on the same 20 sysctls
# whose target values are the host's current values (generated from the live
# values, so the host does not change; checked again at the end). Prints, per
# daemon, the median of BENCH_RUNS runs:
#   peak RSS       VmHWM of the daemon process once it has applied;
#   exec-to-applied from just before exec until mmbatchd sends READY=1
#                  (sd_notify, as systemd would see it) / TuneD logs "static
#                  tuning from profile ... applied"; also mmbatchd --once
#                  from exec to exit, and --check (parse and validate only,
#                  no journal: shows what the journal's fsync costs);
#   idle wake-ups  context switches (voluntary + involuntary, all threads)
#                  over BENCH_IDLE_S seconds after applying;
# then a table with the ratios and the goals (RSS <= 1/10, exec-to-applied
# <= 1/20). A benchmark: it asserts nothing, but exits non-zero when a
# daemon could not be measured or a host value changed.
#
# TuneD is run as `tuned --no-dbus --no-socket --profile NAME` with a
# generated profile in /etc/tuned/ (TuneD only loads profiles from there and
# /usr/lib/tuned); /etc/tuned/{tuned-main.conf,active_profile,profile_mode,
# post_loaded_profile} are saved and restored around the run, and
# tuned-main.conf gets reapply_sysctl = 0 so TuneD does not re-run the host's
# sysctl.d files (which could change the host). That makes TuneD a little
# faster, not slower.
#
# Reads: MMBATCHD (daemon binary, required), BENCH_RUNS (default 5),
#        BENCH_IDLE_S (default 10), BENCH_EXEC_WAIT (helper; default built
#        from tools/bench-daemon/exec-wait.c into $OUT/bin), OUT, CC.
set -eu

usage() { echo "usage: MMBATCHD=BIN bench.sh   (as root; needs tuned)" >&2; exit 2; }
[ -n "${MMBATCHD:-}" ] && [ -x "$MMBATCHD" ] || usage
[ "$(id -u)" = 0 ] || { echo "ERROR: bench-daemon: needs root (both daemons write /proc/sys)" >&2; exit 1; }
command -v tuned > /dev/null || { echo "ERROR: bench-daemon: tuned not installed (make deps-daemon-bench)" >&2; exit 1; }
runs=${BENCH_RUNS:-5}
idle_s=${BENCH_IDLE_S:-10}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/../../out}

# Not under /tmp: mmbatchd refuses a profile in a group/world-writable
# directory (or one below such a directory).
# shellcheck disable=SC2174 # -m is for bench-tmp alone: $out (the build output dir, usually there already) keeps the default mode
mkdir -p -m 0755 "$out/bench-tmp"
tmp=$(mktemp -d "$out/bench-tmp/bench-daemon.XXXXXX")
chmod 0755 "$tmp"
tuned_name=mmbatch-bench-$$
tuned_dir=/etc/tuned/$tuned_name
tuned_saved=$tmp/etc-tuned
mkdir -p "$tuned_saved"
daemon_pids=()
cleanup() {
	local p
	for p in "${daemon_pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${daemon_pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.05; done; done
	rm -rf "$tuned_dir"
	for f in tuned-main.conf active_profile profile_mode post_loaded_profile; do
		if [ -e "$tuned_saved/$f" ]; then cp -p "$tuned_saved/$f" "/etc/tuned/$f"; elif [ -e "$tuned_saved/$f.absent" ]; then rm -f "/etc/tuned/$f"; fi
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# The measuring helper, built here so the target needs no other rule.
exec_wait=${BENCH_EXEC_WAIT:-$out/bin/bench-exec-wait}
if [ ! -x "$exec_wait" ] || [ "$here/exec-wait.c" -nt "$exec_wait" ]; then
	mkdir -p "$(dirname "$exec_wait")"
	${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -o "$exec_wait" "$here/exec-wait.c"
fi

# --- the 20 keys: single-value vm.*/kernel.* sysctls that only re-set what
# they hold (no dirty_ratio/dirty_bytes pairs, no min_free_kbytes, nothing
# the kernel adjusts by itself).
candidates="vm.swappiness vm.vfs_cache_pressure vm.dirty_expire_centisecs vm.dirty_writeback_centisecs
vm.dirtytime_expire_seconds vm.overcommit_memory vm.overcommit_ratio vm.max_map_count vm.stat_interval
vm.watermark_scale_factor vm.watermark_boost_factor vm.zone_reclaim_mode vm.compaction_proactiveness
vm.extfrag_threshold vm.laptop_mode vm.oom_kill_allocating_task vm.oom_dump_tasks vm.admin_reserve_kbytes
vm.user_reserve_kbytes vm.panic_on_oom kernel.sched_autogroup_enabled kernel.shmmni kernel.msgmax
kernel.pid_max"
keys=() values=()
for k in $candidates; do
	[ ${#keys[@]} -lt 20 ] || break
	f=/proc/sys/$(echo "$k" | tr . /)
	[ -r "$f" ] && [ -w "$f" ] || continue
	v=$(cat "$f")
	case "$v" in ''|*[!0-9]*) continue ;; esac
	keys+=("$k") values+=("$v")
done
[ ${#keys[@]} -eq 20 ] || { echo "ERROR: bench-daemon: found only ${#keys[@]} usable sysctls, need 20" >&2; exit 1; }
snapshot() { local k; for k in "${keys[@]}"; do printf '%s=%s\n' "$k" "$(cat "/proc/sys/$(echo "$k" | tr . /)")"; done; }
snapshot > "$tmp/host.before"

mkdir -p "$tmp/profiles"
{
	echo "# bench-daemon: 20 sysctls at their current host values"
	echo "sysctl:"
	for i in "${!keys[@]}"; do echo "  ${keys[$i]}: \"${values[$i]}\""; done
	echo "drain:"
	echo "  on_exit: false"
	echo "rollback: on_stop"
} > "$tmp/profiles/bench.yaml"
chmod 0644 "$tmp/profiles/bench.yaml"

for f in tuned-main.conf active_profile profile_mode post_loaded_profile; do
	if [ -e "/etc/tuned/$f" ]; then cp -p "/etc/tuned/$f" "$tuned_saved/$f"; else touch "$tuned_saved/$f.absent"; fi
done
mkdir -p "$tuned_dir"
{
	echo "[main]"
	echo "summary=bench-daemon: 20 sysctls at their current host values"
	echo "[sysctl]"
	for i in "${!keys[@]}"; do echo "${keys[$i]}=${values[$i]}"; done
} > "$tuned_dir/tuned.conf"
if [ -e /etc/tuned/tuned-main.conf ]; then
	sed -i 's/^[[:space:]]*reapply_sysctl[[:space:]]*=.*/reapply_sysctl = 0/' /etc/tuned/tuned-main.conf
	grep -q '^reapply_sysctl = 0' /etc/tuned/tuned-main.conf || echo 'reapply_sysctl = 0' >> /etc/tuned/tuned-main.conf
fi

# Sum of context switches of every thread of $1.
ctxt_switches() {
	local n=0 f v
	for f in /proc/"$1"/task/*/status; do
		v=$(awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { s += $2 } END { print s + 0 }' "$f" 2>/dev/null || echo 0)
		n=$((n + v))
	done
	echo "$n"
}
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
# Proportional (shared pages split among their users) and private memory,
# as the RSS figure counts every shared-library page in full.
pss_kb() { awk '/^Pss:/ { print $2 }' "/proc/$1/smaps_rollup"; }
uss_kb() { awk '/^Private_(Clean|Dirty):/ { s += $2 } END { print s + 0 }' "/proc/$1/smaps_rollup"; }
stop_pid() {
	kill -TERM "$1" 2>/dev/null || true
	local i
	for i in $(seq 600); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
	echo "ERROR: bench-daemon: pid $1 did not stop" >&2; kill -KILL "$1" 2>/dev/null || true
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "bench-daemon: $runs run(s) each, ${idle_s} s idle window, keys: ${keys[*]}"
for f in mb.ready mb.once mb.check mb.hwm mb.pss mb.uss mb.idle td.ready td.hwm td.pss td.uss td.idle; do : > "$tmp/$f"; done
for run in $(seq "$runs"); do
	# mmbatchd as the service runs it, minus systemd: foreground, READY=1.
	state=$tmp/state.$run
	mkdir -m 0700 "$state"
	pid=
	read -r pid ms _ < <(env -u INVOCATION_ID "$exec_wait" --ready -- "$MMBATCHD" --profile "$tmp/profiles/bench.yaml" \
		--state-dir "$state" --foreground 2>> "$tmp/mmbatchd.log")
	[ -n "${pid:-}" ] || { echo "ERROR: bench-daemon: mmbatchd did not get ready; log:" >&2; cat "$tmp/mmbatchd.log" >&2; exit 1; }
	daemon_pids+=("$pid")
	echo "$ms" >> "$tmp/mb.ready"
	sleep 0.5
	hwm_kb "$pid" >> "$tmp/mb.hwm"; pss_kb "$pid" >> "$tmp/mb.pss"; uss_kb "$pid" >> "$tmp/mb.uss"
	if [ "$run" = 1 ]; then
		c0=$(ctxt_switches "$pid"); sleep "$idle_s"; c1=$(ctxt_switches "$pid")
		echo $((c1 - c0)) >> "$tmp/mb.idle"
	fi
	stop_pid "$pid"

	# mmbatchd --once: apply and exit (journal left behind; rolled back below).
	once_state=$tmp/once.$run
	mkdir -m 0700 "$once_state"
	code=
	read -r _ ms code < <(env -u INVOCATION_ID "$exec_wait" --exit -- "$MMBATCHD" --once "$tmp/profiles/bench.yaml" \
		--state-dir "$once_state" 2>> "$tmp/mmbatchd.log")
	[ "${code:-x}" = 0 ] || { echo "ERROR: bench-daemon: mmbatchd --once exited $code; log:" >&2; cat "$tmp/mmbatchd.log" >&2; exit 1; }
	echo "$ms" >> "$tmp/mb.once"
	env -u INVOCATION_ID "$MMBATCHD" --rollback --state-dir "$once_state" 2>> "$tmp/mmbatchd.log"
	code=
	read -r _ ms code < <(env -u INVOCATION_ID "$exec_wait" --exit -- "$MMBATCHD" --check "$tmp/profiles/bench.yaml" \
		2>> "$tmp/mmbatchd.log")
	[ "${code:-x}" = 0 ] || { echo "ERROR: bench-daemon: mmbatchd --check exited $code; log:" >&2; cat "$tmp/mmbatchd.log" >&2; exit 1; }
	echo "$ms" >> "$tmp/mb.check"

	# TuneD.
	tlog=$tmp/tuned.$run.log
	pid=
	read -r pid ms _ < <("$exec_wait" --log "$tlog" "static tuning from profile '$tuned_name' applied" -- \
		tuned --no-dbus --no-socket --pid "$tmp/tuned.pid" --log "$tlog" --profile "$tuned_name")
	[ -n "${pid:-}" ] || { echo "ERROR: bench-daemon: TuneD did not apply; log:" >&2; cat "$tlog" >&2 || true; exit 1; }
	daemon_pids+=("$pid")
	echo "$ms" >> "$tmp/td.ready"
	sleep 0.5
	hwm_kb "$pid" >> "$tmp/td.hwm"; pss_kb "$pid" >> "$tmp/td.pss"; uss_kb "$pid" >> "$tmp/td.uss"
	if [ "$run" = 1 ]; then
		c0=$(ctxt_switches "$pid"); sleep "$idle_s"; c1=$(ctxt_switches "$pid")
		echo $((c1 - c0)) >> "$tmp/td.idle"
	fi
	stop_pid "$pid"
	echo "  run $run: mmbatchd ready $(tail -n1 "$tmp/mb.ready") ms, --once $(tail -n1 "$tmp/mb.once") ms," \
	     "VmHWM $(tail -n1 "$tmp/mb.hwm") kB; TuneD applied $(tail -n1 "$tmp/td.ready") ms, VmHWM $(tail -n1 "$tmp/td.hwm") kB"
done

snapshot > "$tmp/host.after"
if ! cmp -s "$tmp/host.before" "$tmp/host.after"; then
	echo "ERROR: bench-daemon: host values changed:" >&2
	diff "$tmp/host.before" "$tmp/host.after" >&2 || true
	exit 1
fi

mb_hwm=$(median < "$tmp/mb.hwm") td_hwm=$(median < "$tmp/td.hwm")
mb_pss=$(median < "$tmp/mb.pss") td_pss=$(median < "$tmp/td.pss")
mb_uss=$(median < "$tmp/mb.uss") td_uss=$(median < "$tmp/td.uss")
mb_ready=$(median < "$tmp/mb.ready") mb_once=$(median < "$tmp/mb.once") mb_check=$(median < "$tmp/mb.check") td_ready=$(median < "$tmp/td.ready")
mb_idle=$(cat "$tmp/mb.idle") td_idle=$(cat "$tmp/td.idle")
awk -v mh="$mb_hwm" -v th="$td_hwm" -v mp="$mb_pss" -v tp="$td_pss" -v mu="$mb_uss" -v tu="$td_uss" -v mr="$mb_ready" -v mo="$mb_once" -v mc="$mb_check" -v tr="$td_ready" \
    -v mi="$mb_idle" -v ti="$td_idle" -v idle="$idle_s" -v runs="$runs" 'BEGIN {
	printf "\n%-34s %12s %12s %9s %8s %s\n", "metric (median of " runs " runs)", "mmbatchd", "TuneD 2.20", "ratio", "goal", "met"
	printf "%-34s %12.1f %12.1f %9.3f %8s %s\n", "peak RSS (VmHWM, MiB)", mh / 1024, th / 1024, mh / th, "<= 0.1", (mh / th <= 0.1 ? "yes" : "NO")
	printf "%-34s %12.1f %12.1f %9.3f %8s %s\n", "  PSS after apply (MiB)", mp / 1024, tp / 1024, mp / tp, "-", "-"
	printf "%-34s %12.1f %12.1f %9.3f %8s %s\n", "  private (USS) after apply (MiB)", mu / 1024, tu / 1024, mu / tu, "-", "-"
	printf "%-34s %12.1f %12.1f %9.3f %8s %s\n", "exec-to-applied, daemon (ms)", mr, tr, mr / tr, "<= 0.05", (mr / tr <= 0.05 ? "yes" : "NO")
	printf "%-34s %12.1f %12s %9.3f %8s %s\n", "exec-to-applied, mmbatchd --once", mo, "-", mo / tr, "<= 0.05", (mo / tr <= 0.05 ? "yes" : "NO")
	printf "%-34s %12.1f %12s %9.3f %8s %s\n", "  mmbatchd --check (no journal)", mc, "-", mc / tr, "-", "-"
	printf "%-34s %12d %12d %9s %8s %s\n", "idle wake-ups in " idle " s (ctx sw)", mi, ti, "-", "0", (mi == 0 ? "yes" : "NO")
}'
echo "bench-daemon: host values unchanged (20 keys compared before and after)"
