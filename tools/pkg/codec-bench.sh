#!/bin/bash
# Measures package compressors on one payload, the way the two formats
# compress it: dpkg-deb --build (its data.tar: -Z, -z, --threads-max) and
# rpmbuild (the payload: %_binary_payload wLEVEL[Tn].{gz,xz,zstd}dio), one
# candidate after the other, and prints a table: package size, wall and CPU
# seconds, size and wall time against today's codec of that format (gzip -9,
# single-threaded), and with --repro whether the same candidate with one
# thread and with twice JOBS threads gives the same bytes (a package must not
# depend on the build machine's core count; tools/pkg/repro-check.sh
# compares two builds on one machine; an RPM's payload is compared by its
# PAYLOADDIGEST, as its header records the thread count).
# A candidate prefixed "sections+" first compresses the ELF files' debug
# sections (objcopy --compress-debug-sections=zlib, the files in parallel) in
# a copy of the payload, timed as part of it: debug info compressed once,
# then the same files go into both formats.
#   codec-bench.sh [--repro] [--candidates 'C ...'] PAYLOAD
# PAYLOAD: a directory (a staged build's debug tree, out/pkgstage/<release>/
# dbg) or a .deb whose data is the payload (unpacked first, not timed).
# Candidates: deb:CODEC:LEVEL (gzip, xz, zstd) and rpm:PAYLOAD_MACRO (e.g.
# rpm:w9.gzdio, rpm:w3T0.zstdio), either with the sections+ prefix.
# Needs dpkg-dev, rpm, binutils. Reads: JOBS (threads, default nproc), TMPDIR.
set -eu -o pipefail

usage() {
	echo "usage: codec-bench.sh [--repro] [--candidates 'deb:gzip:9 rpm:w3T0.zstdio ...'] PAYLOAD_DIR_OR_DEB" >&2
	exit 2
}
die() { echo "codec-bench: $*" >&2; exit 1; }

repro=0
candidates="deb:gzip:9 deb:xz:6 deb:zstd:3 deb:zstd:9 deb:zstd:19 rpm:w9.gzdio rpm:w6T0.xzdio rpm:w3T0.zstdio rpm:w9T0.zstdio rpm:w19T0.zstdio sections+deb:gzip:9 sections+deb:zstd:3 sections+rpm:w3T0.zstdio"
while [ $# -gt 1 ]; do
	case $1 in
	--repro) repro=1; shift ;;
	--candidates) [ $# -ge 3 ] || usage; candidates=$2; shift 2 ;;
	*) usage ;;
	esac
done
[ $# -eq 1 ] || usage
payload=$1
jobs=${JOBS:-$(nproc)}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "JOBS='$jobs': expected a positive integer"
for c in $candidates; do
	case ${c#sections+} in
	deb:gzip:[1-9] | deb:xz:[0-9] | deb:zstd:[1-9] | deb:zstd:1[0-9]) ;;
	rpm:w[1-9].gzdio | rpm:w[0-9].xzdio | rpm:w[0-9]T[0-9]*.xzdio | rpm:w[1-9]*.zstdio) ;;
	*) die "candidate '$c': expected deb:{gzip,xz,zstd}:LEVEL or rpm:wLEVEL[Tn].{gz,xz,zstd}dio, optionally prefixed sections+" ;;
	esac
done

work=$(mktemp -d "${TMPDIR:-/var/tmp}/codec-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -d "$payload" ]; then
	src=$(realpath "$payload")
elif [ -f "$payload" ] && dpkg-deb --info "$payload" >/dev/null 2>&1; then
	echo "codec-bench: unpacking $payload (not timed)" >&2
	dpkg-deb --extract "$payload" "$work/unpacked"
	src=$work/unpacked
else
	die "$payload: neither a directory nor a .deb"
fi
bytes=$(du -sb "$src" | cut -f1)
files=$(find "$src" -type f | wc -l)
export SOURCE_DATE_EPOCH=1700000000

# timed VAR CMD...: runs CMD; VAR gets "WALL CPU" (seconds, CPU of its
# children included).
timed() {
	local _var=$1 _t
	shift
	_t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>"$work/err"; } 2>&1) ||
		{ cat "$work/err" >&2; die "$* failed"; }
	printf -v "$_var" '%s' "$(awk '{ printf "%.1f %.1f", $1, $2 + $3 }' <<<"${_t##*$'\n'}")"
}

# sectioned: a copy of the payload with its ELF files' debug sections
# compressed (zlib: what gdb, perf, crash and elfutils read); made once.
sectioned_wall=
sectioned() {
	[ -z "$sectioned_wall" ] || return 0
	cp -a "$src" "$work/sections"
	local t
	timed t sh -c "find '$work/sections' -type f \\( -name '*.ko' -o -name 'vmlinux*' \\) -print0 |
		xargs -0r -P '$jobs' -n 1 objcopy --compress-debug-sections=zlib"
	sectioned_wall=$t
	echo "codec-bench: debug sections compressed once (zlib, $jobs in parallel): $(du -sb "$work/sections" | cut -f1) bytes, wall/CPU $t s" >&2
}

# deb_build DIR CODEC LEVEL THREADS OUT
deb_build() {
	dpkg-deb --root-owner-group -Z"$2" -z"$3" --threads-max="$4" --build "$1" "$5"
}

# deb_tree FROM: the package tree (hard links) for dpkg-deb.
deb_tree() {
	rm -rf "$work/deb"
	mkdir -p "$work/deb/DEBIAN" "$work/deb/usr/lib"
	cp -al "$1" "$work/deb/usr/lib/debug"
	printf '%s\n' "Package: codec-bench" "Version: 1" "Architecture: amd64" \
		"Maintainer: mmbatch <packagers@mmbatch.example.org>" "Description: payload" >"$work/deb/DEBIAN/control"
}

# rpm_build FROM MACRO OUT
rpm_build() {
	local top=$work/rpm
	rm -rf "$top"
	mkdir -p "$top"
	cat >"$top/bench.spec" <<EOF
%global debug_package %{nil}
%global __os_install_post %{nil}
%global _build_id_links none
Name: codec-bench
Version: 1
Release: 1
Summary: payload
License: GPL-2.0-only
AutoReqProv: no
%description
payload
%install
mkdir -p %{buildroot}/usr/lib
cp -al $1 %{buildroot}/usr/lib/debug
%files
/usr/lib/debug
EOF
	rpmbuild -bb --nodeps --quiet --target x86_64 --define "_topdir $top" \
		--define "_binary_payload $2" --define "use_source_date_epoch_as_buildtime 1" \
		--define "clamp_mtime_to_source_date_epoch 1" --define "_buildhost codec-bench" \
		"$top/bench.spec"
	mv "$top/RPMS/x86_64/codec-bench-1-1.x86_64.rpm" "$3"
}

# payload_digest RPM: the digest of its compressed payload.
payload_digest() { rpm -qp --qf '%{PAYLOADDIGEST}' "$1"; }

# threads MACRO N: the rpm payload macro with N compression threads (a
# macro without T stays as it is).
threads() {
	case $1 in
	*T[0-9]*) echo "${1%%T*}T$2.${1#*.}" ;;
	*) echo "$1" ;;
	esac
}

echo "codec-bench: payload $payload: $bytes bytes in $files files; $jobs threads; $(date -u +%Y-%m-%dT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
printf '%-28s %12s %7s %8s %8s %9s %9s %s\n' candidate bytes ratio wall_s cpu_s size_vs wall_vs repro
declare -A base_size base_wall
for c in $candidates; do
	from=$src pre_wall=0 pre_cpu=0
	spec=$c
	if [ "${c#sections+}" != "$c" ]; then
		sectioned
		from=$work/sections spec=${c#sections+}
		read -r pre_wall pre_cpu <<<"$sectioned_wall"
	fi
	fmt=${spec%%:*}
	out=$work/out.$fmt same=-
	if [ "$fmt" = deb ]; then
		IFS=: read -r _ codec level <<<"$spec"
		deb_tree "$from"
		timed t deb_build "$work/deb" "$codec" "$level" "$jobs" "$out"
		if [ $repro = 1 ] && [ "$codec" = gzip ]; then
			same="n/a (gzip: one thread)"
		elif [ $repro = 1 ]; then
			same=
			for n in 1 $((jobs * 2)); do
				deb_build "$work/deb" "$codec" "$level" "$n" "$out.$n" >/dev/null
				if cmp -s "$out" "$out.$n"; then same+="$n:same,"; else same+="$n:DIFFERS,"; fi
			done
			same=${same%,}
		fi
	else
		macro=${spec#rpm:}
		timed t rpm_build "$from" "$macro" "$out"
		if [ $repro = 1 ] && [[ "$macro" != *T[0-9]* ]]; then
			same="n/a (no T: one thread)"
		elif [ $repro = 1 ]; then
			same=
			for n in 1 $((jobs * 2)); do
				rpm_build "$from" "$(threads "$macro" "$n")" "$out.$n" >/dev/null
				# The header records the macro's thread count (PAYLOADFLAGS);
				# the payload is compared by its digest.
				if [ "$(payload_digest "$out")" = "$(payload_digest "$out.$n")" ]; then
					same+="$n:same,"
				else
					same+="$n:DIFFERS,"
				fi
			done
			same=${same%,}
		fi
	fi
	read -r wall cpu <<<"$t"
	wall=$(awk -v a="$wall" -v b="$pre_wall" 'BEGIN { printf "%.1f", a + b }')
	cpu=$(awk -v a="$cpu" -v b="$pre_cpu" 'BEGIN { printf "%.1f", a + b }')
	size=$(stat -c %s "$out")
	if [ "$c" = deb:gzip:9 ] || [ "$c" = rpm:w9.gzdio ]; then
		base_size[$fmt]=$size base_wall[$fmt]=$wall
	fi
	vs_size=- vs_wall=-
	if [ -n "${base_size[$fmt]:-}" ]; then
		vs_size=$(awk -v a="$size" -v b="${base_size[$fmt]}" 'BEGIN { printf "%.3f", a / b }')
		vs_wall=$(awk -v a="$wall" -v b="${base_wall[$fmt]}" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
	fi
	printf '%-28s %12d %7.3f %8s %8s %9s %9s %s\n' "$c" "$size" \
		"$(awk -v a="$size" -v b="$bytes" 'BEGIN { print a / b }')" "$wall" "$cpu" "$vs_size" "$vs_wall" "$same"
	rm -f "$out" "$out".*
done
echo "codec-bench: ratio = package bytes / payload bytes; size_vs and wall_vs against deb:gzip:9 or rpm:w9.gzdio (today's codecs) when they ran first; repro: whether 1 thread and twice JOBS threads give the same bytes (--repro; n/a for a single-threaded codec)" >&2
