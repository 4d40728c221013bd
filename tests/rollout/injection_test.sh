#!/bin/bash
# The rollout role takes inventory values as data, never as code (issue
# 41). Four injections, each set by one host of a two-host inventory (as a
# dynamic inventory, cloud tags or a CMDB could set them), must each be
# refused before any host changes, with a message that names the host and
# the variable:
#   state_dir  mmbatch_rollout_state_dir with a command in it (the reboot
#              wait's test_command spliced it unquoted into a shell string);
#   kernel     mmbatch_rollout_kernel with $(...), on the second host only
#              (the kernel was checked with run_once: the first host only);
#   suite      mmbatch_rollout_repo_suite with a newline and "Trusted: yes"
#              (rendered into the apt source, apt takes the repo unsigned);
#   hostname   a host named ../../x (its record went outside the report
#              directory).
# Refused means: ansible-playbook fails, the message names the host and
# the variable, no fake host's tree changed (so no marker file, no apt
# source), no report was started and no file was written outside it.
#
# First, a good rollout through the same fake hosts passes, so that the
# checks are seen to let good values through and the fake hosts are seen to
# run the whole role (install, the canary wait file, the reboot and its
# test_command, the verdict): an injection refused there is refused by the
# checks, not by a fake host that could not have run it.
#
# The hosts are fake: each is a directory reached through Ansible's chroot
# connection, in a private mount namespace (unshare -m) in which it has the
# controller's /usr read-only and /dev, and stubs in /usr/local/sbin (first
# in PATH): mmbatchctl (arms, and says passed when the armed kernel is the
# running one, else failed), systemd-run (the reboot: a new boot_id),
# grub-editenv (the armed kernel as the default once "rebooted") and
# apt-get (update does nothing). The kernel package is in the fake dpkg
# status, so the apt module finds it installed.
#
# ROLLOUT_COLLECTION=DIR tests another copy of the collection, e.g. the role
# before the fix (git show HEAD~N:tools/rollout/collection/... into a temp
# copy): there each injection runs, and this test fails.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
coll=${ROLLOUT_COLLECTION:-$TOP/tools/rollout/collection}

if ! unshare -m --propagation private true 2>/dev/null; then
	skip "injections" "unshare -m is not allowed here (the fake hosts need a private mount namespace; run as root)"
	test_summary
	exit 0
fi
scratch

step "ansible-galaxy collection build and install ($coll)"
rc=0
{ ansible-galaxy collection build --force --output-path "$T" "$coll" &&
	ansible-galaxy collection install --force -p "$T/collections" "$T"/mmbatch-fleet-*.tar.gz; } >"$T/install.out" 2>&1 || rc=$?
expect_ok "the collection builds and installs" "$rc" "@$T/install.out"
export ANSIBLE_COLLECTIONS_PATH=$T/collections:/usr/lib/python3/dist-packages/ansible_collections \
	ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_NOCOLOR=1 ANSIBLE_HOST_KEY_CHECKING=false

kver=$(uname -r)
key=$T/mmbatch-archive-keyring.gpg
echo "a stand-in key" >"$key"

# The stubs, bound on each fake host's /usr/local/sbin. Their state and
# logs: /var/lib/fakehost on the host.
mkdir -p "$T/stubs"
cat >"$T/stubs/mmbatchctl" <<'EOF'
#!/bin/sh
d=/var/lib/fakehost
echo "MMBATCH_STATE_DIR=$MMBATCH_STATE_DIR $*" >>$d/mmbatchctl.log
case "$1 $2" in
"canary --status")
	[ -f $d/armed ] || { echo "no canary"; exit 2; }
	k=$(cat $d/armed)
	[ -f $d/rebooted ] || { echo "canary: $k (armed)"; exit 3; }
	[ "$k" != "$(uname -r)" ] || { echo "canary: $k (passed)"; exit 0; }
	echo "canary: $k (failed)"; exit 1 ;;
"status --json") echo '{"profile": "default", "state": "running"}' ;;
canary\ *)
	shift
	[ "$1" != --no-reboot-on-failure ] || shift
	printf '%s\n' "$1" >$d/armed ;;
*) echo "fake mmbatchctl: $*?" >&2; exit 2 ;;
esac
EOF
cat >"$T/stubs/systemd-run" <<'EOF'
#!/bin/sh
echo "$*" >>/var/lib/fakehost/systemd-run.log
date +%s%N >/proc/sys/kernel/random/boot_id
touch /var/lib/fakehost/rebooted
EOF
cat >"$T/stubs/grub-editenv" <<'EOF'
#!/bin/sh
d=/var/lib/fakehost
if [ -f $d/rebooted ] && [ "$(cat $d/armed)" = "$(uname -r)" ]; then
	echo "saved_entry=gnulinux-advanced-0>gnulinux-$(uname -r)-advanced-0"
fi
EOF
cat >"$T/stubs/apt-get" <<'EOF'
#!/bin/sh
echo "$*" >>/var/lib/fakehost/apt-get.log
EOF
chmod 0755 "$T/stubs"/*

# fake_host SCENARIO NAME: a fake host's tree, $T/hosts/SCENARIO/NAME.
fake_host() {
	local r=$T/hosts/$1/$2 d l
	for d in usr dev tmp root etc/apt/apt.conf.d etc/apt/preferences.d etc/apt/sources.list.d \
		etc/apt/trusted.gpg.d etc/apt/keyrings var/lib/dpkg/info var/lib/dpkg/updates \
		var/lib/apt/lists/partial var/cache/apt/archives/partial var/lib/mmbatch var/lib/fakehost \
		proc/sys/kernel/random; do
		mkdir -p "$r/$d"
	done
	for l in bin lib lib64 sbin; do ln -s "usr/$l" "$r/$l"; done
	cp -L /etc/os-release /etc/debian_version /etc/passwd /etc/group "$r/etc/"
	chmod 1777 "$r/tmp"
	echo 00000000-0000-4000-8000-000000000001 >"$r/proc/sys/kernel/random/boot_id"
	printf '%s\n' "Package: mmbatch-fake-kernel" "Status: install ok installed" "Priority: optional" \
		"Section: kernel" "Installed-Size: 1" "Maintainer: mmbatch tests <tests@mmbatch.example.org>" \
		"Architecture: $(dpkg --print-architecture)" "Version: 1" "Description: the fake host's kernel" \
		>"$r/var/lib/dpkg/status"
}

# inventory SCENARIO HOST2 [YAML...]: the inventory of SCENARIO's two fake
# hosts, h1 and HOST2, HOST2 with the YAML host vars given (one per arg).
# Every rollout value is in the inventory, none in extra vars (which would
# override a host's own); the role before the fix checked the implicit
# localhost's values, which come from the all group's.
inventory() {
	local s=$1 h2=$2 v
	shift 2
	fake_host "$s" h1
	fake_host "$s" "$(basename "$h2")"
	{
		echo "all:"
		echo "  vars:"
		echo "    mmbatch_rollout_kernel: $kver"
		echo "    mmbatch_rollout_package: mmbatch-fake-kernel"
		echo "    mmbatch_rollout_repo_url: file:///srv/mmbatch"
		echo "    mmbatch_rollout_repo_key: $key"
		echo "    mmbatch_rollout_connect_timeout: 30"
		echo "    mmbatch_rollout_reboot_timeout: 60"
		echo "  children:"
		echo "    fleet:"
		echo "      vars:"
		echo "        ansible_connection: community.general.chroot"
		echo "        ansible_python_interpreter: /usr/bin/python3"
		echo "      hosts:"
		echo "        h1:"
		echo "          ansible_host: $T/hosts/$s/h1"
		echo "        \"$h2\":"
		echo "          ansible_host: $T/hosts/$s/$(basename "$h2")"
		for v in "$@"; do echo "          $v"; done
	} >"$T/$s.yml"
}

# fleet SCENARIO ARGS...: the installed playbook against SCENARIO's
# inventory, in a private mount namespace that gives each of its fake hosts
# /usr (read-only), /dev and the stubs; output in $T/SCENARIO.out, exit
# status in rc. Both hosts in one wave: the second host is reached in the
# same wave as the first, as in any wave of more than one host.
fleet() {
	local s=$1
	shift
	rc=0
	# shellcheck disable=SC2016 # the script's $1.. are its own
	unshare -m --propagation private bash -c '
		set -e
		for r in "$1"/*/; do
			mount --bind /usr "$r/usr"
			mount -o remount,bind,ro "$r/usr"
			mount --bind /dev "$r/dev"
			mount --bind "$2" "$r/usr/local/sbin"
			[ ! -e "$r/usr/bin/systemd-run" ] || mount --bind "$2/systemd-run" "$r/usr/bin/systemd-run"
		done
		shift 2
		exec "$@"' fleet "$T/hosts/$s" "$T/stubs" \
		env PATH=/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin \
		ansible-playbook -i "$T/$s.yml" mmbatch.fleet.rollout -e "mmbatch_rollout_report_dir=$T/report/$s" \
		-e '{"mmbatch_rollout_waves": [2]}' "$@" >"$T/$s.out" 2>&1 || rc=$?
}

step "a good rollout through two fake hosts passes"
inventory good h2
fleet good
expect_ok "good: ansible-playbook" "$rc" "@$T/good.out"
expect_eq "good: both hosts passed" "h1 passed, h2 passed" \
	"$(jq -r '[.hosts[] | "\(.host) \(.outcome)"] | join(", ")' "$T/report/good/fleet-report.json" 2>&1)"
r=$T/hosts/good/h2
expect_eq "good: the canary of the target was armed with the state directory" "MMBATCH_STATE_DIR=/var/lib/mmbatch canary $kver" \
	"$(grep -m 1 ' canary [^-]' "$r/var/lib/fakehost/mmbatchctl.log" 2>&1)"
expect_eq "good: the host was rebooted by the reboot command" "--quiet --on-active=2 systemctl reboot" "$(cat "$r/var/lib/fakehost/systemd-run.log" 2>&1)"
expect_contains "good: the apt source names the suite" "Suites: bookworm" "@$r/etc/apt/sources.list.d/mmbatch.sources"
expect_lacks "good: the apt source trusts nothing unsigned" "Trusted" "@$r/etc/apt/sources.list.d/mmbatch.sources"
expect_file "good: h1's record" "$T/report/good/hosts/h1.json"

# refused SCENARIO HOST VAR: SCENARIO's run failed on the checks, naming
# HOST and VAR, and changed nothing on any host nor outside the report dir.
refused() {
	local s=$1 host=$2 var=$3 h
	expect_fails "$s: refused, with a message that names the host and the variable" "$(re_quote "$host: $var: must be")" "$rc" "@$T/$s.out"
	for h in "$T/hosts/$s"/*; do
		expect_eq "$s: $(basename "$h")'s tree is unchanged" "${sums[$s/$(basename "$h")]}" "$(tree_sum "$h")"
		expect_eq "$s: no marker and no apt source on $(basename "$h")" "" \
			"$(cd "$h" && find tmp etc/apt/sources.list.d var/lib/fakehost -mindepth 1 2>&1)"
	done
	expect_absent "$s: no report started" "$T/report/$s"
	expect_eq "$s: no file written outside the report directory" "" "$(find "$T/report" -maxdepth 1 -type f 2>&1)"
}

declare -A sums
# injection SCENARIO HOST2 YAML...: SCENARIO's fake hosts and inventory,
# their trees' sums, and the run.
injection() {
	local s=$1 h
	inventory "$@"
	for h in "$T/hosts/$s"/*; do sums[$s/$(basename "$h")]=$(tree_sum "$h"); done
	fleet "$s"
}

step "injection: a command in the state directory"
injection state_dir h2 'mmbatch_rollout_state_dir: "/var/lib/mmbatch;touch /tmp/pwned-state-dir;:"'
refused state_dir h2 mmbatch_rollout_state_dir

step "injection: a command in the second host's kernel"
injection kernel h2 "mmbatch_rollout_kernel: \"$kver\$(touch /tmp/pwned-kernel)\""
refused kernel h2 mmbatch_rollout_kernel

step "injection: a newline and Trusted: yes in the suite"
injection suite h2 'mmbatch_rollout_repo_suite: "bookworm\nTrusted: yes"'
refused suite h2 mmbatch_rollout_repo_suite

step "injection: a host named ../../x"
injection hostname ../../x
refused hostname ../../x "inventory host name"
expect_eq "hostname: no x.json anywhere" "" "$(find "$T" -name x.json 2>&1)"

test_summary
