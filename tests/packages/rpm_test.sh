#!/bin/bash
# The kernel RPM's scriptlets and payload, against the DEB of the same build:
#   - %posttrans runs `kernel-install add <kver> /lib/modules/<kver>/vmlinuz`,
#     %postun `kernel-install remove <kver>` (rpm -qp --scripts);
#   - the payload (rpm2cpio | cpio) holds the Fedora layout, and its image,
#     System.map, config and modules are byte-identical to the DEB's: both
#     formats come from one build.
#   rpm_test.sh out/packages/kernel-<kver>.paths
set -eu

usage() { echo "usage: rpm_test.sh KERNEL.paths" >&2; exit 2; }
[ $# -eq 1 ] && [ -r "$1" ] || usage
. "$(dirname "$0")/lib.sh"

IMAGE_DEB=$(sed -n 's/^IMAGE_DEB=//p' "$1")
KERNEL_RPM=$(sed -n 's/^KERNEL_RPM=//p' "$1")
[ -f "$IMAGE_DEB" ] && [ -f "$KERNEL_RPM" ] || { echo "ERROR: $1: IMAGE_DEB or KERNEL_RPM missing" >&2; exit 2; }
kver=$(dpkg-deb -f "$IMAGE_DEB" Package | sed 's/^linux-image-//')
kre=$(t_re "$kver")
echo "$T_NAME: $(basename "$KERNEL_RPM") ($kver)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "- scriptlets"
scripts=$(rpm -qp --scripts "$KERNEL_RPM" 2>/dev/null)
posttrans=$(printf '%s\n' "$scripts" | awk '/^posttrans scriptlet/ { on = 1; next } /scriptlet/ { on = 0 } on')
postun=$(printf '%s\n' "$scripts" | awk '/^postuninstall scriptlet/ { on = 1; next } /scriptlet/ { on = 0 } on')
t_match "%posttrans" "$posttrans" "^/usr/bin/kernel-install add $kre /lib/modules/$kre/vmlinuz( |\$)"
t_match "%postun" "$postun" "/usr/bin/kernel-install remove $kre( |\$)"
t_lacks "%posttrans" "$posttrans" '\|\| *(true|:)|exit 0'

echo "- payload"
mkdir "$work/rpm" "$work/deb"
rpm2cpio "$KERNEL_RPM" | (cd "$work/rpm" && cpio -idm --quiet)
dpkg-deb -x "$IMAGE_DEB" "$work/deb"
for f in vmlinuz System.map config; do
	t_file "RPM payload" "$work/rpm/lib/modules/$kver/$f"
done
same() { cmp -s "$1" "$2" && echo identical || echo different; }
t_eq "RPM vmlinuz vs DEB /boot/vmlinuz-$kver" identical \
	"$(same "$work/rpm/lib/modules/$kver/vmlinuz" "$work/deb/boot/vmlinuz-$kver")"
t_eq "RPM System.map vs DEB" identical \
	"$(same "$work/rpm/lib/modules/$kver/System.map" "$work/deb/boot/System.map-$kver")"
t_eq "RPM config vs DEB" identical "$(same "$work/rpm/lib/modules/$kver/config" "$work/deb/boot/config-$kver")"
# The module trees: same names, same bytes.
mods() { (cd "$1/lib/modules/$kver" && find . ! -name vmlinuz ! -name System.map ! -name config -type f -exec sha256sum {} + | sort -k2); }
t_eq "modules (RPM vs DEB, differing files)" "" "$(diff <(mods "$work/rpm") <(mods "$work/deb") | grep '^[<>]' | head -n 5 | tr '\n' ' ')"
t_done
