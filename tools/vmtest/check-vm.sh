#!/bin/bash
# check-vm: the end-to-end VM checks (`make check-vm`). For each base, on the
# patched guest flavor (`make kernel BASE=<base> FLAVOR=guest`):
#   quick path  busybox initramfs with our static binaries: the kernel boots,
#               `mmbench integrity` passes, `mmbench migrate` moves pages
#               between two nodes, /proc/sys/vm/drain_percpu works
#               (tests/vm/quick_test.sh);
#   full path   a Debian rootfs (12/bookworm; MKCHROOT_SUITE=trixie for 13,
#               systemd 257) where the kernel .deb and the mmbatchd .deb
#               were installed with dpkg (postinst -> dracut), booted with
#               systemd from that rootfs and that initramfs: daemon active
#               with the default profile, values read back, one drain per
#               large exit, first-boot smoke result, rollback on stop, the
#               units' sandboxes seen from inside mmbatchd's mount
#               namespace (tests/vm/full_test.sh).
# Before that, once, the harness itself (tests/vm/vmtest_test.sh).
# Checks whose inputs are not in the tree yet are printed as NOT-LIVE with
# the reason, and listed again at the end; they never count as passes.
# Prints the time of every step. Logs: $OUT/vm/check/.
# Reads: MAKE, OUT, VM_BASES (default "6.12 6.1"), VM_PATHS (default
#   "quick full"), VM_FULL_BASES (bases that also run the full path when
#   VM_PATHS has it; default: all of VM_BASES), VM_QUICK_TIMEOUT (600),
#   VM_FULL_TIMEOUT (900), VM_KERNEL_DEB_6_12, VM_KERNEL_DEB_6_1,
#   VM_DAEMON_DEB (use these .debs instead of the ones the manifests under
#   $OUT/packages name; `make packages` refreshes those when stale),
#   MKCHROOT_SUITE (the full path's Debian suite, default bookworm; its
#   labels and logs then name it), VMTEST_* (see vmtest).
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
bases=${VM_BASES:-6.12 6.1}
quick_timeout=${VM_QUICK_TIMEOUT:-600}
full_timeout=${VM_FULL_TIMEOUT:-900}
logs=$out/vm/check
tests=$top/tests/vm
mkdir -p "$logs"

make_q() { ${MAKE:-make} -C "$top" --no-print-directory -s "$@"; }
note() { echo "check-vm: $*" >&2; }
step_t0=0
step_start() { step_t0=$SECONDS; note "$1 ..."; }
step_end() { note "$1: $((SECONDS - step_t0)) s"; }

paths=${VM_PATHS:-quick full}
suite=${MKCHROOT_SUITE:-bookworm}
# Full-path labels and logs name a suite other than the default.
suite_tag=
[ "$suite" = bookworm ] || suite_tag=" $suite"
full_bases=${VM_FULL_BASES:-$bases}
is_path() { [[ " $paths " == *" $1 "* ]]; }
failures=()
notlive=()

# series_has_drain BASE: yes when a patch in patches/BASE/series adds the
# drain_percpu sysctl.
series_has_drain() {
	local series=$top/patches/$1/series name
	[ -f "$series" ] || { echo no; return; }
	while read -r name _; do
		case "$name" in ''|'#'*) continue ;; esac
		if grep -q '^+.*"drain_percpu"' "$top/patches/$1/$name" 2>/dev/null; then echo yes; return; fi
	done < "$series"
	echo no
}

# manifest_value FILE KEY: PATH of a KEY=PATH line of a package manifest
# (written by tools/pkg/packages.sh), when that file exists.
manifest_value() {
	[ -f "$1" ] || return 0
	local v
	v=$(sed -n "s/^$2=//p" "$1" | tail -n 1)
	[ -z "$v" ] || [ ! -f "$v" ] || echo "$v"
}

# packages_fresh KERNELRELEASE BZIMAGE: the kernel and mmbatchd .debs of the
# manifests exist and are newer than what they package.
packages_fresh() {
	local k d
	k=$(manifest_value "$out/packages/kernel-$1.paths" IMAGE_DEB)
	d=$(manifest_value "$out/packages/mmbatchd.paths" MMBATCHD_DEB)
	[ -n "$k" ] && [ -n "$d" ] && [ "$k" -nt "$2" ] && [ "$d" -nt "$out/bin/mmbatchd" ] && [ "$d" -nt "$out/bin/mmbench" ]
}

# run_guest LABEL LOGBASE VMTEST-ARGS...: boots, keeps output and console,
# collects NOT-LIVE lines, records a failure.
run_guest() {
	local label=$1 logbase=$2 rc=0
	shift 2
	# KERNEL, then --log before the options, whose tail is "-- COMMAND".
	"$here/vmtest" boot "$1" --log "$logbase.console" "${@:2}" > "$logbase.out" || rc=$?
	sed "s/^/[$label] /" "$logbase.out"
	while IFS= read -r line; do notlive+=("[$label] ${line#NOT-LIVE }"); done < <(grep '^NOT-LIVE ' "$logbase.out" || true)
	if [ "$rc" != 0 ]; then
		failures+=("$label (exit $rc; console: $logbase.console)")
	fi
}

t_all=$SECONDS
step_start "building mmbench (static) and mmbatchd"
make_q mmbench daemon
step_end "mmbench + mmbatchd"
initramfs=$("$here/mkinitramfs.sh" "$out/bin/static/mmbench:/usr/bin/mmbench" "$out/bin/mmbatchd:/usr/sbin/mmbatchd" | tail -n 1)

for base in $bases; do
	step_start "[$base] guest kernel (make kernel BASE=$base FLAVOR=guest)"
	if ! bzimage=$(make_q kernel BASE="$base" FLAVOR=guest | tail -n 1) || [ ! -f "$bzimage" ]; then
		failures+=("[$base] make kernel BASE=$base FLAVOR=guest failed")
		continue
	fi
	step_end "[$base] kernel $bzimage"
	build_dir=${bzimage%/arch/x86/boot/bzImage}
	krel=$(cat "$build_dir/include/config/kernel.release")
	drain=$(series_has_drain "$base")

	if [ -z "${harness_tested:-}" ]; then
		harness_tested=1
		step_start "[$base] harness self-test (exit status, output, timeout, bad option)"
		if ! "$tests/vmtest_test.sh" "$bzimage" | sed "s/^/[harness] /"; then
			failures+=("[harness] tests/vm/vmtest_test.sh")
		fi
		step_end "[$base] harness self-test"
	fi

	if ! is_path quick; then
		notlive+=("[$base quick] not run: VM_PATHS=$paths")
	else
		step_start "[$base] quick path ($krel, drain knob in series: $drain)"
		run_guest "$base quick" "$logs/$base-quick" "$bzimage" --initramfs "$initramfs" --timeout "$quick_timeout" \
			--add "$tests/lib.sh" --add "$tests/quick_test.sh" -- sh quick_test.sh "$krel" "$drain"
		step_end "[$base] quick path"
	fi

	if ! is_path full; then
		notlive+=("[$base full] not run: VM_PATHS=$paths (the full path: packaged kernel + dracut + systemd + mmbatchd)")
		continue
	fi
	if [[ " $full_bases " != *" $base "* ]]; then
		notlive+=("[$base full] not run: VM_FULL_BASES=$full_bases (the full path: packaged kernel + dracut + systemd + mmbatchd)")
		continue
	fi

	# The full path installs our kernel .deb; until the packages exist it
	# installs Debian's stock kernel .deb the same way (and says so).
	kernel_var=VM_KERNEL_DEB_${base//./_}
	kdeb=${!kernel_var:-} ddeb=${VM_DAEMON_DEB:-}
	if [ -z "$kdeb" ] || [ -z "$ddeb" ]; then
		if ! packages_fresh "$krel" "$bzimage"; then
			step_start "[$base] packages (make packages BASE=$base FLAVOR=guest)"
			make_q packages BASE="$base" FLAVOR=guest >/dev/null || failures+=("[$base] make packages BASE=$base FLAVOR=guest failed")
			step_end "[$base] packages"
		fi
		[ -n "$kdeb" ] || kdeb=$(manifest_value "$out/packages/kernel-$krel.paths" IMAGE_DEB)
		[ -n "$ddeb" ] || ddeb=$(manifest_value "$out/packages/mmbatchd.paths" MMBATCHD_DEB)
	fi
	# The daemon package first: its /etc/kernel/postinst.d hook must see the
	# kernel install to mark the first-boot smoke run, as on a fleet host that
	# already runs mmbatchd when a new kernel arrives.
	debs=()
	daemon=no
	if [ -n "$ddeb" ]; then debs+=("$ddeb"); daemon=yes; fi
	if [ -n "$kdeb" ]; then
		debs+=("$kdeb")
	else
		stock_dir=$(dirname "$(dirname "$("$here/stock-kernel.sh" "$base" | tail -n 1)")")
		debs+=("$stock_dir"/linux-image-*.deb)
		notlive+=("[$base full] our packaged kernel: no IMAGE_DEB in $out/packages/kernel-$krel.paths; the full path ran with Debian's stock kernel .deb instead")
	fi
	step_start "[$base] full-path rootfs ($suite; dpkg -i ${debs[*]##*/})"
	if ! rootdir=$("$here/mkrootfs.sh" "${debs[@]}" | tail -n 1); then
		failures+=("[$base full$suite_tag] rootfs build (mkrootfs.sh) failed")
		continue
	fi
	step_end "[$base] rootfs $rootdir"
	step_start "[$base] full path ($(cat "$rootdir/kernelrelease"), $suite, systemd)"
	run_guest "$base full$suite_tag" "$logs/$base-full${suite_tag:+-$suite}" "$rootdir/vmlinuz" --rootfs "$rootdir/rootfs.img" \
		--initramfs "$rootdir/initrd.img" --timeout "$full_timeout" \
		--add "$tests/lib.sh" --add "$tests/full_test.sh" \
		-- sh full_test.sh "$(cat "$rootdir/kernelrelease")" "$(sha256sum < "$rootdir/initrd.img" | cut -d' ' -f1)" "$daemon"
	step_end "[$base] full path"
done

echo "check-vm: checks not live yet (${#notlive[@]}):"
for n in ${notlive[@]+"${notlive[@]}"}; do echo "  $n"; done
note "total $((SECONDS - t_all)) s"
if [ ${#failures[@]} -gt 0 ]; then
	echo "check-vm: FAILED:"
	for f in "${failures[@]}"; do echo "  $f"; done
	exit 1
fi
echo "check-vm: all live checks passed"
