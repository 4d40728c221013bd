#!/bin/bash
# The mmbatch.fleet collection without a booted host: ansible-galaxy builds
# and installs it, ansible-lint and --syntax-check pass, bad variables are
# refused before anything is written, and hosts that do not answer fail the
# wave and stop the rollout, with the fleet report saying so.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
coll=$TOP/tools/rollout/collection

step "ansible-galaxy collection build"
rc=0; ansible-galaxy collection build --force --output-path "$T" "$coll" >"$T/build.out" 2>&1 || rc=$?
expect_status "build" 0 "$rc"
tarball=$(find "$T" -maxdepth 1 -name "mmbatch-fleet-*.tar.gz" | head -n 1)
expect_eq "the tarball is named after galaxy.yml's version" "$T/mmbatch-fleet-$(sed -n 's/^version: //p' "$coll/galaxy.yml").tar.gz" "$tarball"
tar -tzf "$tarball" >"$T/files" 2>/dev/null || :
for f in playbooks/rollout.yml roles/mmbatch_rollout/tasks/main.yml roles/mmbatch_rollout/defaults/main.yml \
	roles/mmbatch_rollout/files/fleet_report.py plugins/modules/host_state.py MANIFEST.json; do
	expect_line "the tarball holds $f" "$f" "@$T/files"
done

step "ansible-galaxy collection install"
rc=0; ansible-galaxy collection install --force -p "$T/collections" "$tarball" >"$T/install.out" 2>&1 || rc=$?
expect_status "install" 0 "$rc"
export ANSIBLE_COLLECTIONS_PATH=$T/collections ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_NOCOLOR=1
printf '[fleet]\nh1 ansible_host=127.0.0.1 ansible_port=1\nh2 ansible_host=127.0.0.1 ansible_port=1\n' >"$T/hosts.ini"

step "syntax and lint"
rc=0; ansible-playbook -i "$T/hosts.ini" mmbatch.fleet.rollout --syntax-check >"$T/syntax.out" 2>&1 || rc=$?
expect_status "ansible-playbook --syntax-check" 0 "$rc"
rc=0; (cd "$coll" && ansible-lint --offline --nocolor -p playbooks/rollout.yml roles/mmbatch_rollout) >"$T/lint.out" 2>&1 || rc=$?
expect_status "ansible-lint (production profile)" 0 "$rc"
expect_match "ansible-lint's summary" '^Passed with production profile: 0 failure' "@$T/lint.out"

# play NAME EXTRA-ARGS...: the installed playbook against hosts.ini.
play() {
	local name=$1
	shift
	rc=0
	ansible-playbook -i "$T/hosts.ini" mmbatch.fleet.rollout -e "mmbatch_rollout_report_dir=$T/report-$name" "$@" \
		>"$T/$name.out" 2>&1 || rc=$?
}
key=$T/key.gpg
: >"$key"

step "bad variables are refused before anything is written"
play nokernel -e mmbatch_rollout_repo_url=http://127.0.0.1:9 -e "mmbatch_rollout_repo_key=$key"
expect_status "no kernel: exit" nonzero "$rc"
expect_contains "no kernel: names the host and what to set" "h1: mmbatch_rollout_kernel: must be a kernel release" "@$T/nokernel.out"
expect_absent "no kernel: no report" "$T/report-nokernel"
play badurl -e mmbatch_rollout_kernel=6.12.117-mmbatch2-cloud -e mmbatch_rollout_repo_url=ftp://x -e "mmbatch_rollout_repo_key=$key"
expect_status "an ftp URL: exit" nonzero "$rc"
expect_contains "an ftp URL: named" 'h1: mmbatch_rollout_repo_url: must be an http://, https:// or file:/// URL' "@$T/badurl.out"
expect_contains "an ftp URL: shown" "got 'ftp://x'" "@$T/badurl.out"
play nokey -e mmbatch_rollout_kernel=6.12.117-mmbatch2-cloud -e mmbatch_rollout_repo_url=http://127.0.0.1:9 -e "mmbatch_rollout_repo_key=$T/none.gpg"
expect_status "a missing key: exit" nonzero "$rc"
expect_contains "a missing key: named" "no such file on the controller: $T/none.gpg" "@$T/nokey.out"
expect_absent "a missing key: no report" "$T/report-nokey"
mkdir -p "$T/report-keep/waves"
echo '{"wave": 1, "hosts": ["h9"], "started": "2026-01-01T00:00:00Z"}' >"$T/report-keep/waves/1.json"
play keep -e mmbatch_rollout_kernel='bad release!' -e mmbatch_rollout_repo_url=http://127.0.0.1:9 -e "mmbatch_rollout_repo_key=$key"
expect_status "a bad release: exit" nonzero "$rc"
expect_file "a refused run leaves the previous report where it was" "$T/report-keep/waves/1.json"
expect_absent "and moves nothing to history" "$T/report-keep/history"
# More values each host must pass (tests/rollout/injection_test.sh has the
# four injections of issue 41, on fake hosts).
good=(-e mmbatch_rollout_kernel=6.12.117-mmbatch2-cloud -e mmbatch_rollout_repo_url=http://127.0.0.1:9 -e "mmbatch_rollout_repo_key=$key"
	-e mmbatch_rollout_connect_timeout=3)
play badpkg "${good[@]}" -e '{"mmbatch_rollout_package": "linux-image-x -oAPT::Get::AllowUnauthenticated=true"}'
expect_fails "a package name with an apt option" 'h1: mmbatch_rollout_package: must be a package name' "$rc" "@$T/badpkg.out"
play nlurl "${good[@]}" -e '{"mmbatch_rollout_repo_url": "https://x/rpm\ngpgcheck=0"}'
expect_fails "a URL with a newline (a .repo line)" 'h1: mmbatch_rollout_repo_url: must be' "$rc" "@$T/nlurl.out"
printf '[fleet]\nh1 ansible_host=127.0.0.1 ansible_port=1\nh2 ansible_host=127.0.0.1 ansible_port=1 mmbatch_rollout_report_dir=/etc/cron.d\n' >"$T/hosts-dir.ini"
rc=0; ansible-playbook -i "$T/hosts-dir.ini" mmbatch.fleet.rollout "${good[@]}" -e mmbatch_rollout_max_fail_percentage=ten >"$T/maxfail.out" 2>&1 || rc=$?
expect_fails "a failure budget that is not a number" 'mmbatch_rollout_max_fail_percentage: must be a whole number' "$rc" "@$T/maxfail.out"
rc=0; ansible-playbook -i "$T/hosts-dir.ini" mmbatch.fleet.rollout "${good[@]}" >"$T/twodirs.out" 2>&1 || rc=$?
expect_fails "a host with a report directory of its own" 'mmbatch_rollout_report_dir: hosts name different report directories' "$rc" "@$T/twodirs.out"
expect_absent "and no report is started" "$PWD/mmbatch-rollout-report"

step "hosts that do not answer fail, and the rollout stops"
play down -e mmbatch_rollout_kernel=6.12.117-mmbatch2-cloud -e mmbatch_rollout_repo_url=http://127.0.0.1:9 \
	-e "mmbatch_rollout_repo_key=$key" -e '{"mmbatch_rollout_waves": [1, 1]}' -e mmbatch_rollout_connect_timeout=3
expect_status "a host down: ansible-playbook exit" 2 "$rc"
r=$T/report-down/fleet-report.json
expect_eq "h1 failed" failed "$(jq -r '.hosts[] | select(.host == "h1") | .outcome' "$r" 2>&1)"
expect_contains "h1's reason: it did not answer" "Wait for the host to answer" "$(jq -r '.hosts[] | select(.host == "h1") | .reason' "$r" 2>&1)"
expect_eq "h2 not reached" not-reached "$(jq -r '.hosts[] | select(.host == "h2") | .outcome' "$r" 2>&1)"
expect_absent "no second wave" "$T/report-down/waves/2.json"
expect_file "the Markdown report" "$T/report-down/fleet-report.md"

step "a second run keeps the first's report in history/"
play down2 -e mmbatch_rollout_kernel=6.12.117-mmbatch2-cloud -e mmbatch_rollout_repo_url=http://127.0.0.1:9 \
	-e "mmbatch_rollout_repo_key=$key" -e '{"mmbatch_rollout_waves": [2]}' -e mmbatch_rollout_connect_timeout=3 \
	-e "mmbatch_rollout_report_dir=$T/report-down"
expect_status "both down in one wave: exit" 2 "$rc"
expect_eq "the first run's report moved to history/" 1 "$(find "$T/report-down/history" -mindepth 2 -maxdepth 2 -name waves 2>/dev/null | wc -l)"
expect_eq "this run: one wave of both hosts" '["h1","h2"]' "$(jq -c .hosts "$T/report-down/waves/1.json" 2>&1)"
expect_eq "both failed" "failed failed" "$(jq -r '[.hosts[] | .outcome] | join(" ")' "$T/report-down/fleet-report.json" 2>&1)"

test_summary
