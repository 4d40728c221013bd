#!/bin/bash
# The mmbatchd packages, DEB and RPM, from one staged tree: the built daemon
# and benchmark (out/bin/mmbatchd, out/bin/mmbench, stripped), the man pages
# (out/man, gzipped), profiles, /etc/mmbatch/mmbatchd.yaml (conffile),
# systemd units and kernel hooks, as
# listed in specs/mmbatchd/files.list. The DEB's maintainer scripts
# (specs/deb/mmbatchd.*) enable mmbatchd.service; the RPM (specs/mmbatchd.spec)
# does the same with systemctl. Prints both package paths.
#   mmbatchd-pkg.sh            make both packages into $PKG_OUT
#   mmbatchd-pkg.sh --inputs   print the files they are made from, one a line
#   mmbatchd-pkg.sh --outputs  print the two package paths it makes
# mmbatchctl gets the package version in place of its @MB_VERSION@.
# Reads: OUT, PKG_OUT, PKG_STAGE, PKG_BIN_DIR (default $OUT/bin), PKG_MAN_DIR
# (default $MAN_DIR, else $OUT/man),
# PKG_MAINTAINER, PKG_REVISION, SOURCE_DATE_EPOCH (default: the time of the
# repo's last commit).
set -eu

usage() { echo "usage: mmbatchd-pkg.sh [--inputs|--outputs]  (see the header)" >&2; exit 2; }
mode=build
case $#:${1:-} in
0:) ;;
1:--inputs) mode=inputs ;;
1:--outputs) mode=outputs ;;
*) usage ;;
esac

. "$(dirname "$0")/lib.sh"
list=$TOP/specs/mmbatchd/files.list
bin_dir=${PKG_BIN_DIR:-$OUT/bin}
man_dir=${PKG_MAN_DIR:-${MAN_DIR:-$OUT/man}}

# list_sources: every listed source that exists, as "FILE<TAB>DEST<TAB>MODE"
# (DEST resolved for a directory DEST); the first entry that places a
# destination wins (so a specific line can precede its glob). A glob's
# directory is listed too, as "DIR<TAB><TAB>" (a file added or removed
# there changes the package).
list_sources() {
	local n=0 src dest mode need extra matches f target
	declare -A placed=()
	while read -r src dest mode need extra; do
		n=$((n + 1))
		case "$src" in ''|'#'*) continue ;; esac
		[ -n "$need" ] && [ -z "${extra:-}" ] && [[ "$mode" =~ ^0[0-7]{3}$ ]] &&
			[[ "$need" = required || "$need" = optional ]] && [[ "$dest" = /* ]] ||
			pkg_die "$list:$n: expected 'SOURCE DEST MODE required|optional'"
		src=${src//@BIN@/$bin_dir}
		src=${src//@MAN@/$man_dir}
		[[ "$src" = /* ]] || src=$TOP/$src
		case $src in *[*?[]*) printf '%s\t\t\n' "$(dirname "$src")" ;; esac
		matches=()
		for f in $src; do
			[ -f "$f" ] && matches+=("$f")
		done
		if [ ${#matches[@]} -eq 0 ]; then
			[ "$need" = required ] && pkg_die "$list:$n: nothing matches ${src#"$TOP"/} (required)"
			pkg_note "mmbatchd: $list:$n: nothing matches ${src#"$TOP"/} (optional, skipped)"
			continue
		fi
		[[ "$dest" = */ ]] || [ ${#matches[@]} -eq 1 ] ||
			pkg_die "$list:$n: ${#matches[@]} files match but DEST $dest is not a directory (end it in /)"
		for f in "${matches[@]}"; do
			target=$dest
			[[ "$dest" = */ ]] && target=$dest$(basename "$f")
			[ -z "${placed[$target]:-}" ] || continue
			placed[$target]=1
			printf '%s\t%s\t%s\n' "$f" "$target" "$mode"
		done
	done <"$list"
}

if [ $mode = inputs ]; then
	# What the packages are made from: the listed sources, the templates,
	# the spec and these scripts (packages.sh re-packages when one is newer).
	printf '%s\n' "$list" "$TOP/specs/mmbatchd/VERSION" "$TOP/specs/mmbatchd.spec" "$TOP/specs/deb/copyright" \
		"$TOP/specs/deb/changelog.in" "$TOP/specs/deb/control.mmbatchd.in" "$TOP"/specs/deb/mmbatchd.* \
		"$TOP/tools/pkg/mmbatchd-pkg.sh" "$TOP/tools/pkg/lib.sh"
	list_sources | cut -f1 | sort -u
	exit 0
fi

version=$(tr -d '[:space:]' <"$TOP/specs/mmbatchd/VERSION")
[[ "$version" =~ ^[0-9][0-9a-z.+~]*$ ]] || pkg_die "$TOP/specs/mmbatchd/VERSION:1: bad version '$version'"
deb_file=$PKG_OUT/mmbatchd_$version-${PKG_REVISION}_$(pkg_deb_arch).deb
rpm_file=$PKG_OUT/mmbatchd-$version-$PKG_REVISION.$(pkg_rpm_arch).rpm
if [ $mode = outputs ]; then
	printf '%s\n' "$deb_file" "$rpm_file"
	exit 0
fi
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$TOP" log -1 --format=%ct 2>/dev/null) ||
		pkg_die "package: SOURCE_DATE_EPOCH unset and $TOP is not a git checkout"
fi
export SOURCE_DATE_EPOCH

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root" "$PKG_OUT"

# stage_list: copy every listed source into $root.
stage_list() {
	local f target mode
	list_sources >"$work/sources"
	while IFS=$'\t' read -r f target mode; do
		[ -n "$target" ] || continue
		install -D -m "$mode" "$f" "$root$target"
	done <"$work/sources"
}

stage_list
# The package version, once, from specs/mmbatchd/VERSION (the C programs get
# it from the build, -DMB_PKG_VERSION).
ctl=$root/usr/sbin/mmbatchctl
grep -q '^version=@MB_VERSION@$' "$ctl" || pkg_die "package: $ctl has no 'version=@MB_VERSION@' line to fill in"
sed -i "s/^version=@MB_VERSION@\$/version=$version/" "$ctl"
# Man pages compressed, as Debian policy wants them (rpm's brp-compress is
# off in specs/mmbatchd.spec: the same files in both).
find "$root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9nf {} +
# Shipped without debug info (lintian: unstripped binaries); dh_strip's flags.
strip --remove-section=.comment --remove-section=.note "$root/usr/sbin/mmbatchd" "$root/usr/bin/mmbench"
pkg_normalize "$root"

# shellcheck disable=SC2034 # the upper-case locals fill the templates (pkg_subst, by name)
build_deb() {
	local dir=$work/deb ARCH MAINTAINER=$PKG_MAINTAINER DEB_VERSION=$version-$PKG_REVISION
	local SOURCE=mmbatch DATE CHANGE="mmbatchd and mmbench $version." INSTALLED_SIZE SHLIBS_DEPENDS
	ARCH=$(pkg_deb_arch)
	DATE=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
	cp -a "$root" "$dir"
	local doc=$dir/usr/share/doc/mmbatchd
	mkdir -p "$doc" "$dir/DEBIAN"
	cp "$TOP/specs/deb/copyright" "$doc/copyright"
	pkg_subst "$TOP/specs/deb/changelog.in" SOURCE DEB_VERSION CHANGE MAINTAINER DATE >"$doc/changelog.Debian"
	pkg_gzip "$doc/changelog.Debian"
	SHLIBS_DEPENDS=$(pkg_shlibdeps "$dir/usr/sbin/mmbatchd" "$dir/usr/bin/mmbench")
	[ -n "$SHLIBS_DEPENDS" ] || pkg_die "package: dpkg-shlibdeps found no dependencies of mmbatchd"
	INSTALLED_SIZE=$(pkg_installed_size "$dir")
	pkg_subst "$TOP/specs/deb/control.mmbatchd.in" DEB_VERSION ARCH MAINTAINER INSTALLED_SIZE SHLIBS_DEPENDS \
		>"$dir/DEBIAN/control"
	(cd "$dir" && find etc -type f | sort | sed 's|^|/|') >"$dir/DEBIAN/conffiles"
	local s
	for s in postinst prerm postrm; do
		install -m 0755 "$TOP/specs/deb/mmbatchd.$s" "$dir/DEBIAN/$s"
	done
	pkg_deb "$dir" "$deb_file"
	echo "$deb_file"
}

build_rpm() {
	local top=$work/rpm arch
	arch=$(pkg_rpm_arch)
	mkdir -p "$top"
	# Own our directories and files; /etc entries are %config(noreplace).
	# /var/lib/mmbatch and its pending/ are the state the kernel-install
	# plugin and the daemon write: owned (not shipped), so removing the
	# package removes them when nothing is left in them, as the DEB's
	# purge does (results, when kept, stay with rpm's warning).
	(
		cd "$root"
		for d in etc/mmbatch usr/libexec/mmbatch usr/share/mmbatch usr/share/doc/mmbatchd; do
			[ -d "$d" ] && find "$d" -type d | sort | sed 's|^|%dir /|'
		done
		printf '%%dir /var/lib/mmbatch\n%%dir /var/lib/mmbatch/pending\n'
		# Executable hooks under /etc/kernel are code, not configuration.
		find . \( -type f -o -type l \) \( -path './etc/*' ! -perm -u+x -printf '%%config(noreplace) ' -o -true \) \
			-printf '%P\n' | sed 's|^\(%config(noreplace) \)\{0,1\}|&/|' | sort
	) >"$top/files"
	pkg_rpmbuild "$TOP/specs/mmbatchd.spec" "$top" "mmbatchd and mmbench $version." \
		--define "stage $root" \
		--define "pkgversion $version" \
		--define "pkgrel $PKG_REVISION" \
		--define "filelist $top/files"
	local rpm=mmbatchd-$version-$PKG_REVISION.$arch.rpm
	[ -f "$top/RPMS/$arch/$rpm" ] || pkg_die "package: rpmbuild did not produce $rpm"
	mv -f "$top/RPMS/$arch/$rpm" "$rpm_file"
	echo "$rpm_file"
}

build_deb
build_rpm
