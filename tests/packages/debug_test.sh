#!/bin/bash
# The debug variant's packages (DEBUG=1: release and names end in +debug)
# install beside the normal packages of the same base:
#   - every package name differs (DEB image, headers, meta-package; RPM
#     kernel and devel), the debug ones carry +debug;
#   - their file lists are disjoint apart from directories (dpkg-deb -c,
#     rpm -qlp): /boot/vmlinuz-<release>, /lib/modules/<release>, the docs
#     dirs are each release's own;
#   - rpm -i --test --nodeps of all four RPMs together, into an empty rpm
#     database, reports no conflict;
#   - lintian and rpmlint accept the names with '+' (image DEB, meta DEB,
#     kernel RPM of the debug build; the headers lint like the normal ones').
# (dpkg -i of both images into one chroot, both kernels then installed: the
# chroot test, which check-packages gives the debug build too.)
#   debug_test.sh NORMAL_BUILD DEBUG_BUILD   (identity files, both packaged)
set -eu

usage() { echo "usage: debug_test.sh out/build/<base>-guest/mmbatch-build.env out/build/<base>-guest-debug/mmbatch-build.env" >&2; exit 2; }
[ $# -eq 2 ] && [ -r "$1" ] && [ -r "$2" ] || usage
. "$(dirname "$0")/lib.sh"
normal=$1 debug=$2

expect_eq "identity DEBUG of the normal build" 0 "$(bid_get "$normal" DEBUG 2>&1)"
expect_eq "identity DEBUG of the debug build" 1 "$(bid_get "$debug" DEBUG 2>&1)"
expect_eq "same base" "$(bid_get "$normal" BASE 2>&1)" "$(bid_get "$debug" BASE 2>&1)"
release=$(bid_get "$debug" KERNELRELEASE)
expect_eq "debug release = the normal one + '+debug'" "$(bid_get "$normal" KERNELRELEASE 2>&1)+debug" "$release"
echo "$TEST_NAME: $(bid_get "$normal" KERNELRELEASE) beside $release"
scratch

# files DEB|RPM: the package's non-directory paths, sorted.
files() {
	case $1 in
	*.deb) dpkg-deb -c "$1" | awk '$1 !~ /^d/ { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +\./, ""); sub(/ -> .*/, ""); print }' ;;
	*.rpm) rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null | awk '$1 !~ /^d/ { print $2 }' ;;
	esac | LC_ALL=C sort -u
}
name() {
	case $1 in
	*.deb) dpkg-deb -f "$1" Package ;;
	*.rpm) rpm -qp --qf '%{NAME}' "$1" 2>/dev/null ;;
	esac
}

echo "- names and file lists"
for key in IMAGE_DEB HEADERS_DEB META_DEB KERNEL_RPM DEVEL_RPM; do
	a=$(pk_get "$normal" "$key") b=$(pk_get "$debug" "$key")
	na=$(name "$a") nb=$(name "$b")
	expect_match "$key name of the debug build" '\+debug' "$nb"
	if [ -n "$na" ] && [ "$na" != "$nb" ]; then pass "$key names differ: $na, $nb"
	else fail "$key names: '$na' and '$nb' (expected two different names)"; fi
	fa=$(files "$a") fb=$(files "$b")
	expect_eq "$key files shared by both (apart from directories; $(grep -c . <<<"$fa") and $(grep -c . <<<"$fb") files)" "" \
		"$(LC_ALL=C comm -12 <(echo "$fa") <(echo "$fb") | head -n 5)"
done
expect_contains "debug image DEB: its own kernel" "/boot/vmlinuz-$release" "$(files "$(pk_get "$debug" IMAGE_DEB)")"
expect_contains "debug kernel RPM: its own kernel" "/lib/modules/$release/vmlinuz" "$(files "$(pk_get "$debug" KERNEL_RPM)")"

echo "- rpm -i --test --nodeps of both builds' RPMs together"
rpms=()
for b in "$normal" "$debug"; do rpms+=("$(pk_get "$b" KERNEL_RPM)" "$(pk_get "$b" DEVEL_RPM)"); done
mkdir -p "$T/rpmroot"
rpm --root "$T/rpmroot" --initdb
capture rc rpm --root "$T/rpmroot" -i --test --nodeps --noscripts "${rpms[@]}"
# shellcheck disable=SC2154 # rc_out is set by capture
expect_ok "rpm -i --test --nodeps ${rpms[*]##*/}" "$rc" "$rc_out"
expect_lacks "rpm -i --test: no conflict" "conflicts" "$rc_out"
# The check can fail: a package that also ships the debug kernel's vmlinuz.
mkdir -p "$T/rpmbuild"
cat >"$T/conflict.spec" <<EOF
Name: mmbatch-test-conflict
Version: 1
Release: 1
Summary: ships /lib/modules/$release/vmlinuz
License: MIT
BuildArch: noarch
%description
debug_test.sh's conflicting package.
%install
mkdir -p %{buildroot}/lib/modules/$release
echo conflict >%{buildroot}/lib/modules/$release/vmlinuz
%files
/lib/modules/$release/vmlinuz
EOF
rpmbuild -bb --quiet --define "_topdir $T/rpmbuild" "$T/conflict.spec" >"$T/conflict.log" 2>&1 || cat "$T/conflict.log"
capture rc rpm --root "$T/rpmroot" -i --test --nodeps --noscripts "$(pk_get "$debug" KERNEL_RPM)" "$T"/rpmbuild/RPMS/noarch/mmbatch-test-conflict-1-1.noarch.rpm
expect_fails "rpm -i --test of the debug kernel RPM and a package with its vmlinuz" \
	"/lib/modules/$(re_quote "$release")/vmlinuz conflicts" "$rc" "$rc_out"

echo "- lint of the +debug names"
t0=$SECONDS
capture rc "$TOP/tools/pkg/lint.sh" "$(pk_get "$debug" IMAGE_DEB)" "$(pk_get "$debug" META_DEB)" "$(pk_get "$debug" KERNEL_RPM)"
printf '%s\n' "$rc_out" | sed 's/^/    /'
expect_ok "lint.sh of the debug image DEB, meta DEB and kernel RPM ($((SECONDS - t0)) s)" "$rc" "$rc_out"
