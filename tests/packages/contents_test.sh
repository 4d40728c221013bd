#!/bin/bash
# Content checks of one kernel build's packages (dpkg-deb -c / -f / -I,
# rpm -qlp / -q --provides) and, with --mmbatchd, of the mmbatchd packages
# the same identity file records.
#   contents_test.sh [--mmbatchd] BUILD
# BUILD: the build's identity file (tools/kbuild/identity.sh), packaged
# (tools/pkg/packages.sh). Every check prints expected and actual; exit 1
# when any fails.
set -eu

usage() { echo "usage: contents_test.sh [--mmbatchd] out/build/<name>/mmbatch-build.env" >&2; exit 2; }
with_mmbatchd=0
[ "${1:-}" != --mmbatchd ] || { with_mmbatchd=1; shift; }
[ $# -eq 1 ] && [ -r "$1" ] || usage
build=$1
. "$(dirname "$0")/lib.sh"

IMAGE_DEB=$(pk_get "$build" IMAGE_DEB)
HEADERS_DEB=$(pk_get "$build" HEADERS_DEB)
KERNEL_RPM=$(pk_get "$build" KERNEL_RPM)
DEVEL_RPM=$(pk_get "$build" DEVEL_RPM)
# Only some builds have these (debug info, series releases): empty otherwise.
DBG_DEB=$(bid_get "$build" DBG_DEB 2>/dev/null) || DBG_DEB=
DEBUGINFO_RPM=$(bid_get "$build" DEBUGINFO_RPM 2>/dev/null) || DEBUGINFO_RPM=
META_DEB=$(bid_get "$build" META_DEB 2>/dev/null) || META_DEB=
kver=$(pk_kver "$IMAGE_DEB")
flavor=${kver##*-}
base=$(echo "$kver" | cut -d. -f1-2)
kre=$(re_quote "$kver")
echo "$TEST_NAME: kernel $kver ($build)"

echo "- image DEB $(basename "$IMAGE_DEB")"
list=$(deb_list "$IMAGE_DEB")
for f in /boot/vmlinuz-$kver /boot/System.map-$kver /boot/config-$kver /lib/modules/$kver/modules.builtin \
	/usr/share/doc/linux-image-$kver/config-report.txt /usr/share/doc/linux-image-$kver/copyright \
	/usr/share/doc/linux-image-$kver/changelog.Debian.gz; do
	expect_line "image DEB" "$f" "$list"
done
expect_no_match "image DEB" "^/lib/modules/$kre/(build|source)" "$list"
expect_eq "image file name" "linux-image-${kver}_$kver-1_amd64.deb" "$(basename "$IMAGE_DEB")"
expect_eq "image Depends" "kmod, dracut | linux-initramfs-tool" "$(dpkg-deb -f "$IMAGE_DEB" Depends)"
for s in preinst postinst prerm postrm; do
	expect_match "image $s" 'run-parts --report --exit-on-error --arg="\$kver" --arg="\$image" "/etc/kernel/\$script.d"' \
		"$(dpkg-deb -I "$IMAGE_DEB" "$s")"
done
report=$(dpkg-deb --fsys-tarfile "$IMAGE_DEB" | tar -xOf - "./usr/share/doc/linux-image-$kver/config-report.txt")
expect_match "config report" "^release: +$kre\$" "$report"

echo "- headers DEB $(basename "$HEADERS_DEB")"
list=$(deb_list "$HEADERS_DEB")
hdr=/usr/src/linux-headers-$kver
for f in "$hdr/Makefile" "$hdr/.config" "$hdr/include/config/auto.conf" "$hdr/include/generated/autoconf.h" \
	"$hdr/scripts/basic/fixdep" "$hdr/scripts/mod/modpost" "$hdr/arch/x86/include/generated/uapi/asm/unistd_64.h" \
	"/lib/modules/$kver/build -> $hdr"; do
	expect_line "headers DEB" "$f" "$list"
done
expect_no_match "headers DEB" '\.o$|/\.[^/]*\.cmd$' "$list"

echo "- debug package"
config=$(dpkg-deb --fsys-tarfile "$IMAGE_DEB" | tar -xOf - "./boot/config-$kver")
if [[ $'\n'"$config"$'\n' == *$'\nCONFIG_DEBUG_INFO=y\n'* ]]; then
	expect_file "dbg DEB" "$DBG_DEB"
	expect_line "dbg DEB" "/usr/lib/debug/lib/modules/$kver/vmlinux" "$(deb_list "$DBG_DEB")"
	expect_file "debuginfo RPM" "$DEBUGINFO_RPM"
else
	expect_eq "dbg DEB without debug info (CONFIG_DEBUG_INFO unset)" "" "$DBG_DEB"
	expect_eq "debuginfo RPM without debug info" "" "$DEBUGINFO_RPM"
fi

echo "- meta-package"
if [[ "$kver" =~ ^([0-9][0-9.]*)-mmbatch([0-9]+)-(.+)$ ]]; then
	up=${BASH_REMATCH[1]} series=${BASH_REMATCH[2]} suffix=${BASH_REMATCH[3]}
	mver=$up+mmbatch$series-1 meta=linux-image-mmbatch-${up%.*}-$suffix
	expect_eq "meta file name" "${meta}_${mver}_amd64.deb" "$(basename "$META_DEB")"
	expect_eq "meta Depends (this release's image, exactly)" "linux-image-$kver (= $kver-1)" \
		"$(dpkg-deb -f "$META_DEB" Depends 2>&1)"
	expect_eq "meta payload (docs only)" "/usr/share/doc/$meta/changelog.Debian.gz /usr/share/doc/$meta/copyright" \
		"$(deb_list "$META_DEB" 2>&1 | grep -v '/$' | awk '$0 !~ /^(\/usr(\/share(\/doc(\/linux-image-mmbatch-[^/]*)?)?)?)?$/' | tr '\n' ' ' | sed 's/ $//')"
	# The version must sort above the previous series and upstream release
	# and below the next ones, or `apt-get upgrade` goes the wrong way.
	for older in "$up+mmbatch$((series - 1))-1" "$up+mmbatch$series-0" "${up%.*}.$((${up##*.} - 1))+mmbatch$((series + 1))-1"; do
		expect_eq "meta version $mver > $older" yes "$(dpkg --compare-versions "$mver" gt "$older" && echo yes || echo no)"
	done
	for newer in "$up+mmbatch$((series + 1))-1" "${up%.*}.$((${up##*.} + 1))+mmbatch1-1"; do
		expect_eq "meta version $mver < $newer" yes "$(dpkg --compare-versions "$mver" lt "$newer" && echo yes || echo no)"
	done
else
	expect_eq "no meta-package for a non-series release ($kver)" "" "$META_DEB"
fi

echo "- kernel RPM $(basename "$KERNEL_RPM")"
expect_match "RPM file name (flavor, series, version)" "^mmbatch-kernel-$(re_quote "$base")-$flavor-[0-9.]+-(mmbatch[0-9]+|vanilla)[a-z0-9.]*\.x86_64\.rpm\$" \
	"$(basename "$KERNEL_RPM")"
list=$(rpm -qlp "$KERNEL_RPM" 2>/dev/null)
for f in /lib/modules/$kver/vmlinuz /lib/modules/$kver/System.map /lib/modules/$kver/config \
	/lib/modules/$kver/modules.builtin /boot/vmlinuz-$kver /boot/initramfs-$kver.img; do
	expect_line "kernel RPM" "$f" "$list"
done
expect_match "kernel RPM docs" "^/usr/share/doc/mmbatch-kernel-$(re_quote "$base")-$flavor-.*/config-report.txt\$" "$list"
expect_no_match "kernel RPM" "^/lib/modules/$kre/build\$" "$list"
expect_line "kernel RPM provides" "installonlypkg(kernel)" "$(rpm -qp --provides "$KERNEL_RPM" 2>/dev/null)"
expect_line "kernel RPM ghosts" "g /boot/initramfs-$kver.img" \
	"$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$KERNEL_RPM" 2>/dev/null)"
list=$(rpm -qlp "$DEVEL_RPM" 2>/dev/null)
expect_line "devel RPM" "/usr/src/kernels/$kver/Makefile" "$list"
expect_line "devel RPM" "/lib/modules/$kver/build" "$list"

# Each DEB and RPM pair of the build made with the compressors the
# packaging knobs name (their defaults unless set; tools/pkg/lib.sh).
want=$(. "$TOP/tools/pkg/lib.sh" && pkg_codecs_wanted)
echo "- compressors: $want (PKG_DEB_CODEC's codec, PKG_RPM_PAYLOAD)"
pairs=("$IMAGE_DEB $KERNEL_RPM" "$HEADERS_DEB $DEVEL_RPM")
[ -z "$DBG_DEB" ] || pairs+=("$DBG_DEB $DEBUGINFO_RPM")
[ $with_mmbatchd = 0 ] || pairs+=("$(pk_get "$build" MMBATCHD_DEB) $(pk_get "$build" MMBATCHD_RPM)")
for pair in "${pairs[@]}"; do
	read -r deb rpm <<<"$pair"
	expect_eq "compressors of $(basename "$deb") and $(basename "$rpm")" "$want" \
		"$(. "$TOP/tools/pkg/lib.sh" && pkg_codecs_of "$deb" "$rpm")"
done

if [ $with_mmbatchd = 1 ]; then
	MMBATCHD_DEB=$(pk_get "$build" MMBATCHD_DEB)
	MMBATCHD_RPM=$(pk_get "$build" MMBATCHD_RPM)
	echo "- mmbatchd DEB $(basename "$MMBATCHD_DEB")"
	list=$(deb_list "$MMBATCHD_DEB")
	for f in /usr/sbin/mmbatchd /usr/bin/mmbench /etc/mmbatch/mmbatchd.yaml /usr/lib/systemd/system/mmbatchd.service \
		/usr/share/mmbatch/profiles/default.yaml /usr/sbin/mmbatchctl /usr/lib/systemd/system/mmbatch-canary.service; do
		expect_line "mmbatchd DEB" "$f" "$list"
	done
	# Debian 12 and 13 are merged-/usr: a path under an alias (/lib, /bin,
	# /sbin, /lib64) is a second name dpkg does not know is the same (on
	# Debian 13, where systemd ships /usr/lib/systemd/system, purging a
	# package with /lib/systemd/system/ makes dpkg try to remove that dir).
	expect_no_match "mmbatchd DEB: paths under the merged-/usr aliases" '^/(bin|sbin|lib|lib64)(/|$)' "$list"
	expect_line "mmbatchd conffiles" /etc/mmbatch/mmbatchd.yaml "$(dpkg-deb -I "$MMBATCHD_DEB" conffiles)"
	expect_eq "mmbatchd DEB Suggests (the canary's systemd-boot setup)" systemd-boot "$(dpkg-deb -f "$MMBATCHD_DEB" Suggests)"
	expect_match "mmbatchd postinst" 'deb-systemd-helper enable "\$unit"' "$(dpkg-deb -I "$MMBATCHD_DEB" postinst)"
	conf=$(dpkg-deb --fsys-tarfile "$MMBATCHD_DEB" | tar -xOf - ./etc/mmbatch/mmbatchd.yaml)
	expect_match "mmbatchd.yaml" '^include: \[default\.yaml\]$' "$conf"
	echo "- mmbatchd RPM $(basename "$MMBATCHD_RPM")"
	list=$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$MMBATCHD_RPM" 2>/dev/null)
	expect_line "mmbatchd RPM" "cn /etc/mmbatch/mmbatchd.yaml" "$list"
	expect_line "mmbatchd RPM" " /usr/sbin/mmbatchd" "$list"
	expect_line "mmbatchd RPM" " /usr/lib/systemd/system/mmbatchd.service" "$list"
	expect_line "mmbatchd RPM" " /usr/sbin/mmbatchctl" "$list"
	expect_line "mmbatchd RPM" " /usr/lib/systemd/system/mmbatch-canary.service" "$list"
	expect_match "mmbatchd RPM %post" 'for unit in mmbatchd.service' "$(rpm -qp --scripts "$MMBATCHD_RPM" 2>/dev/null)"
	expect_match "mmbatchd RPM %post: an enabled canary unit enabled again on upgrade" 'systemctl reenable mmbatch-canary.service' \
		"$(rpm -qp --scripts "$MMBATCHD_RPM" 2>/dev/null)"
	# The state tree is root's alone (issue 41): the %dir entries 0700
	# root:root (rpm applies that on upgrade too); the DEB's postinst makes
	# and fixes it so (tests/mmbench/state_dir_test.sh runs it).
	modes=$(rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]' "$MMBATCHD_RPM" 2>/dev/null)
	expect_line "mmbatchd RPM: the state dir, root's alone" "drwx------ root:root /var/lib/mmbatch" "$modes"
	expect_line "mmbatchd RPM: pending/, root's alone" "drwx------ root:root /var/lib/mmbatch/pending" "$modes"
	expect_match "mmbatchd DEB postinst: the state tree 0700" '^	install -d -m 0700 .*"\$state" "\$state/pending"$' \
		"$(dpkg-deb -I "$MMBATCHD_DEB" postinst)"
fi
