#!/bin/bash
# The install hooks mark a kernel pending and its removal unmarks it; the
# unit runs only for a pending running kernel, after mmbatchd.
. "$(dirname "$0")/lib.sh"
setup

export MMBATCH_STATE_DIR=$T/state
plugin=$TOP/systemd/kernel-install/90-mmbatch-smoke.install
postinst=$TOP/systemd/postinst.d/zz-mmbatch-smoke
postrm=$TOP/systemd/postrm.d/zz-mmbatch-smoke
unit=$TOP/systemd/mmbatch-smoke.service
state_of() { [ -e "$MMBATCH_STATE_DIR/pending/$1" ] && echo pending || echo absent; }

run_cmd add "$plugin" add 6.12.117-mmbatch1-cloud /boot/efi/x /boot/vmlinuz-6.12.117-mmbatch1-cloud
expect_eq "kernel-install add: exit" 0 "$RC"
expect_eq "kernel-install add: mark" pending "$(state_of 6.12.117-mmbatch1-cloud)"
run_cmd rm "$plugin" remove 6.12.117-mmbatch1-cloud
expect_eq "kernel-install remove: exit" 0 "$RC"
expect_eq "kernel-install remove: mark" absent "$(state_of 6.12.117-mmbatch1-cloud)"
run_cmd other "$plugin" inspect 6.12.117-mmbatch1-cloud
expect_eq "kernel-install other command: exit" 0 "$RC"
expect_eq "kernel-install other command: no mark" absent "$(state_of 6.12.117-mmbatch1-cloud)"
run_cmd bad "$plugin" add
expect_eq "kernel-install without version: exit" 2 "$RC"
run_cmd bad2 "$plugin" add ../etc
expect_eq "kernel-install bad version: exit" 2 "$RC"

run_cmd pi "$postinst" 6.1.158-mmbatch1-cloud /boot/vmlinuz-6.1.158-mmbatch1-cloud
expect_eq "postinst.d: exit" 0 "$RC"
expect_eq "postinst.d: mark" pending "$(state_of 6.1.158-mmbatch1-cloud)"
run_cmd pr "$postrm" 6.1.158-mmbatch1-cloud /boot/vmlinuz-6.1.158-mmbatch1-cloud
expect_eq "postrm.d: exit" 0 "$RC"
expect_eq "postrm.d: mark" absent "$(state_of 6.1.158-mmbatch1-cloud)"
run_cmd pbad "$postinst"
expect_eq "postinst.d without version: exit" 2 "$RC"

# the unit: gated on the running kernel's mark, after the daemon
expect_match "unit: condition" '^ConditionPathExists=/var/lib/mmbatch/pending/%v$' "@$unit"
expect_match "unit: after mmbatchd" '^After=mmbatchd.service$' "@$unit"
expect_match "unit: oneshot" '^Type=oneshot$' "@$unit"
expect_match "unit: state writable" '^ReadWritePaths=/var/lib/mmbatch$' "@$unit"
if command -v systemd-analyze > /dev/null; then
	# only the ExecStart path may be missing on a build machine; the
	# Documentation=man: pages are the package's, not installed here
	# (check-units verifies them against the built ones)
	set +e; systemd-analyze verify --man=no "$unit" > "$T/verify.log" 2>&1; set -e
	grep -v 'mmbatch-smoke is not executable' "$T/verify.log" > "$T/verify.rest" || true
	expect_lines "systemd-analyze verify: no other complaints" 0 "@$T/verify.rest"
else
	skip "systemd-analyze verify" "systemd-analyze not installed"
fi
