# shellcheck shell=bash
# An approximate RPM host for the tests (sourced). No Fedora or RHEL archive
# is reachable here, so the host is a Debian chroot (tools/pkg/mkchroot.sh,
# with Debian's rpm and dnf) whose rpm database starts empty: Debian's rpm,
# dnf, kernel-install (systemd) and dracut stand in for Fedora's. The
# stand-in package rpmhost/mmbatch-test-rpmhost.spec tells that database
# which requirements of our RPMs the root supplies, and adds the
# kernel-install plugin that Fedora's dracut has and Debian's lacks. The
# host uses the BLS layout (/etc/kernel/install.conf layout=bls), as Fedora
# does.
#   rpmhost_unpack ROOT         the chroot (Debian 12 with Debian's rpm and
#                               dnf: MKCHROOT_EXTRA=rpm,dnf), unpacked into
#                               ROOT and mounted (/proc, /sys, /dev, /run),
#                               with a policy-rc.d that starts nothing
#   rpmhost_provides ROOT RPM...
#                               the requirements of the RPMs that ROOT
#                               supplies, one a line (see below)
#   rpmhost_prepare ROOT WORK RPM...
#                               ROOT: an unpacked chroot; WORK: a scratch
#                               dir for the stand-in's rpmbuild; RPM...: the
#                               packages the test will install. Prints the
#                               entry token (ROOT's machine-id); fails with
#                               one line naming what went wrong.
# Needs root, rpm, rpmbuild and readelf (binutils).

_rpmhost_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/rpmhost
_rpmhost_mkchroot=$(cd "$_rpmhost_dir/../../.." && pwd)/tools/pkg/mkchroot.sh
# The chroot's extra packages (its tarball's key): also what make check's
# chroots stage (tests/prebuild/chroots.sh) makes ahead.
RPMHOST_MKCHROOT_EXTRA=rpm,dnf

rpmhost_unpack() {
	MKCHROOT_EXTRA=$RPMHOST_MKCHROOT_EXTRA "$_rpmhost_mkchroot" unpack "$1" && "$_rpmhost_mkchroot" mount "$1" || return
	# No service starts inside the chroot (Debian's maintainer scripts ask).
	printf '#!/bin/sh\nexit 101\n' >"$1/usr/sbin/policy-rc.d"
	chmod 0755 "$1/usr/sbin/policy-rc.d"
}

# A requirement is supplied when the root has it, as rpm on Fedora would
# find it provided by a package:
#   /path                          the file exists in the root;
#   SONAME()(64bit)                the library is in the root's multiarch
#   SONAME(NODE)(64bit)            dir (and defines version NODE: readelf);
#   rtld(GNU_HASH)                 the root's dynamic loader exists;
#   NAME                           Debian's package NAME is installed;
#   rpmlib(...), config(...)       rpm's own and the package's own: left out.
# Anything else is not supplied, and dnf will say so.
rpmhost_provides() {
	local root=$1 req soname node lib
	shift
	rpm -qp --nosignature --requires "$@" 2>/dev/null | sed 's/ .*//' | LC_ALL=C sort -u | while read -r req; do
		case $req in
		rpmlib\(*|config\(*) ;;
		/*) if [ -e "$root$req" ] || [ -L "$root$req" ]; then echo "$req"; fi ;;
		'rtld(GNU_HASH)') if [ -e "$root/lib64/ld-linux-x86-64.so.2" ]; then echo "$req"; fi ;;
		*.so.*'('*')(64bit)')
			soname=${req%%(*} node=${req#*(}
			node=${node%%)*}
			lib=$(chroot "$root" readlink -e "/usr/lib/x86_64-linux-gnu/$soname" 2>/dev/null) || continue
			if [ -z "$node" ] || readelf -V -W "$root$lib" 2>/dev/null | grep -q "Name: $node\$"; then echo "$req"; fi ;;
		*'('*) ;;
		*) if [ "$(chroot "$root" dpkg-query -W -f='${Status}' "$req" 2>/dev/null)" = "install ok installed" ]; then echo "$req"; fi ;;
		esac
	done
}

rpmhost_prepare() {
	local root=$1 work=$2 token provides
	shift 2
	token=$(cat "$root/etc/machine-id" 2>/dev/null) || true
	[ -n "$token" ] || { echo "ERROR: rpmhost: $root/etc/machine-id is missing or empty" >&2; return 1; }
	mkdir -p "$root/etc/kernel" "$work/rpmbuild/SPECS"
	echo layout=bls >"$root/etc/kernel/install.conf"
	# What Fedora's image and installer make: the entries dir, the
	# entry-token dir, dnf's repository dir, and the modules dir that
	# Fedora's filesystem package owns.
	mkdir -p "$root/boot/loader/entries" "$root/boot/$token" "$root/etc/yum.repos.d" "$root/usr/lib/modules"
	# The installer's kernel command line, which kernel-install writes into
	# each entry (without it, the /proc/cmdline of the machine running the
	# test).
	echo "root=/dev/vda ro console=ttyS0" >"$root/etc/kernel/cmdline"
	provides=$(rpmhost_provides "$root" "$@")
	echo "rpmhost: the stand-in provides $(echo $provides)" >&2
	awk -v p="$provides" '$0 == "#@PROVIDES@" { n = split(p, l, "\n"); for (i = 1; i <= n; i++) print "Provides:       " l[i]; next } { print }' \
		"$_rpmhost_dir/mmbatch-test-rpmhost.spec" >"$work/rpmbuild/SPECS/mmbatch-test-rpmhost.spec"
	rpmbuild -bb --quiet --define "_topdir $work/rpmbuild" --define "plugin $_rpmhost_dir/50-dracut.install" \
		"$work/rpmbuild/SPECS/mmbatch-test-rpmhost.spec" >"$work/rpmbuild.log" 2>&1 ||
		{ tail -n 5 "$work/rpmbuild.log" >&2; echo "ERROR: rpmhost: rpmbuild of the stand-in failed (above)" >&2; return 1; }
	rpm --root "$root" --initdb
	rpm --root "$root" --force-debian -i "$work/rpmbuild/RPMS/noarch/mmbatch-test-rpmhost-1-1.noarch.rpm" ||
		{ echo "ERROR: rpmhost: rpm -i of the stand-in into $root failed" >&2; return 1; }
	echo "$token"
}
