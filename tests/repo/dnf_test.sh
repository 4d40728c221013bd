#!/bin/bash
# shellcheck disable=SC2154  # rc and rc_out are set by capture (printf -v)
# Our RPMs installed for real by dnf from the signed yum repository
# (tools/repo/mkrepo.sh, a throwaway key), into an approximate RPM host
# (tests/lib/rpmhost.sh: the cached Debian 12 chroot, its rpm database empty
# but for a stand-in that declares Debian's kernel-install, systemctl and
# dracut; BLS layout). dnf is the build machine's, with --installroot: the
# scriptlets run chrooted into the host. The repository is served over
# http on 127.0.0.1 (dnf reads file:// URLs on the build machine, not in
# the install root).
#   1. dnf itself refuses: a repomd.xml that does not match its signature
#      (repo_gpgcheck), an RPM whose bytes differ from the signed metadata,
#      and an RPM signed by another key under correctly signed metadata
#      (gpgcheck);
#   2. `dnf install` of the kernel and mmbatchd: %posttrans ran
#      `kernel-install add`: the BLS entry, the image (the package's own
#      vmlinuz) and dracut's initramfs in the entry directory, depmod's
#      files, mmbatchd's pending mark; mmbatchd's units enabled by its %post;
#      `rpm -V` clean for both;
#   3. that kernel boots in a VM from a copy of the host, with the
#      initramfs kernel-install put in its BLS entry, and passes the full
#      path's checks (tests/vm/full_test.sh; DNF_TEST_VM=0 skips it, as a
#      skip);
#   4. `dnf upgrade` to the next series version (lib.sh rt_next_series):
#      installonly, both kernels stay, each with its entry;
#   5. `dnf remove` of the old kernel leaves no path of its release behind;
#      removing the other one and mmbatchd leaves the host's file list what
#      it was before the first install;
#   6. a failing kernel-install plugin: the transaction reports it (dnf's
#      "Error in POSTTRANS scriptlet", the plugin's message, the history's
#      error mark) and no entry is written. dnf's exit status stays 0 for a
#      %posttrans failure, as on Fedora: that is rpm's rule (the package is
#      installed by then), so the test asserts the report, not the status.
#   BUILD=FILE dnf_test.sh   (FILE: the packaged 6.12 guest build's identity)
# Reads: TOP, OUT, BUILD, REPO_TEST_NEXT_BUILD, REPO_TEST_NEXT_OUT (lib.sh
# rt_next_series: built there unless already packaged), DNF_TEST_VM (1),
# VM_FULL_TIMEOUT (900), VMTEST_* (tools/vmtest/vmtest). Logs of the boot:
# $OUT/vm/check/rpmhost-6.12.{out,console,dmesg}. Needs root.
set -eu

usage() { echo "usage: BUILD=out/build/6.12-guest/mmbatch-build.env dnf_test.sh" >&2; exit 2; }
[ $# -eq 0 ] && [ -n "${BUILD:-}" ] || usage
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
# shellcheck source=tests/lib/rpmhost.sh
. "$TOP/tests/lib/rpmhost.sh"
command -v dnf >/dev/null || { echo "ERROR: dnf_test: dnf is not installed (make deps-repo)" >&2; exit 2; }

rt_work
repo=$work/repo served=$work/served

kernel_rpm=$(rt_packages "$BUILD" KERNEL_RPM) && devel_rpm=$(rt_packages "$BUILD" DEVEL_RPM) &&
	mmbatchd_rpm=$(rt_packages "$BUILD" MMBATCHD_RPM) ||
	{ echo "ERROR: dnf_test: the 6.12 guest packages are incomplete (see above)" >&2; exit 1; }
kver1=$(bid_get "$BUILD" KERNELRELEASE)
kname=$(rpm -qp --nosignature --qf '%{NAME}' "$kernel_rpm")
knevr1=$(rpm -qp --nosignature --qf '%{NAME}-%{VERSION}-%{RELEASE}' "$kernel_rpm")
echo "$TEST_NAME: kernel $knevr1 ($kver1), $(basename "$mmbatchd_rpm")"

rt_http_serve
url=$rt_url
rt_make_key "$work/key" "mmbatch dnf test key"
rt_make_key "$work/other" "some other key"
publish() {
	# Served over http://, the key from a file (dnf reads file:// on this
	# machine): mkrepo refuses a key URL over http://.
	capture rc env REPO_KEY="$work/key/key.asc" REPO_OUT="$repo" REPO_URL="$url" \
		REPO_KEY_URL="file://$repo/RPM-GPG-KEY-mmbatch" "$MKREPO" "$@"
	expect_ok "mkrepo, $# packages" "$rc" "$rc_out"
}
publish "$kernel_rpm" "$devel_rpm" "$mmbatchd_rpm"
# serve: what the http server hands out becomes a fresh copy of the
# published repository.
serve() { rt_serve_copy "$repo"; }
serve

echo "- the RPM host"
t0=$SECONDS
rpmhost_unpack "$root"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C "$@"; }
token=$(rpmhost_prepare "$root" "$work" "$kernel_rpm" "$devel_rpm" "$mmbatchd_rpm") || exit 1
pass "the RPM host: a Debian 12 chroot, its rpm database holding only $(rpm --root "$root" -qa 2>&1)"
mkdir -p "$root/etc/yum.repos.d"
install -m 0644 "$repo/mmbatch.repo" "$root/etc/yum.repos.d/mmbatch.repo"
repo_conf=$(cat "$repo/mmbatch.repo")
expect_line "mmbatch.repo" "baseurl=$url/rpm" "$repo_conf"
expect_line "mmbatch.repo" "gpgcheck=1" "$repo_conf"
expect_line "mmbatch.repo" "repo_gpgcheck=1" "$repo_conf"
expect_line "mmbatch.repo" "skip_if_unavailable=False" "$repo_conf"
expect_line "mmbatch.repo" "gpgkey=file://$repo/RPM-GPG-KEY-mmbatch" "$repo_conf"
echo "$TEST_NAME: RPM host ready in $((SECONDS - t0)) s"

# dnf_root ARGS...: dnf on the host, fresh metadata every time, no plugins
# of the build machine's; status in rc, output in rc_out.
dnf_root() {
	capture rc dnf --installroot="$root" --releasever=12 --noplugins --assumeyes --refresh \
		--setopt=install_weak_deps=0 --setopt=keepcache=0 "$@"
}
# snapshot: the host's files, minus what rpm, dnf, dracut and logs change.
snapshot() {
	in_root find / -xdev \( -path /var/lib/rpm -o -path /var/lib/dnf -o -path /var/cache -o -path /var/log \
		-o -path /tmp -o -path /var/tmp -o -path /etc/yum.repos.d \) -prune -o -print | LC_ALL=C sort
}
before=$(snapshot)

echo "- dnf refuses what the key did not sign"
md=$served/rpm/repodata
sed -i 's|</repomd>|<!-- tampered --></repomd>|' "$md/repomd.xml"
dnf_root makecache
expect_fails "dnf makecache, repomd.xml not matching repomd.xml.asc (skip_if_unavailable=False)" \
	'repomd.xml GPG signature verification error' "$rc" "$rc_out"

serve
rpmfile=$served/rpm/$(basename "$kernel_rpm")
size=$(stat -c %s "$rpmfile")
printf '\377' | dd of="$rpmfile" bs=1 seek=$((size - 64)) conv=notrunc status=none
dnf_root install "$kname"
expect_fails "dnf install, an RPM whose bytes differ from the signed metadata" \
	'does not match|checksum|Checksum|Digest|digest' "$rc" "$rc_out"
expect_absent "no kernel installed after the refusal" "$root/lib/modules/$kver1"

serve
rpmsign --define "__gpg $(command -v gpg)" --define "_gpg_sign_cmd_extra_args --batch --no-tty" \
	--define "_gpg_name some other key" --define "_gpg_path $work/other/gnupg" --addsign "$rpmfile" >/dev/null 2>&1
createrepo_c --quiet --update --general-compress-type gz "$served/rpm"
GNUPGHOME=$work/key/gnupg gpg --batch --yes --quiet --armor --detach-sign -o "$md/repomd.xml.asc" "$md/repomd.xml"
dnf_root install "$kname"
expect_fails "dnf install, an RPM signed by another key (metadata signed by ours)" \
	'GPG|gpg|[Ss]ignature|[Pp]ublic key' "$rc" "$rc_out"
expect_absent "no kernel installed after the refusal" "$root/lib/modules/$kver1"

echo "- dnf install: the kernel and mmbatchd"
serve
t1=$SECONDS
dnf_root install "$kname" mmbatchd
expect_ok "dnf install $kname mmbatchd ($((SECONDS - t1)) s)" "$rc" "$rc_out"
expect_no_match "dnf install output" 'Error in .* scriptlet|scriptlet failed' "$rc_out"
expect_eq "rpm -q $kname" "$knevr1" "$(rpm --root "$root" -q --qf '%{NAME}-%{VERSION}-%{RELEASE}\n' "$kname" 2>&1)"
expect_eq "rpm -q mmbatchd" "$(rpm -qp --nosignature --qf '%{NAME}-%{VERSION}-%{RELEASE}' "$mmbatchd_rpm")" \
	"$(rpm --root "$root" -q --qf '%{NAME}-%{VERSION}-%{RELEASE}\n' mmbatchd 2>&1)"
# check_entry KVER: what kernel-install add left for KVER (BLS layout).
check_entry() {
	local kver=$1 entry=$root/boot/loader/entries/$token-$1.conf dir=$root/boot/$token/$1
	expect_file "BLS entry of $kver" "$entry"
	# Paths from the root of the filesystem that holds /boot (here the
	# root's own: /boot/...), as the boot loader reads them.
	expect_match "BLS entry of $kver: its image" "^linux +(/boot)?/$token/$(re_quote "$kver")/linux\$" "$(cat "$entry" 2>/dev/null)"
	expect_match "BLS entry of $kver: its initramfs" "^initrd +(/boot)?/$token/$(re_quote "$kver")/initrd\$" "$(cat "$entry" 2>/dev/null)"
	expect_match "BLS entry of $kver: the host's command line (/etc/kernel/cmdline)" "^options +root=/dev/vda ro console=ttyS0 systemd.machine_id=$token\$" \
		"$(cat "$entry" 2>/dev/null)"
	expect_eq "the entry's image is the package's /lib/modules/$kver/vmlinuz" \
		"$(sha256sum <"$root/lib/modules/$kver/vmlinuz" | cut -c1-64)" "$(sha256sum <"$dir/linux" 2>&1 | cut -c1-64)"
	expect_file "dracut's initramfs of $kver" "$dir/initrd"
	expect_match "the initramfs of $kver holds dracut's init and $kver's modules dir" "^usr/lib/modules/$kver/modules.dep\$" \
		"$(in_root lsinitrd "/boot/$token/$kver/initrd" 2>&1 | awk '{ print $NF }')"
	expect_file "modules.dep (kernel-install's depmod) of $kver" "$root/lib/modules/$kver/modules.dep"
	expect_exists "mmbatchd's pending mark of $kver (its kernel-install plugin)" "$root/var/lib/mmbatch/pending/$kver"
}
check_entry "$kver1"
expect_exists "mmbatchd.service enabled by the RPM's %post" "$root/etc/systemd/system/multi-user.target.wants/mmbatchd.service"
expect_exists "mmbatch-canary.service required by boot-complete.target (the RPM's %post)" \
	"$root/etc/systemd/system/boot-complete.target.requires/mmbatch-canary.service"
capture rc rpm --root "$root" -V mmbatchd
expect_ok "rpm -V mmbatchd" "$rc" "$rc_out"
expect_eq "rpm -V mmbatchd prints nothing" "" "$rc_out"
capture rc rpm --root "$root" -V "$kname"
expect_ok "rpm -V $kname" "$rc" "$rc_out"

echo "- the installed kernel boots with that initramfs (VM: the full path's checks)"
# A copy of the host as dnf left it (the mounts not copied), made bootable
# by vmtest (tools/vmtest/rootfs-finish.sh) and booted from the BLS
# entry's image and initramfs; inside, tests/vm/full_test.sh with the
# entry's initramfs: kernel, initrd, systemd, mmbatchd's values, drain,
# first-boot smoke, rollback, the units' sandboxes.
if [ "${DNF_TEST_VM:-1}" = 0 ]; then
	skip "boot of $kver1 from the RPM host" "DNF_TEST_VM=0"
else
	# shellcheck source=tests/vm/host.sh
	. "$TOP/tests/vm/host.sh"
	vmroot=$work/vmroot logs=$OUT/vm/check
	mkdir -p "$vmroot" "$logs"
	tar -C "$root" --one-file-system -cf - . | tar -C "$vmroot" -xpf -
	"$TOP/tools/vmtest/rootfs-finish.sh" "$vmroot" /dev/vda
	mkfs.ext4 -q -L vmroot -d "$vmroot" "$work/rootfs.img" 2048M
	rm -rf "$vmroot"
	entry=$root/boot/$token/$kver1
	t1=$SECONDS vrc=0
	"$TOP/tools/vmtest/vmtest" boot "$entry/linux" --rootfs "$work/rootfs.img" --initramfs "$entry/initrd" \
		--timeout "${VM_FULL_TIMEOUT:-900}" --log "$logs/rpmhost-6.12.console" \
		--add "$TOP/tests/vm/lib.sh" --add "$TOP/tests/vm/full_test.sh" \
		-- sh full_test.sh "$kver1" "$(sha256sum <"$entry/initrd" | cut -d' ' -f1)" "/boot/$token/$kver1/initrd" \
		>"$logs/rpmhost-6.12.out" || vrc=$?
	echo "$TEST_NAME: the boot took $((SECONDS - t1)) s (vmtest exit $vrc)"
	rm -f "$work/rootfs.img"
	guest_results "$logs/rpmhost-6.12.out"
	guest_splats "$logs/rpmhost-6.12.out" "$logs/rpmhost-6.12.console"
	expect_match "the guest's checks ran to their end" '^summary: [0-9]+ ok, [0-9]+ failed, [0-9]+ not live$' \
		"@$logs/rpmhost-6.12.out"
	expect_status "vmtest boot (console $logs/rpmhost-6.12.console)" 0 "$vrc"
fi

echo "- dnf upgrade to the next series version (installonly: both stay)"
t1=$SECONDS
capture rc rt_next_series "$BUILD"
expect_ok "the next series built (once) and packaged (KB_BUILD_DIR=$rt_next_build, $((SECONDS - t1)) s)" "$rc" "$rc_out"
kernel_rpm2=$(rt_packages "$rt_next_id" KERNEL_RPM) || { fail "the next series' KERNEL_RPM (see above)"; exit 1; }
kver2=$(bid_get "$rt_next_id" KERNELRELEASE)
knevr2=$(rpm -qp --nosignature --qf '%{NAME}-%{VERSION}-%{RELEASE}' "$kernel_rpm2")
expect_eq "the next series: the same package name" "$kname" "$(rpm -qp --nosignature --qf '%{NAME}' "$kernel_rpm2")"
publish "$kernel_rpm2"
serve
t1=$SECONDS
dnf_root upgrade
expect_ok "dnf upgrade ($((SECONDS - t1)) s)" "$rc" "$rc_out"
expect_eq "rpm -q $kname: both releases" "$(printf '%s\n' "$knevr1" "$knevr2" | LC_ALL=C sort)" \
	"$(rpm --root "$root" -q --qf '%{NAME}-%{VERSION}-%{RELEASE}\n' "$kname" 2>&1 | LC_ALL=C sort)"
check_entry "$kver2"
check_entry "$kver1"

echo "- dnf remove: nothing of a removed kernel stays"
dnf_root remove "$knevr1"
expect_ok "dnf remove $knevr1" "$rc" "$rc_out"
expect_eq "rpm -q $kname after the removal" "$knevr2" "$(rpm --root "$root" -q --qf '%{NAME}-%{VERSION}-%{RELEASE}\n' "$kname" 2>&1)"
left=$(snapshot | grep -F -- "$kver1" || true)
expect_eq "paths naming $kver1 after its removal" "" "$left"
expect_file "the other kernel's entry stays" "$root/boot/loader/entries/$token-$kver2.conf"
dnf_root remove "$kname" mmbatchd
expect_ok "dnf remove $kname mmbatchd" "$rc" "$rc_out"
expect_eq "the host's files after removing everything (- before, + after)" "$before" "$(snapshot)"

echo "- a failing kernel-install plugin is reported"
mkdir -p "$root/etc/kernel/install.d"
printf '#!/bin/sh\necho "10-mmbatch-test-fail.install: refusing $2" >&2\nexit 1\n' \
	>"$root/etc/kernel/install.d/10-mmbatch-test-fail.install"
chmod 0755 "$root/etc/kernel/install.d/10-mmbatch-test-fail.install"
dnf_root install "$knevr2"
expect_match "dnf reports the scriptlet's failure" "^Error in POSTTRANS scriptlet in rpm package $(re_quote "$kname")\$" "$rc_out"
expect_match "dnf shows the plugin's message" "^10-mmbatch-test-fail.install: refusing $(re_quote "$kver2")\$" "$rc_out"
expect_match "dnf history marks the transaction's scriptlet errors" '\| +[0-9]+ E' \
	"$(dnf --installroot="$root" --releasever=12 --noplugins -C history list 2>&1 | sed -n 3p)"
expect_absent "no BLS entry for a failed kernel-install" "$root/boot/loader/entries/$token-$kver2.conf"
rm "$root/etc/kernel/install.d/10-mmbatch-test-fail.install"
