#!/bin/bash
# mmbatch.fleet.host_state, the module the role reads a host with, run by
# ansible on this machine against a fake state directory, with stand-ins for
# mmbatchctl, grub-editenv (on PATH) and the real mmbench: each field it
# returns, and that it changes nothing.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
: "${MMBENCH:=$TOP/out/bin/mmbench}"
[ -x "$MMBENCH" ] || { echo "host_state_test: no mmbench at $MMBENCH (make mmbench)" >&2; exit 2; }

mkdir -p "$T/bin" "$T/collections/ansible_collections/mmbatch"
ln -s "$TOP/tools/rollout/collection" "$T/collections/ansible_collections/mmbatch/fleet"
ln -s "$MMBENCH" "$T/bin/mmbench"
cat >"$T/bin/grub-editenv" <<'EOF'
#!/bin/sh
echo "saved_entry=gnulinux-advanced-1234>gnulinux-6.1.192-mmbatch2-guest-advanced-1234"
echo "next_entry="
EOF
cat >"$T/bin/mmbatchctl" <<'EOF'
#!/bin/sh
case "$*" in
"canary --status")
	printf 'canary:    6.1.192-mmbatch2-guest (passed)\nprevious:  6.12.117-mmbatch2-guest\nwhy:       smoke passed\n'
	exit 0 ;;
"status --json")
	[ "$MMBATCH_STATE_DIR" = "$EXPECT_STATE_DIR" ] || { echo "MMBATCH_STATE_DIR=$MMBATCH_STATE_DIR" >&2; exit 9; }
	echo '{"state":"running","pid":1,"profile":"/etc/mmbatch/mmbatchd.yaml","rollback":"on_stop"}' ;;
*) exit 2 ;;
esac
EOF
chmod +x "$T/bin"/*

# The state directory: two results of the baseline kernel (the newer one
# counts), one of the target, a temp file that is no result.
s=$T/state
mkdir -p "$s/results/6.12.117-mmbatch2-guest" "$s/results/6.1.192-mmbatch2-guest" "$s/verdict"
"$MMBENCH" fault --quick --reps 2 --size-mib 1 -o "$T/fault.json" >/dev/null
jq '.results[0].metrics |= map(.values = [1, 1] | .median = 1)' "$T/fault.json" >"$s/results/6.12.117-mmbatch2-guest/20261201T000000Z.json"
jq '.results[0].metrics |= map(.values = [100, 100] | .median = 100)' "$T/fault.json" >"$s/results/6.12.117-mmbatch2-guest/20261202T000000Z.json"
jq '.results[0].metrics |= map(.values = [50, 50] | .median = 50)' "$T/fault.json" >"$s/results/6.1.192-mmbatch2-guest/20261202T010000Z.json"
echo '{' >"$s/results/6.1.192-mmbatch2-guest/.20261202T020000Z.json"
printf 'result=pass\nreason=smoke passed\nat=20261202T010000Z\n' >"$s/verdict/6.1.192-mmbatch2-guest"
before=$(tree_sum "$s")

# state ARGS: the module's result as JSON in $T/r.json.
state() {
	rc=0
	PATH=$T/bin:$PATH EXPECT_STATE_DIR=$s ANSIBLE_COLLECTIONS_PATH=$T/collections ANSIBLE_LOAD_CALLBACK_PLUGINS=1 \
		ANSIBLE_STDOUT_CALLBACK=json ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 \
		ansible localhost -c local -m mmbatch.fleet.host_state -a "$*" >"$T/out.json" 2>"$T/err" || rc=$?
	jq '.plays[0].tasks[0].hosts.localhost' "$T/out.json" >"$T/r.json" 2>/dev/null || :
}
r() { jq -r "$1" "$T/r.json" 2>&1; }

step "every field"
state "target=6.1.192-mmbatch2-guest baseline_kernel=6.12.117-mmbatch2-guest state_dir=$s"
expect_status "host_state" 0 "$rc"
expect_eq "kernel: the running one" "$(uname -r)" "$(r .kernel)"
expect_eq "default: from GRUB's saved_entry" 6.1.192-mmbatch2-guest "$(r .default)"
expect_eq "canary: status exit" 0 "$(r .canary.status_rc)"
expect_eq "canary: kernel" 6.1.192-mmbatch2-guest "$(r .canary.kernel)"
expect_eq "canary: state" passed "$(r .canary.state)"
expect_eq "verdict" "pass|smoke passed|20261202T010000Z" "$(r '.verdict | "\(.result)|\(.reason)|\(.at)"')"
expect_eq "profile (read with MMBATCH_STATE_DIR set)" /etc/mmbatch/mmbatchd.yaml "$(r .profile)"
expect_eq "smoke: the newest baseline result" "$s/results/6.12.117-mmbatch2-guest/20261202T000000Z.json" "$(r .smoke.baseline_file)"
expect_eq "smoke: the target's result, not the temp file" "$s/results/6.1.192-mmbatch2-guest/20261202T010000Z.json" "$(r .smoke.new_file)"
expect_eq "smoke: the baseline document" 100 "$(r '.smoke.baseline.results[0].metrics[0].median')"
expect_eq "smoke: compare exit (pages/s halved: a regression)" 1 "$(r .smoke.compare_rc)"
expect_match "smoke: compare's verdict line" '^verdict: worse' "$(r .smoke.compare_verdict)"
expect_eq "changed" false "$(r .changed)"
expect_eq "the state directory is untouched" "$before" "$(tree_sum "$s")"

step "a host without results, verdict or GRUB"
rm "$T/bin/grub-editenv"
state "target=9.9.9-none baseline_kernel=8.8.8-none state_dir=$s"
expect_status "host_state" 0 "$rc"
expect_eq "no default" null "$(r .default)"
expect_eq "no verdict" "" "$(r .verdict.result)"
expect_eq "no results" "null null null" "$(r '"\(.smoke.baseline) \(.smoke.new) \(.smoke.compare_rc)"')"

step "a result that is not JSON fails the module, naming it"
echo '{' >"$s/results/6.1.192-mmbatch2-guest/20261203T000000Z.json"
state "target=6.1.192-mmbatch2-guest state_dir=$s"
expect_eq "failed" true "$(r .failed)"
expect_contains "names the file" "20261203T000000Z.json" "$(r .msg)"

test_summary
