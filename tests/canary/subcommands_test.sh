#!/bin/bash
# mmbatchctl's daemon-side commands (status, plan, verify, rollback, smoke)
# against a fake /proc+/sys tree with the real mmbatchd, a stub systemctl
# (is-active: whether the daemon this test started still runs; stop: SIGTERM
# to it, then wait, as systemd does) and a stub mmbatch-smoke. Each command
# prints what it should and has a negative control: plan on an invalid
# profile, verify on drift, rollback refused under rollback: never, status
# when the daemon's state cannot be read, smoke of a kernel that is not
# installed; bad input is one line, exit 2, nothing changed.
# Reads: MMBATCHD (default out/bin/mmbatchd: make daemon), MMBATCHCTL
#   (default src/mmbatchctl/mmbatchctl), OUT, TEST_TMPDIR.
# shellcheck disable=SC2154 # VAR_out is set by capture
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TOP MMBATCHD=${MMBATCHD:-${OUT:-$TOP/out}/bin/mmbatchd}
[ -x "$MMBATCHD" ] || { echo "ERROR: subcommands_test: no mmbatchd at $MMBATCHD (make daemon)" >&2; exit 2; }
# setup's scratch dir is under $OUT/test-tmp (mmbatchd refuses profiles
# below /tmp or any group/world-writable directory).
# shellcheck source=../mmbatchd/lib.sh
. "$TOP/tests/mmbatchd/lib.sh"
CTL=${MMBATCHCTL:-$TOP/src/mmbatchctl/mmbatchctl}
setup
K1=6.12.117-mmbatch1-cloud K2=6.12.118-mmbatch2-cloud
BIN=$T/bin STUB=$T/stub
mkdir -p "$BIN" "$STUB" "$T/boot"
: > "$T/boot/vmlinuz-$K2"

# The stub systemctl knows one unit, the daemon whose pid is in $STUB/pid.
cat > "$BIN/systemctl" <<EOF
#!/bin/sh
echo "\$*" >> "$STUB/calls"
pid=\$(cat "$STUB/pid" 2>/dev/null || true)
# Running: its State line read, and not a zombie (killed, not yet reaped by
# the test: stopped too). One read: a process that exits and is reaped
# between a check and a read must not count as running (it did, under load).
running() {
	[ -n "\$pid" ] || return 1
	st=\$(sed -n 's/^State:[[:space:]]*//p' "/proc/\$pid/status" 2>/dev/null) || return 1
	[ -n "\$st" ] && [ "\${st#Z}" = "\$st" ]
}
case "\$1 \$2" in
"is-active mmbatchd.service") if running; then echo active; exit 0; fi; echo inactive; exit 3 ;;
"stop mmbatchd.service")
	running || exit 0
	kill -TERM "\$pid"
	i=0
	while running && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
	! running ;;
*) echo "stub systemctl: unexpected '\$*'" >&2; exit 1 ;;
esac
EOF
# The stub mmbatch-smoke records how it was run and gives exit 1 (a regression).
cat > "$BIN/mmbatch-smoke" <<EOF
#!/bin/sh
echo "args=\$# state=\$MMBATCH_STATE_DIR kver=\$SMOKE_KVER pending=\$([ -e "\$MMBATCH_STATE_DIR/pending/\$SMOKE_KVER" ] && echo yes || echo no)" > "$STUB/smoke"
exit 1
EOF
chmod 0755 "$BIN/systemctl" "$BIN/mmbatch-smoke"

fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
cat > "$PROFILES/p.yaml" <<'P'
sysctl:
  vm.swappiness: 30
  vm.dirty_ratio: 15
  vm.nr_overcommit_hugepages: {value: 1, optional: true}
P
printf 'sysctl:\n  vm.swappiness: 30\nrollback: never\n' > "$PROFILES/never.yaml"
printf 'sysctl:\n  vm.swapiness: 30\n' > "$PROFILES/typo.yaml"
chmod 0644 "$PROFILES"/*.yaml

# ctl NAME ARGS...: mmbatchctl with every path in the scratch tree; output
# in $T/NAME.out, exit status in RC.
ctl() {
	local name=$1
	shift
	set +e
	PATH=$BIN:$PATH MMBATCH_STATE_DIR=$STATE MMBATCH_ROOT=$ROOT MMBATCH_BOOT_DIR=$T/boot \
		MMBATCHCTL_PROFILE=$PROFILES/p.yaml MMBATCHCTL_SMOKE=$BIN/mmbatch-smoke MMBATCHCTL_KVER=$K1 \
		"$CTL" "$@" > "$T/$name.out" 2>&1
	RC=$?
	set -e
}
out() { cat "$T/$1.out"; }
# flat NAME: the output on one line (for expect_match across lines).
flat() { paste -sd' ' "$T/$1.out"; }
present() { [ -e "$1" ] && echo present || echo absent; }
knobs() { echo "$(knob proc/sys/vm/swappiness) $(knob proc/sys/vm/dirty_ratio)"; }
calls() { paste -sd';' "$STUB/calls" 2>/dev/null || true; }
snapshot() { { tree_sum "$ROOT"; find "$STATE" -printf '%p %s\n' | sort; } | sha256sum; }

echo "== plan [PROFILE]: mmbatchd --plan, default /etc/mmbatch/mmbatchd.yaml (MMBATCHCTL_PROFILE)"
before=$(tree_sum "$ROOT")
plan="'vm.swappiness' (60) -> (30)
'vm.dirty_ratio' (20) -> (15)
'vm.nr_overcommit_hugepages' absent on this kernel (optional), skipped"
ctl plan plan
expect_eq "plan: exit" 0 "$RC"
expect_eq "plan (default profile): output" "$plan" "$(out plan)"
expect_eq "plan: the same as mmbatchd --plan" "$("$MMBATCHD" --plan "$PROFILES/p.yaml" --root "$ROOT" 2>&1)" "$(out plan)"
ctl plan2 plan "$PROFILES/p.yaml"
expect_eq "plan PROFILE: exit and output" "0 $plan" "$RC $(out plan2)"
ctl plan3 plan "$PROFILES/typo.yaml"
expect_match "negative control: plan on an invalid profile: exit 2 and mmbatchd's FILE:LINE:COL error" \
	"^2 $PROFILES/typo.yaml:2:3: .*vm.swapiness" "$RC $(flat plan3)"
expect_eq "plan: nothing written" "$before" "$(tree_sum "$ROOT")"

echo "== verify [PROFILE]: mmbatchd --verify, exit 1 on drift"
ctl verify1 verify
expect_eq "negative control: verify before the profile is applied: exit 1 (drift)" 1 "$RC"
expect_match "verify: lists the drifted keys" "drifted: 'vm.swappiness' live \(60\) profile \(30\).*drifted: 'vm.dirty_ratio' live \(20\) profile \(15\)" "$(flat verify1)"
capture rc "$MMBATCHD" --once "$PROFILES/p.yaml" --root "$ROOT" --state-dir "$STATE"
expect_ok "mmbatchd --once" "$rc" "$rc_out"
ctl verify2 verify "$PROFILES/p.yaml"
expect_eq "verify after mmbatchd --once: exit 0" 0 "$RC"

echo "== rollback without the service: mmbatchd --rollback"
ctl rb1 rollback
expect_eq "rollback (service inactive): exit" 0 "$RC"
expect_match "rollback (service inactive): says which" "mmbatchd.service is not active \(inactive\): restoring the journal with mmbatchd --rollback" "$(flat rb1)"
expect_eq "rollback (service inactive): values back" "60 20" "$(knobs)"
expect_absent "rollback (service inactive): journal" "$STATE/mmbatchd/journal"
expect_eq "rollback (service inactive): no systemctl stop" "is-active mmbatchd.service" "$(calls)"

echo "== status without a daemon"
ctl st0 status
expect_eq "status (never ran): exit" 0 "$RC"
expect_eq "status (never ran)" "service:  mmbatchd.service inactive
daemon:   inactive (no $STATE/status.json: mmbatchd has not run)
canary:   none armed" "$(out st0)"

echo "== status and rollback with mmbatchd.service active"
start_daemon "$PROFILES/p.yaml"
echo "$DAEMON_PID" > "$STUB/pid"
expect_eq "daemon applied the profile" "30 15" "$(knobs)"
ctl st1 status
expect_eq "status (running): exit" 0 "$RC"
expect_eq "status (running)" "service:  mmbatchd.service active
daemon:   running, pid $DAEMON_PID, profile $PROFILES/p.yaml (rollback: on_stop)
applied:  2 key(s), 1 optional absent on this kernel
drains:   0 (exits seen 0, qualifying 0, failures 0), reloads 0
error:    none
canary:   none armed" "$(out st1)"
ctl st2 status --json
expect_eq "status --json: mmbatchd --status as it is" "$("$MMBATCHD" --status --state-dir "$STATE")" "$(out st2)"
expect_eq "status --json: JSON (jq)" "running 2" "$(jq -r '"\(.state) \(.applied | length)"' "$T/st2.out")"
mkdir -p "$STATE/canary"
printf 'status=armed\nkernel=%s\n' "$K2" > "$STATE/canary/state"
ctl st3 status
expect_eq "status: the canary's line" "canary:   $K2 (armed; mmbatchctl canary --status says why)" "$(out st3 | tail -n 1)"
rm -rf "$STATE/canary"
: > "$STUB/calls"
ctl rb2 rollback
expect_eq "rollback (service active): exit" 0 "$RC"
expect_match "rollback (service active): says which" "mmbatchd.service is active: stopping it \(systemctl stop mmbatchd\).*rolled back: mmbatchd.service is stopped" "$(flat rb2)"
expect_eq "rollback (service active): systemctl calls" "is-active mmbatchd.service;stop mmbatchd.service" "$(calls)"
expect_eq "rollback (service active): values back" "60 20" "$(knobs)"
expect_absent "rollback (service active): journal" "$STATE/mmbatchd/journal"
DAEMON_RC=0
wait "$DAEMON_PID" || DAEMON_RC=$?
DAEMON_PID=
expect_eq "rollback (service active): the daemon's exit" 0 "$DAEMON_RC"

# The checks above must catch an mmbatchctl that ignores the service and
# always runs mmbatchd --rollback: the running daemon holds the state dir's
# lock, so nothing is restored.
echo "== negative control: a broken mmbatchctl whose rollback ignores mmbatchd.service"
# shellcheck disable=SC2016 # the $ are mmbatchctl's
sed 's/^\tif \[ "\$active" = active \]; then$/\tif false; then/' "$CTL" > "$T/broken-mmbatchctl"
chmod 0755 "$T/broken-mmbatchctl"
if cmp -s "$CTL" "$T/broken-mmbatchctl"; then
	fail "negative control: the sed did not break mmbatchctl (its rollback code changed?)"
else
	start_daemon "$PROFILES/p.yaml"
	echo "$DAEMON_PID" > "$STUB/pid"
	saved_ctl=$CTL CTL=$T/broken-mmbatchctl
	ctl rbx rollback
	CTL=$saved_ctl
	if [ "$RC" != 0 ] && [ "$(knobs)" = "30 15" ]; then
		pass "negative control: the broken rollback fails the checks above (exit $RC, values still $(knobs): $(out rbx | tail -n 1))"
	else
		fail "negative control: the broken rollback passed: exit $RC, values $(knobs)"
	fi
	stop_daemon
fi

echo "== negative control: rollback refused while the daemon runs 'rollback: never'"
start_daemon "$PROFILES/never.yaml"
echo "$DAEMON_PID" > "$STUB/pid"
: > "$STUB/calls"
ctl rb3 rollback
expect_match "rollback under rollback: never: exit 2 and why" "^2 .*rollback: never.*nothing done" "$RC $(flat rb3)"
expect_eq "rollback under rollback: never: no systemctl stop" "is-active mmbatchd.service" "$(calls)"
expect_eq "rollback under rollback: never: the daemon still runs" yes "$(kill -0 "$DAEMON_PID" 2>/dev/null && echo yes || echo no)"
stop_daemon
fake_knob proc/sys/vm/swappiness 60

echo "== negative control: status when mmbatchd cannot read its state"
mv "$STATE/status.json" "$T/status.json.saved"
mkdir "$STATE/status.json"
ctl st4 status
expect_match "status with an unreadable status.json: mmbatchd's exit 1 and its error" "^1 mmbatchd: cannot read $STATE/status.json" "$RC $(flat st4)"
rmdir "$STATE/status.json"

echo "== smoke [--now] [KVER]: the pending mark, mmbatch-smoke at once"
ctl sm1 smoke
expect_eq "smoke (running kernel): exit" 0 "$RC"
expect_exists "smoke (running kernel): pending mark" "$STATE/pending/$K1"
expect_match "smoke (running kernel): says when" "queued: the smoke run of $K1 .* runs at the next boot .*or now with mmbatchctl smoke --now" "$(flat sm1)"
ctl sm2 smoke "$K2"
expect_eq "smoke KVER (installed): exit and mark" "0 present" "$RC $(present "$STATE/pending/$K2")"
expect_match "smoke KVER: at its next boot" "runs at its next boot" "$(flat sm2)"
rm -f "$STATE/pending/$K1"
ctl sm3 smoke --now
expect_eq "smoke --now: mmbatch-smoke's exit status" 1 "$RC"
expect_eq "smoke --now: mmbatch-smoke ran with no arguments, on the state dir and kernel, mark in place" \
	"args=0 state=$STATE kver=$K1 pending=yes" "$(cat "$STUB/smoke" 2>/dev/null)"
snap=$(snapshot)
ctl sm4 smoke 7.0.0-absent
expect_match "negative control: smoke of a kernel not installed: exit 2 and why" \
	"^2 mmbatchctl: smoke: ERROR: kernel 7.0.0-absent is not installed \(.*/boot/vmlinuz-7.0.0-absent missing\)" "$RC $(flat sm4)"
rm -f "$STUB/smoke"
ctl sm5 smoke --now "$K2"
expect_match "smoke --now of another kernel: exit 2 and why" "^2 .*--now runs the smoke on the running kernel \($K1\)" "$RC $(flat sm5)"
expect_absent "smoke --now of another kernel: mmbatch-smoke not run" "$STUB/smoke"
expect_eq "smoke refusals: nothing written" "$snap" "$(snapshot)"

echo "== bad input: one line, exit 2, nothing changed"
while IFS='|' read -r args msg; do
	snap=$(snapshot)
	: > "$STUB/calls"
	# shellcheck disable=SC2086 # args is a word list
	ctl bad $args
	expect_eq "'mmbatchctl $args': exit 2, one line" "2 1" "$RC $(wc -l < "$T/bad.out")"
	expect_match "'mmbatchctl $args': message" "$msg" "$(flat bad)"
	expect_eq "'mmbatchctl $args': nothing changed, systemctl not run" "$snap " "$(snapshot) $(calls)"
done <<EOF
frob|^mmbatchctl: unknown command 'frob'; see mmbatchctl --help$
--frob|^mmbatchctl: unknown option '--frob'
status extra|^mmbatchctl: status: unexpected argument 'extra'
status --now|^mmbatchctl: status: unknown option '--now'
rollback now|^mmbatchctl: rollback: unexpected argument 'now'
plan a.yaml b.yaml|^mmbatchctl: plan: one argument only \(got 'a.yaml' and 'b.yaml'\)
verify --frob|^mmbatchctl: verify: unknown option '--frob'
smoke $K1 $K2|^mmbatchctl: smoke: one argument only
smoke ../etc|^mmbatchctl: smoke: ERROR: bad kernel release '../etc'
--version extra|^mmbatchctl: --version takes no argument
EOF
ctl help status --help
expect_eq "status --help: the usage on stdout, exit 0" "0 usage: mmbatchctl status [--json]" "$RC $(head -n 1 "$T/help.out")"
test_summary
