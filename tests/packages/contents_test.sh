#!/bin/bash
# Content checks of one kernel build's packages (dpkg-deb -c / -f / -I,
# rpm -qlp / -q --provides) and, with a second manifest, the mmbatchd ones.
#   contents_test.sh out/packages/kernel-<kver>.paths [out/packages/mmbatchd.paths]
# Exit 1 when any check fails; every check prints expected and actual.
set -eu

usage() { echo "usage: contents_test.sh KERNEL.paths [MMBATCHD.paths]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] && [ -r "$1" ] || usage
. "$(dirname "$0")/lib.sh"

# load_paths FILE: the manifest's KEY=PATH lines as variables.
load_paths() {
	local key path
	while IFS='=' read -r key path; do
		[[ "$key" =~ ^[A-Z_]+$ ]] || { echo "ERROR: $1: bad line '$key=$path'" >&2; exit 2; }
		printf -v "$key" '%s' "$path"
	done <"$1"
}

# deb_list DEB: installed paths ("/x", symlinks as "/x -> target").
deb_list() { dpkg-deb -c "$1" | awk '{ $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +\./, ""); print }' | sed 's|/$||'; }

IMAGE_DEB='' HEADERS_DEB='' DBG_DEB='' META_DEB='' KERNEL_RPM='' DEVEL_RPM='' DEBUGINFO_RPM=''
load_paths "$1"
kver=$(dpkg-deb -f "$IMAGE_DEB" Package | sed 's/^linux-image-//')
flavor=${kver##*-}
base=$(echo "$kver" | cut -d. -f1-2)
kre=$(t_re "$kver")
echo "$T_NAME: kernel $kver"

echo "- image DEB $(basename "$IMAGE_DEB")"
list=$(deb_list "$IMAGE_DEB")
for f in /boot/vmlinuz-$kver /boot/System.map-$kver /boot/config-$kver /lib/modules/$kver/modules.builtin \
	/usr/share/doc/linux-image-$kver/config-report.txt /usr/share/doc/linux-image-$kver/copyright \
	/usr/share/doc/linux-image-$kver/changelog.Debian.gz; do
	t_has "image DEB" "$list" "$f"
done
t_lacks "image DEB" "$list" "^/lib/modules/$kre/(build|source)"
t_eq "image file name" "linux-image-${kver}_$kver-1_amd64.deb" "$(basename "$IMAGE_DEB")"
t_eq "image Depends" "kmod, dracut" "$(dpkg-deb -f "$IMAGE_DEB" Depends)"
for s in preinst postinst prerm postrm; do
	t_match "image $s" "$(dpkg-deb -I "$IMAGE_DEB" "$s")" \
		'run-parts --report --exit-on-error --arg="\$kver" --arg="\$image" "/etc/kernel/\$script.d"'
done
report=$(dpkg-deb --fsys-tarfile "$IMAGE_DEB" | tar -xOf - "./usr/share/doc/linux-image-$kver/config-report.txt")
t_match "config report" "$report" "^release: +$kre\$"

echo "- headers DEB $(basename "$HEADERS_DEB")"
list=$(deb_list "$HEADERS_DEB")
hdr=/usr/src/linux-headers-$kver
for f in "$hdr/Makefile" "$hdr/.config" "$hdr/include/config/auto.conf" "$hdr/include/generated/autoconf.h" \
	"$hdr/scripts/basic/fixdep" "$hdr/scripts/mod/modpost" "$hdr/arch/x86/include/generated/uapi/asm/unistd_64.h" \
	"/lib/modules/$kver/build -> $hdr"; do
	t_has "headers DEB" "$list" "$f"
done
t_lacks "headers DEB" "$list" '\.o$|/\.[^/]*\.cmd$'

echo "- debug package"
config=$(dpkg-deb --fsys-tarfile "$IMAGE_DEB" | tar -xOf - "./boot/config-$kver")
if [[ $'\n'"$config"$'\n' == *$'\nCONFIG_DEBUG_INFO=y\n'* ]]; then
	t_file "dbg DEB" "$DBG_DEB"
	t_has "dbg DEB" "$(deb_list "$DBG_DEB")" "/usr/lib/debug/lib/modules/$kver/vmlinux"
	t_file "debuginfo RPM" "$DEBUGINFO_RPM"
else
	t_eq "dbg DEB without debug info (CONFIG_DEBUG_INFO unset)" "" "$DBG_DEB"
	t_eq "debuginfo RPM without debug info" "" "$DEBUGINFO_RPM"
fi

echo "- meta-package"
if [[ "$kver" =~ ^([0-9][0-9.]*)-mmbatch([0-9]+)-(.+)$ ]]; then
	up=${BASH_REMATCH[1]} series=${BASH_REMATCH[2]} suffix=${BASH_REMATCH[3]}
	mver=$up+mmbatch$series-1 meta=linux-image-mmbatch-${up%.*}-$suffix
	t_eq "meta file name" "${meta}_${mver}_amd64.deb" "$(basename "$META_DEB")"
	t_eq "meta Depends (this release's image, exactly)" "linux-image-$kver (= $kver-1)" \
		"$(dpkg-deb -f "$META_DEB" Depends 2>&1)"
	t_eq "meta payload (docs only)" "/usr/share/doc/$meta/changelog.Debian.gz /usr/share/doc/$meta/copyright" \
		"$(deb_list "$META_DEB" 2>&1 | grep -v '/$' | awk '$0 !~ /^(\/usr(\/share(\/doc(\/linux-image-mmbatch-[^/]*)?)?)?)?$/' | tr '\n' ' ' | sed 's/ $//')"
	# The version must sort above the previous series and upstream release
	# and below the next ones, or `apt-get upgrade` goes the wrong way.
	for older in "$up+mmbatch$((series - 1))-1" "$up+mmbatch$series-0" "${up%.*}.$((${up##*.} - 1))+mmbatch$((series + 1))-1"; do
		t_eq "meta version $mver > $older" yes "$(dpkg --compare-versions "$mver" gt "$older" && echo yes || echo no)"
	done
	for newer in "$up+mmbatch$((series + 1))-1" "${up%.*}.$((${up##*.} + 1))+mmbatch1-1"; do
		t_eq "meta version $mver < $newer" yes "$(dpkg --compare-versions "$mver" lt "$newer" && echo yes || echo no)"
	done
else
	t_eq "no meta-package for a non-series release ($kver)" "" "$META_DEB"
fi

echo "- kernel RPM $(basename "$KERNEL_RPM")"
t_match "RPM file name (flavor, series, version)" "$(basename "$KERNEL_RPM")" \
	"^mmbatch-kernel-$(t_re "$base")-$flavor-[0-9.]+-(mmbatch[0-9]+|vanilla)[a-z0-9.]*\.x86_64\.rpm\$"
list=$(rpm -qlp "$KERNEL_RPM" 2>/dev/null)
for f in /lib/modules/$kver/vmlinuz /lib/modules/$kver/System.map /lib/modules/$kver/config \
	/lib/modules/$kver/modules.builtin /boot/vmlinuz-$kver /boot/initramfs-$kver.img; do
	t_has "kernel RPM" "$list" "$f"
done
t_match "kernel RPM docs" "$list" "^/usr/share/doc/mmbatch-kernel-$(t_re "$base")-$flavor-.*/config-report.txt\$"
t_lacks "kernel RPM" "$list" "^/lib/modules/$kre/build\$"
t_has "kernel RPM provides" "$(rpm -qp --provides "$KERNEL_RPM" 2>/dev/null)" "installonlypkg(kernel)"
t_has "kernel RPM ghosts" "$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$KERNEL_RPM" 2>/dev/null)" \
	"g /boot/initramfs-$kver.img"
list=$(rpm -qlp "$DEVEL_RPM" 2>/dev/null)
t_has "devel RPM" "$list" "/usr/src/kernels/$kver/Makefile"
t_has "devel RPM" "$list" "/lib/modules/$kver/build"

if [ $# -eq 2 ]; then
	MMBATCHD_DEB='' MMBATCHD_RPM=''
	load_paths "$2"
	echo "- mmbatchd DEB $(basename "$MMBATCHD_DEB")"
	list=$(deb_list "$MMBATCHD_DEB")
	for f in /usr/sbin/mmbatchd /usr/bin/mmbench /etc/mmbatch/mmbatchd.yaml /lib/systemd/system/mmbatchd.service \
		/usr/share/mmbatch/profiles/default.yaml /usr/sbin/mmbatchctl /lib/systemd/system/mmbatch-canary.service; do
		t_has "mmbatchd DEB" "$list" "$f"
	done
	t_has "mmbatchd conffiles" "$(dpkg-deb -I "$MMBATCHD_DEB" conffiles)" /etc/mmbatch/mmbatchd.yaml
	t_match "mmbatchd postinst" "$(dpkg-deb -I "$MMBATCHD_DEB" postinst)" 'deb-systemd-helper enable "\$unit"'
	conf=$(dpkg-deb --fsys-tarfile "$MMBATCHD_DEB" | tar -xOf - ./etc/mmbatch/mmbatchd.yaml)
	t_match "mmbatchd.yaml" "$conf" '^include: \[default\.yaml\]$'
	echo "- mmbatchd RPM $(basename "$MMBATCHD_RPM")"
	list=$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$MMBATCHD_RPM" 2>/dev/null)
	t_has "mmbatchd RPM" "$list" "cn /etc/mmbatch/mmbatchd.yaml"
	t_has "mmbatchd RPM" "$list" " /usr/sbin/mmbatchd"
	t_has "mmbatchd RPM" "$list" " /lib/systemd/system/mmbatchd.service"
	t_has "mmbatchd RPM" "$list" " /usr/sbin/mmbatchctl"
	t_has "mmbatchd RPM" "$list" " /lib/systemd/system/mmbatch-canary.service"
	t_match "mmbatchd RPM %post" "$(rpm -qp --scripts "$MMBATCHD_RPM" 2>/dev/null)" 'for unit in mmbatchd.service'
fi
t_done
