#!/bin/bash
# fleet_report.py, the rollout's fleet report and gate, on the fixtures of
# tests/rollout/fixtures/report (README.md there): a row per host for every
# outcome, the worst metric and the medians over the hosts from the
# fixtures' numbers, the gate at P=0, 40, 50, a check-mode run, each bad
# input (exit 2, one line, nothing written), the temp files gone. Last, a
# copy of the script with the direction of better=lower inverted fails the
# worst-metric check.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch

REPORT=$TOP/tools/rollout/collection/roles/mmbatch_rollout/files/fleet_report.py
FIX=$TOP/tests/rollout/fixtures/report
INVENTORY=h1,h2,h3,h4,h5,h6
OLD=6.12.57-mmbatch2-guest NEW=6.1.192-mmbatch2-guest
PROFILE='/etc/mmbatch/profiles/guest.conf (guest)'

# fixture NAME DIR: DIR is a fresh copy of fixture NAME (the report is
# written into its directory, never into the fixtures)
fixture() { rm -rf "$2"; cp -r "$FIX/$1" "$2"; }
# edit FILE JQ: FILE rewritten by the jq program JQ
edit() { jq "$2" "$1" >"$1.new" && mv "$1.new" "$1"; }
# run NAME CMD...: RC, $T/NAME.out (stdout), $T/NAME.err (stderr)
run() {
	local name=$1
	shift
	RC=0
	nice "$@" >"$T/$name.out" 2>"$T/$name.err" || RC=$?
}
# listing DIR: the names in DIR, hidden ones too, on one line
listing() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | paste -sd ' '; }
# host JQ: JQ on the fleet report's host entries, one compact line each
host_json() { jq -c ".hosts[] | select(.host == \"$1\") | $2" "$T/fleet/fleet-report.json"; }

step "the script"
if [ -x "$REPORT" ]; then pass "fleet_report.py is executable"; else fail "fleet_report.py is not executable"; fi
expect_eq "its interpreter" '#!/usr/bin/env python3' "$(head -n 1 "$REPORT")"

step "the report: a row per host, every outcome"
fixture fleet "$T/fleet"
run report "$REPORT" --dir "$T/fleet" --inventory-hosts "$INVENTORY"
expect_status "report: exit" 0 "$RC"
expect_lines "report: nothing on stderr" 0 "@$T/report.err"
expect_eq "rows in wave order, in a wave in inventory order" "1 h1|1 h2|1 h3|2 h4|2 h5|- h6" \
	"$(sed -n 's/^| \([-0-9]*\) | \(h[0-9]\) | .*/\1 \2/p' "$T/report.out" | paste -sd '|')"
expect_line "passed: kernel, GRUB default, canary, smoke verdict, worst metric, profile" \
	"| 1 | h1 | passed | rolled to $NEW, canary passed | $OLD → $NEW | $NEW | pass: all units active | verdict: worse: 1 metric beyond 5% | fault/pages_per_s -12.3% (worse) | $PROFILE |" \
	"@$T/report.out"
expect_line "skipped: no kernel after, no canary, no smoke" \
	"| 1 | h2 | skipped | already runs $NEW | $NEW → - | - | - | - | - | $PROFILE |" "@$T/report.out"
expect_line "failed: the default rolled back, the canary's verdict, the failed benchmark" \
	"| 2 | h4 | failed | canary failed: mmbatchd.service failed; rolled back | $OLD → $NEW | $OLD | fail: mmbatchd.service failed | verdict: worse: munmap FAILED | FAILED munmap: child exited 1 | $PROFILE |" \
	"@$T/report.out"
expect_line "unreachable: in wave 2, no record" \
	"| 2 | h5 | unreachable | no record: the host did not finish wave 2 (unreachable, or stopped) | - | - | - | - | - | - |" \
	"@$T/report.out"
expect_match "not reached: in the inventory, in no wave" '^\| - \| h6 \| not-reached \| in no wave: ' "@$T/report.out"
expect_line "the totals" "fleet: 2 passed, 1 skipped, 1 failed, 1 unreachable, 1 not reached" "@$T/report.out"
expect_lacks "no would-roll count outside check mode" "would roll" "@$T/report.out"
expect_eq "stdout is the .md" "$(cat "$T/fleet/fleet-report.md")" "$(cat "$T/report.out")"
expect_eq "the JSON's schema" mmbatch-fleet-report/1 "$(jq -r .schema "$T/fleet/fleet-report.json")"
expect_eq "the JSON's totals" '{"passed":2,"skipped":1,"failed":1,"would-roll":0,"unreachable":1,"not-reached":1}' \
	"$(jq -c .totals "$T/fleet/fleet-report.json")"
expect_eq "the JSON's waves (not reached: null)" "1 1 1 2 2 null" \
	"$(jq -r '[.hosts[].wave] | map(tostring) | join(" ")' "$T/fleet/fleet-report.json")"

step "a record of a host that failed before it was read"
# what the role writes when the wave stopped on the host before it read it
fixture fleet "$T/early"
edit "$T/early/hosts/h4.json" '.reason = "the wave did not finish on this host"
	| .kernel_before = null | .kernel_after = null | .default_before = null | .default_after = null
	| .canary = {status_rc: null, status: "", verdict: "", verdict_reason: ""}
	| .smoke |= map_values(null) | .profile = "unknown: the host was not read"'
run early "$REPORT" --dir "$T/early"
expect_status "its report: exit" 0 "$RC"
expect_line "its row" "| 2 | h4 | failed | the wave did not finish on this host | - | - | - | - | - | unknown: the host was not read |" \
	"@$T/early.out"

step "the smoke comparison per host"
# h1: pages/s 1000 -> 877, sys_s 2.0 -> 2.1, the IPIs (none) 10 -> 12
expect_eq "h1: the change of each metric" "-12.3 5 20" "$(host_json h1 '[.metrics[].change_pct] | map(tostring) | join(" ")' | tr -d '"')"
expect_eq "h1: the worst metric" '{"benchmark":"fault","metric":"pages_per_s","change_pct":-12.3}' "$(host_json h1 .worst)"
# h3: pages/s +4.1%, sys_s 2.0 -> 2.4 is +20% of a lower-is-better metric
expect_contains "h3: sys_s +20% is worse than pages/s +4.1%" "| fault/sys_s +20.0% (worse) |" "@$T/report.out"
expect_eq "h3: goodness is the change with the direction applied" "4.1 -20" \
	"$(host_json h3 '[.metrics[] | select(.better != "none") | .goodness] | map(tostring) | join(" ")' | tr -d '"')"
expect_eq "h3: integrity, skipped in the baseline, is not compared" '["fault"]' "$(host_json h3 '[.metrics[].benchmark] | unique')"
expect_eq "a metric of better none is never judged" "[null]" \
	"$(jq -c '[.hosts[].metrics[] | select(.better == "none") | .goodness] | unique' "$T/fleet/fleet-report.json")"
# h4: the IPIs from 0 to 5; munmap failed on the new kernel
expect_eq "h4: a change from 0 is null" "null" "$(host_json h4 '.metrics[] | select(.metric == "tlb_ipis_per_1000_pages") | .change_pct')"
expect_eq "h4: a change from 0 to 0 is 0" "0" "$(host_json h4 '.metrics[] | select(.metric == "anon_corrupt_bytes") | .change_pct')"
expect_eq "h4: the failed benchmark is the worst" '{"benchmark":"munmap","failed":"child exited 1"}' "$(host_json h4 .worst)"
expect_eq "h4: a failed benchmark has no metrics" '["fault","integrity"]' "$(host_json h4 '[.metrics[].benchmark] | unique')"

step "the medians over the hosts"
# wave 1: h1 and h3; wave 2: h4; all: the three of them
expect_line "pages/s: median(-12.3, 4.1); -10; median(-12.3, 4.1, -10)" \
	"| fault/pages_per_s | higher | -4.1% (n=2) | -10.0% (n=1) | -10.0% (n=3) |" "@$T/report.out"
expect_line "sys_s: median(5, 20); 0; median(5, 20, 0)" \
	"| fault/sys_s | lower | +12.5% (n=2) | +0.0% (n=1) | +5.0% (n=3) |" "@$T/report.out"
expect_line "IPIs: median(20, -10); only from 0; h4's from 0 left out" \
	"| fault/tlb_ipis_per_1000_pages | none | +5.0% (n=2) | from 0 (n=0, 1 from 0) | +5.0% (n=2, 1 from 0) |" "@$T/report.out"
expect_line "corrupt bytes: 0 -> 0 in wave 2 only" \
	"| integrity/anon_corrupt_bytes | lower | - | +0.0% (n=1) | +0.0% (n=1) |" "@$T/report.out"
expect_eq "the JSON's groups" '["all","wave 1","wave 2"]' "$(jq -c '.aggregate | keys' "$T/fleet/fleet-report.json")"
expect_eq "the JSON: wave 1, sys_s" '{"better":"lower","median_change_pct":12.5,"hosts":2,"hosts_from_zero":0}' \
	"$(jq -c '.aggregate["wave 1"]["fault/sys_s"]' "$T/fleet/fleet-report.json")"
expect_eq "the JSON: all, pages/s" '{"better":"higher","median_change_pct":-10,"hosts":3,"hosts_from_zero":0}' \
	"$(jq -c '.aggregate.all["fault/pages_per_s"]' "$T/fleet/fleet-report.json")"
expect_eq "the JSON: wave 2, the IPIs from 0" '{"better":"none","median_change_pct":null,"hosts":0,"hosts_from_zero":1}' \
	"$(jq -c '.aggregate["wave 2"]["fault/tlb_ipis_per_1000_pages"]' "$T/fleet/fleet-report.json")"

step "atomic output"
expect_eq "no temp file left" "fleet-report.json fleet-report.md hosts waves" "$(listing "$T/fleet")"
cp "$T/fleet/fleet-report.json" "$T/first.json"
run again "$REPORT" --dir "$T/fleet" --inventory-hosts "$INVENTORY"
expect_status "a second report over the first: exit" 0 "$RC"
expect_eq "the same report" "$(cat "$T/first.json")" "$(cat "$T/fleet/fleet-report.json")"
expect_eq "still no temp file" "fleet-report.json fleet-report.md hosts waves" "$(listing "$T/fleet")"
# a directory where the JSON goes: its rename fails, the temp files go
fixture fleet "$T/blocked"
mkdir "$T/blocked/fleet-report.json"
run blocked "$REPORT" --dir "$T/blocked"
expect_status "an unwritable report: exit" 2 "$RC"
expect_match "says so" "^fleet-report: $T/blocked: cannot write the report: " "@$T/blocked.err"
expect_eq "neither the .md nor a temp file" "fleet-report.json hosts waves" "$(listing "$T/blocked")"

step "the gate"
mkdir "$T/empty"
run gate "$REPORT" --dir "$T/empty" --gate
expect_status "no wave yet: exit" 0 "$RC"
expect_eq "no wave yet: open" "fleet-report: gate: open: no wave has started" "$(cat "$T/gate.out")"
fixture fleet "$T/wave1"
rm "$T/wave1/waves/2.json" "$T/wave1/hosts/h4.json"
run gate "$REPORT" --dir "$T/wave1" --gate
expect_status "wave 1 all passed or skipped: exit" 0 "$RC"
expect_eq "wave 1: open" "fleet-report: gate: open: 0 of 3 hosts of waves 1 failed or unreachable" "$(cat "$T/gate.out")"
# one wave of one failed host
mkdir -p "$T/one/waves" "$T/one/hosts"
echo '{"wave": 1, "hosts": ["h4"], "started": "2026-12-02T06:00:00Z"}' >"$T/one/waves/1.json"
jq '.wave = 1' "$FIX/fleet/hosts/h4.json" >"$T/one/hosts/h4.json"
run gate "$REPORT" --dir "$T/one" --gate
expect_status "one failed host: exit" 1 "$RC"
expect_eq "one failed host: closed" \
	"fleet-report: gate: closed: 1 of 1 hosts of waves 1 failed or unreachable: h4 (failed: canary failed: mmbatchd.service failed; rolled back)" \
	"$(cat "$T/gate.out")"
# waves 1 and 2: h4 failed, h5 unreachable, 2 of 5 = 40%
fixture fleet "$T/gated"
gate_at() { run gate "$REPORT" --dir "$T/gated" --gate --max-fail-percentage "$1"; }
failures="h4 (failed: canary failed: mmbatchd.service failed; rolled back), h5 (unreachable)"
gate_at 0
expect_status "P=0, 40% failed: exit" 1 "$RC"
expect_eq "P=0: closed" "fleet-report: gate: closed: 2 of 5 hosts of waves 1,2 failed or unreachable: $failures" "$(cat "$T/gate.out")"
gate_at 50
expect_status "P=50, 40% failed: exit" 0 "$RC"
expect_eq "P=50: open" "fleet-report: gate: open: 2 of 5 hosts of waves 1,2 failed or unreachable (40% <= 50%): $failures" "$(cat "$T/gate.out")"
gate_at 40
expect_status "P=40, 40% failed: open (closed only beyond P)" 0 "$RC"
gate_at 39.9
expect_status "P=39.9, 40% failed: exit" 1 "$RC"
expect_contains "P=39.9: closed, the share shown" "closed: 2 of 5 hosts of waves 1,2 failed or unreachable (40% > 39.9%)" "$(cat "$T/gate.out")"
expect_eq "the gate writes nothing" "hosts waves" "$(listing "$T/gated")"

step "check mode"
fixture checkmode "$T/dry"
run dry "$REPORT" --dir "$T/dry"
expect_status "check mode: exit" 0 "$RC"
expect_line "says it was a dry run" "check mode: a dry run, no host was changed" "@$T/dry.out"
expect_line "a would-roll row" \
	"| 1 | c1 | would-roll | would install $NEW and reboot | $OLD → - | - | - | - | - | $PROFILE |" "@$T/dry.out"
expect_line "the totals count would roll" \
	"fleet: 0 passed, 0 skipped, 0 failed, 0 unreachable, 0 not reached, 2 would roll" "@$T/dry.out"
expect_eq "the JSON: check_mode" true "$(jq .check_mode "$T/dry/fleet-report.json")"
run dry-gate "$REPORT" --dir "$T/dry" --gate
expect_status "would-roll passes the gate: exit" 0 "$RC"
expect_eq "would-roll: open" "fleet-report: gate: open: 0 of 2 hosts of waves 1 failed or unreachable" "$(cat "$T/dry-gate.out")"

step "bad input"
# bad_input WHAT ERE ARGS...: exit 2, one line on stderr matching ERE,
# nothing on stdout, no report (nor temp file) in $T/bad
bad_input() {
	local what=$1 ere=$2
	shift 2
	run bad "$REPORT" "$@"
	expect_status "$what: exit" 2 "$RC"
	expect_lines "$what: one line on stderr" 1 "@$T/bad.err"
	expect_match "$what: the message" "$ere" "@$T/bad.err"
	expect_lines "$what: nothing on stdout" 0 "@$T/bad.out"
	expect_eq "$what: nothing written" "hosts waves" "$(listing "$T/bad")"
}
# exactly LINE, as an ERE
exactly() { printf '^%s$' "$(re_quote "fleet-report: $1")"; }
B=$T/bad

fixture fleet "$B"; edit "$B/hosts/h1.json" '.outcome = "maybe"'
bad_input "an unknown outcome" \
	"$(exactly "$B/hosts/h1.json: outcome: must be one of passed, failed, skipped, would-roll, got \"maybe\"")" --dir "$B"
bad_input "the gate on bad input does not open" "outcome: must be one of" --dir "$B" --gate
fixture fleet "$B"; edit "$B/hosts/h1.json" '.schema = "mmbatch-rollout-host/2"'
bad_input "an unknown schema" \
	"$(exactly "$B/hosts/h1.json: schema: must be mmbatch-rollout-host/1, got \"mmbatch-rollout-host/2\"")" --dir "$B"
fixture fleet "$B"; printf '{"schema": "mmbatch-rollout-host/1",\n "host": "h1" "wave": 1}\n' >"$B/hosts/h1.json"
bad_input "invalid JSON" \
	"$(exactly "$B/hosts/h1.json: invalid JSON at line 2 column 15: Expecting ',' delimiter")" --dir "$B"
fixture fleet "$B"; edit "$B/hosts/h1.json" 'del(.canary.verdict)'
bad_input "a missing key" "$(exactly "$B/hosts/h1.json: canary.verdict: missing")" --dir "$B"
fixture fleet "$B"; edit "$B/hosts/h1.json" '.check_mode = "no"'
bad_input "a key of the wrong type" "$(exactly "$B/hosts/h1.json: check_mode: must be a boolean, got \"no\"")" --dir "$B"
fixture fleet "$B"; edit "$B/hosts/h1.json" '.smoke.new.results[0].metrics[1].better = "up"'
bad_input "a bad mmbench document" \
	"$(exactly "$B/hosts/h1.json: smoke.new.results[0].metrics[1].better: must be one of higher, lower, none, got \"up\"")" --dir "$B"
fixture fleet "$B"; edit "$B/hosts/h1.json" '.smoke.baseline.schema = "mmbench/2"'
bad_input "a foreign mmbench schema" "h1.json: smoke.baseline.schema: must be mmbench/1, got \"mmbench/2\"" --dir "$B"
fixture fleet "$B"; edit "$B/hosts/h1.json" '.host = "h9"'
bad_input "a record under another host's name" "$(exactly "$B/hosts/h1.json: host: \"h9\", but the file is h1.json")" --dir "$B"
fixture fleet "$B"; edit "$B/waves/2.json" '.hosts = "h4,h5"'
bad_input "a wave file's hosts not a list" "$(exactly "$B/waves/2.json: hosts: must be an array, got \"h4,h5\"")" --dir "$B"
fixture fleet "$B"; edit "$B/waves/2.json" '.wave = 3'
bad_input "a wave file of another wave" "$(exactly "$B/waves/2.json: wave: 3, but the file is 2.json")" --dir "$B"
fixture fleet "$B"; edit "$B/waves/2.json" '.hosts += ["h1"]'
bad_input "a host in two waves" "$(exactly "$B/waves/2.json: hosts: h1 is listed in waves/1.json too")" --dir "$B"
fixture fleet "$B"; echo '[1]' >"$B/waves/1.json"
bad_input "a wave file not an object" "$(exactly "$B/waves/1.json: must be a JSON object, got [1]")" --dir "$B"
fixture fleet "$B"; rm "$B/waves/2.json"
bad_input "a record of no wave" "$(exactly "$B/hosts/h4.json: wave: 2, but no wave file lists h4")" --dir "$B"
fixture fleet "$B"
bad_input "no --dir" "$(exactly "the following arguments are required: --dir")"
bad_input "a file for --dir" "$(exactly "$B/waves/1.json: not a directory")" --dir "$B/waves/1.json"
bad_input "no such --dir" "$(exactly "$B/none: no such directory")" --dir "$B/none"
for p in abc -1 101 nan; do
	bad_input "--max-fail-percentage $p" \
		"$(exactly "--max-fail-percentage: must be a number 0..100, got \"$p\"")" --dir "$B" --max-fail-percentage "$p"
done

step "the checks catch a broken script"
# better=lower judged like higher: h3's sys_s +20% becomes "better"
cp "$REPORT" "$T/broken.py"
sed -i 's/else 0\.0 - change$/else change/' "$T/broken.py"
if cmp -s "$REPORT" "$T/broken.py"; then fail "the sed broke nothing: fix its pattern"; else pass "the copy is broken"; fi
fixture fleet "$T/broken"
run broken "$T/broken.py" --dir "$T/broken" --inventory-hosts "$INVENTORY"
expect_status "the broken copy still runs" 0 "$RC"
expect_lacks "h3's worst-metric check would fail on it" "| fault/sys_s +20.0% (worse) |" "@$T/broken.out"
expect_contains "it names pages/s instead" "| fault/pages_per_s +4.1% (better) |" "@$T/broken.out"

test_summary
