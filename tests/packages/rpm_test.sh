#!/bin/bash
# The kernel RPM's scriptlets and payload, against the DEB of the same build:
#   - %posttrans runs `kernel-install add <kver> /lib/modules/<kver>/vmlinuz`,
#     %preun `kernel-install remove <kver>`, unconditionally: a removed
#     installonly instance is its release going (rpm -qp --scripts);
#   - the payload (rpm2cpio | cpio) holds the Fedora layout, and its image,
#     System.map, config and modules are byte-identical to the DEB's: both
#     formats come from one build.
#   rpm_test.sh BUILD   (the build's identity file, packaged)
set -eu

usage() { echo "usage: rpm_test.sh out/build/<name>/mmbatch-build.env" >&2; exit 2; }
[ $# -eq 1 ] && [ -r "$1" ] || usage
. "$(dirname "$0")/lib.sh"

IMAGE_DEB=$(pk_get "$1" IMAGE_DEB)
KERNEL_RPM=$(pk_get "$1" KERNEL_RPM)
[ -f "$IMAGE_DEB" ] && [ -f "$KERNEL_RPM" ] || { echo "ERROR: $1: IMAGE_DEB $IMAGE_DEB or KERNEL_RPM $KERNEL_RPM missing" >&2; exit 2; }
kver=$(pk_kver "$IMAGE_DEB")
kre=$(re_quote "$kver")
echo "$TEST_NAME: $(basename "$KERNEL_RPM") ($kver)"
scratch
work=$T

echo "- scriptlets"
scripts=$(rpm -qp --scripts "$KERNEL_RPM" 2>/dev/null)
posttrans=$(printf '%s\n' "$scripts" | awk '/^posttrans scriptlet/ { on = 1; next } /scriptlet/ { on = 0 } on')
preun=$(printf '%s\n' "$scripts" | awk '/^preuninstall scriptlet/ { on = 1; next } /scriptlet/ { on = 0 } on')
expect_match "%posttrans" "^/usr/bin/kernel-install add $kre /lib/modules/$kre/vmlinuz( |\$)" "$posttrans"
expect_match "%preun" "^/usr/bin/kernel-install remove $kre( |\$)" "$preun"
expect_no_match "%preun: no condition on \$1 (it counts instances of the name, not of this release)" '\$1|\$\{1' "$preun"
expect_no_match "%posttrans" '\|\| *(true|:)|exit 0' "$posttrans"

echo "- payload"
mkdir "$work/rpm" "$work/deb"
rpm2cpio "$KERNEL_RPM" | (cd "$work/rpm" && cpio -idm --quiet)
dpkg-deb -x "$IMAGE_DEB" "$work/deb"
for f in vmlinuz System.map config; do
	expect_file "RPM payload" "$work/rpm/lib/modules/$kver/$f"
done
same() { cmp -s "$1" "$2" && echo identical || echo different; }
expect_eq "RPM vmlinuz vs DEB /boot/vmlinuz-$kver" identical \
	"$(same "$work/rpm/lib/modules/$kver/vmlinuz" "$work/deb/boot/vmlinuz-$kver")"
expect_eq "RPM System.map vs DEB" identical \
	"$(same "$work/rpm/lib/modules/$kver/System.map" "$work/deb/boot/System.map-$kver")"
expect_eq "RPM config vs DEB" identical "$(same "$work/rpm/lib/modules/$kver/config" "$work/deb/boot/config-$kver")"
# The module trees: same names, same bytes.
mods() { (cd "$1/lib/modules/$kver" && find . ! -name vmlinuz ! -name System.map ! -name config -type f -exec sha256sum {} + | sort -k2); }
expect_eq "modules (RPM vs DEB, differing files)" "" "$(diff <(mods "$work/rpm") <(mods "$work/deb") | grep '^[<>]' | head -n 5 | tr '\n' ' ')"
