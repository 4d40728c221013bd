#!/bin/bash
# The state tree /var/lib/mmbatch (pending marks, verdicts, the canary's
# history) is root's alone, 0700 root:root, whoever makes it (issue 41: the
# kernel hook and the RPM's %dir made it 0755, readable by all). Each maker
# run against a scratch root under umask 022, as a package manager runs it:
#   - the Debian postinst.d hook and the kernel-install plugin: a new tree is
#     made 0700 (state dir and pending/), the mark 0600; a tree an older
#     hook left 0755 is fixed to 0700;
#   - the RPM spec's %install (the modes its %dir entries get): 0700;
#   - the DEB's postinst configure (in a mount namespace of its own, with
#     /var/lib bound to a scratch dir and the systemd helpers stubbed): makes
#     /var/lib/mmbatch and pending/ 0700 root:root, and fixes a 0755 one.
# Owners are checked when run as root (the hooks' and postinst's case).
. "$(dirname "$0")/lib.sh"
setup
umask 022

postinst=$TOP/systemd/postinst.d/zz-mmbatch-smoke
plugin=$TOP/systemd/kernel-install/90-mmbatch-smoke.install
root_user=0
[ "$(id -u)" != 0 ] || root_user=1

# expect_private WHAT DIR: DIR is 0700 (and root:root when we are root).
expect_private() {
	expect_eq "$1: mode of $2" 700 "$(stat -c %a "$2" 2>&1)"
	if [ $root_user = 1 ]; then
		expect_eq "$1: owner of $2" root:root "$(stat -c %U:%G "$2" 2>&1)"
	fi
}

echo "- the kernel hooks, a new state tree"
for hook in postinst plugin; do
	st=$T/$hook-new/var/lib/mmbatch
	mkdir -p "$(dirname "$st")"
	if [ $hook = postinst ]; then
		run_cmd "$hook" env MMBATCH_STATE_DIR="$st" "$postinst" 6.12.117-mmbatch1-cloud /boot/vmlinuz-6.12.117-mmbatch1-cloud
	else
		run_cmd "$hook" env MMBATCH_STATE_DIR="$st" "$plugin" add 6.12.117-mmbatch1-cloud /boot/efi/x /boot/vmlinuz-6.12.117-mmbatch1-cloud
	fi
	expect_eq "$hook: exit" 0 "$RC"
	expect_private "$hook, new tree" "$st"
	expect_private "$hook, new tree" "$st/pending"
	expect_eq "$hook: mode of the mark" 600 "$(stat -c %a "$st/pending/6.12.117-mmbatch1-cloud" 2>&1)"
done

echo "- the kernel hooks, a tree an older hook left 0755"
for hook in postinst plugin; do
	st=$T/$hook-old/var/lib/mmbatch
	mkdir -p "$st/pending"
	chmod 0755 "$st" "$st/pending"
	if [ $hook = postinst ]; then
		run_cmd "$hook" env MMBATCH_STATE_DIR="$st" "$postinst" 6.1.158-mmbatch1-cloud
	else
		run_cmd "$hook" env MMBATCH_STATE_DIR="$st" "$plugin" add 6.1.158-mmbatch1-cloud /boot/efi/x
	fi
	expect_eq "$hook (0755 tree): exit" 0 "$RC"
	expect_private "$hook, 0755 tree fixed" "$st"
	expect_private "$hook, 0755 tree fixed" "$st/pending"
done

echo "- the RPM spec's %install (the modes of its %dir entries)"
spec=$TOP/specs/mmbatchd.spec
br=$T/buildroot
mkdir -p "$T/stage"
# %install's body, up to the next section, with its two macros.
sed -n '/^%install$/,/^%[a-z]/{/^%/d;p}' "$spec" |
	sed -e "s|%{buildroot}|$br|g" -e "s|%{stage}|$T/stage|g" -e 's/%%/%/g' > "$T/install.sh"
expect_match "spec: %install makes the state dir" 'var/lib/mmbatch' "@$T/install.sh"
run_cmd spec sh -e "$T/install.sh"
expect_eq "spec %install: exit" 0 "$RC"
for d in "$br/var/lib/mmbatch" "$br/var/lib/mmbatch/pending"; do
	expect_eq "spec %install: mode of $d" 700 "$(stat -c %a "$d" 2>&1)"
done
expect_match "spec: %files keeps the buildroot's modes" '^%defattr\(-,root,root,-\)$' "@$spec"

echo "- the DEB's postinst configure"
if [ $root_user = 0 ]; then
	skip "DEB postinst" "needs root (a mount namespace with /var/lib bound to a scratch dir)"
elif ! unshare -m --propagation private true 2> /dev/null; then
	skip "DEB postinst" "unshare -m does not work here"
else
	mkdir -p "$T/stubs"
	for s in deb-systemd-helper deb-systemd-invoke systemctl; do
		printf '#!/bin/sh\nexit 0\n' > "$T/stubs/$s"
		chmod 0755 "$T/stubs/$s"
	done
	# postinst_in VARLIB: the DEB's postinst configure with VARLIB as /var/lib.
	postinst_in() {
		run_cmd deb unshare -m --propagation private sh -c \
			'mount --bind "$1" /var/lib && PATH="$2:/usr/sbin:/usr/bin:/sbin:/bin" sh "$3" configure' \
			sh "$1" "$T/stubs" "$TOP/specs/deb/mmbatchd.postinst"
	}
	mkdir -p "$T/varlib-new"
	postinst_in "$T/varlib-new"
	expect_eq "DEB postinst configure: exit" 0 "$RC"
	expect_private "DEB postinst, new tree" "$T/varlib-new/mmbatch"
	expect_private "DEB postinst, new tree" "$T/varlib-new/mmbatch/pending"
	mkdir -p "$T/varlib-old/mmbatch/pending"
	chmod 0755 "$T/varlib-old/mmbatch" "$T/varlib-old/mmbatch/pending"
	postinst_in "$T/varlib-old"
	expect_eq "DEB postinst configure (0755 tree): exit" 0 "$RC"
	expect_private "DEB postinst, 0755 tree fixed" "$T/varlib-old/mmbatch"
	expect_private "DEB postinst, 0755 tree fixed" "$T/varlib-old/mmbatch/pending"
fi
test_summary
