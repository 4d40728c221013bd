#!/bin/bash
# shellcheck disable=SC2154  # rc and rc_out are set by capture (printf -v)
# The role's RPM path (roles/mmbatch_rollout/tasks/install-dnf.yml) run by
# Ansible against an approximate RPM host: no Fedora or RHEL archive is
# reachable here, so the host is a Debian 12 chroot with Debian's dnf and
# python3-dnf (tests/lib/rpmhost.sh rpmhost_unpack) whose rpm
# database starts empty but for the stand-in of tests/lib/rpmhost.sh,
# reached through Ansible's chroot connection (community.general.chroot).
# The repository is our signed yum repository (tools/repo/mkrepo.sh, a
# throwaway key) on http://127.0.0.1. Checks:
#   - the tasks add the key and the .repo file (gpgcheck and repo_gpgcheck
#     on), and dnf, inside the host, installs the kernel package: its
#     %posttrans ran kernel-install (BLS entry, dracut's initramfs);
#   - a second run changes nothing;
#   - a failing kernel-install plugin: dnf installs the package and exits
#     0 (rpm does not fail a transaction for a %posttrans), and the role
#     fails the host because no boot entry or initramfs appeared;
#   - with a tampered repomd.xml the install task fails, naming dnf's error,
#     and installs nothing.
# The host's facts say Debian, so host.yml would take the apt path: the
# test runs install-dnf.yml itself (include_role tasks_from). The rest of
# the role (canary boot, verdict) is the same for both paths and runs on
# booted hosts in vm_run.sh; mmbatchctl canary refuses a BootLoaderSpec
# host, which this one is.
#   dnf_host_test.sh   (BUILD: the packaged 6.12 guest build's identity,
#                       default $OUT/build/6.12-guest/mmbatch-build.env)
# Reads: TOP, OUT, BUILD. Needs root.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/repo/lib.sh
. "$TOP/tests/repo/lib.sh"
# shellcheck source=tests/lib/rpmhost.sh
. "$TOP/tests/lib/rpmhost.sh"
BUILD=${BUILD:-$OUT/build/6.12-guest/mmbatch-build.env}
coll=$TOP/tools/rollout/collection

kernel_rpm=$(rt_packages "$BUILD" KERNEL_RPM) && mmbatchd_rpm=$(rt_packages "$BUILD" MMBATCHD_RPM) || {
	fail "the 6.12 guest packages of $BUILD (make guest-packages-6.12): not run"
	exit 1
}
kver=$(bid_get "$BUILD" KERNELRELEASE)
kname=$(rpm -qp --nosignature --qf '%{NAME}' "$kernel_rpm")
knevr=$(rpm -qp --nosignature --qf '%{NAME}-%{VERSION}-%{RELEASE}' "$kernel_rpm")

rt_work
repo=$work/repo served=$work/served
rt_http_serve
url=$rt_url
rt_make_key "$work/key" "mmbatch rollout dnf test key"
# The key where the role installs it (mkrepo refuses a key URL over http://).
capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" REPO_URL="$url" \
	REPO_KEY_URL=file:///etc/pki/rpm-gpg/RPM-GPG-KEY-mmbatch "$MKREPO" "$kernel_rpm" "$mmbatchd_rpm"
expect_ok "mkrepo: $(basename "$kernel_rpm")" "$rc" "$rc_out"
serve() { rt_serve_copy "$repo"; }
serve

t0=$SECONDS
rpmhost_unpack "$root"
token=$(rpmhost_prepare "$root" "$work" "$kernel_rpm" "$mmbatchd_rpm") || exit 1
echo "$TEST_NAME: RPM host ready in $((SECONDS - t0)) s"

step "ansible-galaxy collection build and install"
capture rc ansible-galaxy collection build --force --output-path "$work" "$coll"
expect_ok "build" "$rc" "$rc_out"
capture rc ansible-galaxy collection install --force -p "$work/collections" "$work"/mmbatch-fleet-*.tar.gz
expect_ok "install" "$rc" "$rc_out"
export ANSIBLE_COLLECTIONS_PATH=$work/collections:/usr/lib/python3/dist-packages/ansible_collections \
	ANSIBLE_RETRY_FILES_ENABLED=false ANSIBLE_NOCOLOR=1
printf '[rpmhosts]\nrpmhost ansible_connection=community.general.chroot ansible_host=%s ansible_python_interpreter=/usr/bin/python3\n' \
	"$root" >"$work/hosts.ini"
cat >"$work/install.yml" <<'EOF'
---
- name: The rollout role's RPM install, alone
  hosts: rpmhosts
  gather_facts: false
  tasks:
    - name: Install the kernel as install-dnf.yml does
      ansible.builtin.include_role:
        name: mmbatch.fleet.mmbatch_rollout
        tasks_from: install-dnf.yml
EOF
play() {
	capture rc ansible-playbook -i "$work/hosts.ini" "$work/install.yml" -e "mmbatch_rollout_kernel=$kver" \
		-e "mmbatch_rollout_package=$kname" -e "mmbatch_rollout_repo_url=$url" \
		-e "mmbatch_rollout_repo_key=$repo/RPM-GPG-KEY-mmbatch"
}

step "a tampered repomd.xml: the install fails and installs nothing"
sed -i 's|</repomd>|<!-- tampered --></repomd>|' "$served/rpm/repodata/repomd.xml"
play
expect_fails "ansible-playbook, repomd.xml not matching its signature" 'failed=1' "$rc" "$rc_out"
expect_match "the install task failed with dnf's reason" \
	'^fatal: \[rpmhost\]: FAILED! .*repomd.xml GPG signature verification error' "$rc_out"
expect_eq "rpm -q $kname after the refusal" "package $kname is not installed" "$(rpm --root "$root" -q --qf '%{NAME}-%{VERSION}-%{RELEASE}\n' "$kname" 2>&1)"

step "the signed repository: the role installs the kernel with dnf"
serve
rm -rf "$root/var/cache/dnf"
t1=$SECONDS
play
expect_ok "ansible-playbook install-dnf.yml ($((SECONDS - t1)) s)" "$rc" "$rc_out"
expect_match "the play changed the host" 'rpmhost +: ok=[0-9]+ +changed=[1-9]' "$rc_out"
expect_eq "rpm -q $kname" "$knevr" "$(rpm --root "$root" -q --qf '%{NAME}-%{VERSION}-%{RELEASE}\n' "$kname" 2>&1)"
conf=$(cat "$root/etc/yum.repos.d/mmbatch.repo" 2>&1)
expect_line "the .repo file" "baseurl=$url/rpm" "$conf"
expect_line "the .repo file" "gpgcheck=1" "$conf"
expect_line "the .repo file" "repo_gpgcheck=1" "$conf"
expect_eq "the key the .repo file names" "$(cat "$repo/RPM-GPG-KEY-mmbatch")" "$(cat "$root/etc/pki/rpm-gpg/RPM-GPG-KEY-mmbatch" 2>&1)"
expect_file "the BLS entry kernel-install wrote" "$root/boot/loader/entries/$token-$kver.conf"
expect_file "dracut's initramfs in the entry directory" "$root/boot/$token/$kver/initrd"

step "a second run changes nothing"
play
expect_ok "ansible-playbook again" "$rc" "$rc_out"
expect_match "nothing changed" 'rpmhost +: ok=[0-9]+ +changed=0 ' "$rc_out"

step "a failing kernel-install plugin: the install task fails, naming it"
capture rc chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin dnf -y --noplugins remove "$kname"
expect_ok "dnf remove $kname (inside the host)" "$rc" "$rc_out"
expect_absent "its BLS entry went with it" "$root/boot/loader/entries/$token-$kver.conf"
mkdir -p "$root/etc/kernel/install.d"
printf '#!/bin/sh\necho "10-mmbatch-test-fail.install: refusing $2" >&2\nexit 1\n' \
	>"$root/etc/kernel/install.d/10-mmbatch-test-fail.install"
chmod 0755 "$root/etc/kernel/install.d/10-mmbatch-test-fail.install"
play
expect_fails "ansible-playbook with a failing kernel-install plugin" 'failed=1' "$rc" "$rc_out"
expect_contains "the role says kernel-install left nothing (dnf itself exits 0 for a failed %posttrans)" \
	"kernel-install left no boot entry or initramfs for $kver" "$rc_out"
