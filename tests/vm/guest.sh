#!/bin/bash
# One guest check of `make check-vm` (tests/vm/run.sh runs one per build and
# path), for the build its identity file names (tools/kbuild/identity.sh):
#   guest.sh quick FILE   quick path: the build's IMAGE booted with the busybox
#                         initramfs (static mmbench, mmbatchd): the kernel
#                         boots, `mmbench integrity` passes, `mmbench migrate`
#                         moves pages between two nodes, the drain knob
#                         (tests/vm/quick_test.sh);
#   guest.sh debug FILE   the quick path on a debug build (DEBUG=1: lockdep,
#                         KASAN, DEBUG_VM, ...; FILE is its identity,
#                         $(call debug_build,BASE)): the same checks with a
#                         longer integrity run, more memory and time, and
#                         lockdep still on at the end;
#   guest.sh full FILE    full path: a Debian rootfs (12/bookworm;
#                         MKCHROOT_SUITE=trixie for 13, systemd 257) where
#                         MMBATCHD_DEB and then IMAGE_DEB were installed with
#                         dpkg (postinst -> dracut), booted with systemd from
#                         that rootfs and that initramfs: the daemon, its
#                         values, drain, smoke, rollback and the units'
#                         sandboxes (tests/vm/full_test.sh);
#   guest.sh --resolve quick|full|debug FILE
#                         the resolution step alone: prints the KEY=VALUE
#                         lines the path would use, boots nothing;
#   guest.sh --rootfs full FILE
#                         the full path's root alone (tools/vmtest/mkrootfs.sh,
#                         which caches it by its inputs): made, or found made,
#                         and its directory printed; boots nothing (make
#                         check's prebuild stage makes it ahead).
# Every input is read from FILE with bid_get: BASE, IMAGE, KERNELRELEASE,
# VARIANT, and for the full path IMAGE_DEB and MMBATCHD_DEB. A key the path
# needs and FILE lacks is a failure, one line naming FILE and the key: no
# other kernel stands in. Debian's stock kernel of the build's BASE boots
# only when asked for, VM_KERNEL=stock (tools/vmtest/stock-kernel.sh and its
# identity file; MMBATCHD_DEB still comes from FILE).
# The guest's result lines are counted on the host (tests/vm/host.sh), and
# any kernel splat in the kernel log the guest dumps last or in the console
# log fails the check (host.sh guest_splats; the known lines:
# tests/vm/splat_known.txt).
# Logs: $OUT/vm/check/<path>-<base>.{out,console,dmesg}.
# Reads: OUT, VM_KERNEL (built or stock, default built; the debug path
# boots its build always), VM_CPUS (the quick path's vCPUs, 4: the mm
# selftests' migration test needs 3), VM_DEBUG_CPUS (2), VM_QUICK_TIMEOUT
# (900), VM_FULL_TIMEOUT (900), VM_DEBUG_TIMEOUT (900: the 6.12 debug
# guest took far less; measured: docs/results/debug.md), VM_DEBUG_MEM (MiB,
# 3072), VM_DEBUG_INTEGRITY (mmbench integrity options, default "--seconds 8
# --reps 2"), VM_DEBUG_MIGRATIONS (pages the kernel must migrate during it,
# default 10000: below what it migrated in that run),
# VM_DEBUG_KINDS_SECONDS (seconds of each integrity kind there, default 6),
# MKCHROOT_SUITE (default bookworm; labels and
# logs name another suite), MMBENCH_STATIC (default $OUT/bin/static/mmbench),
# MMBATCHD (default $OUT/bin/mmbatchd), VMTEST_* (tools/vmtest/vmtest).
set -eu -o pipefail

usage() { echo "usage: guest.sh [--resolve|--rootfs] quick|full|debug IDENTITY-FILE" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUT:-$top/out}
vmtools=$top/tools/vmtest
resolve_only=0 rootfs_only=0
case ${1:-} in
--resolve) resolve_only=1; shift ;;
--rootfs) rootfs_only=1; shift ;;
esac
[ $# -eq 2 ] || usage
mode=$1 build=$2
case $mode in quick|full|debug) ;; *) usage ;; esac
[ $rootfs_only = 0 ] || [ "$mode" = full ] || { echo "ERROR: guest.sh --rootfs: only the full path boots a root of its own, not $mode" >&2; exit 2; }
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
die() { echo "ERROR: $*" >&2; exit 1; }

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

# The resolution step: everything the path boots, from identity files.
base=$(bid_get "$build" BASE)
kernel_choice=${VM_KERNEL:-built}
[ "$mode" != debug ] || kernel_choice=built
case $kernel_choice in
built) kid=$build ;;
stock)
	"$vmtools/stock-kernel.sh" "$base"
	kid=$out/cache/stock/$base/mmbatch-build.env ;;
*) die "VM_KERNEL='$VM_KERNEL': expected built (the builds VM_BUILDS names) or stock (Debian's kernel of each build's base)" ;;
esac
image=$(bid_get "$kid" IMAGE)
krel=$(bid_get "$kid" KERNELRELEASE)
variant=$(bid_get "$kid" VARIANT)
[ -f "$image" ] || die "build identity $kid: IMAGE $image does not exist"
drain=no
case $variant in mmbatch*) drain=$(series_has_drain "$base") ;; esac
kdeb='' ddeb=''
if [ "$mode" = full ]; then
	kdeb=$(bid_get "$kid" IMAGE_DEB)
	ddeb=$(bid_get "$build" MMBATCHD_DEB)
	[ -f "$kdeb" ] || die "build identity $kid: IMAGE_DEB $kdeb does not exist"
	[ -f "$ddeb" ] || die "build identity $build: MMBATCHD_DEB $ddeb does not exist"
fi
if [ $resolve_only = 1 ]; then
	printf '%s=%s\n' BUILD "$build" KERNEL_IDENTITY "$kid" BASE "$base" KERNELRELEASE "$krel" IMAGE "$image" \
		VARIANT "$variant" DRAIN_KNOB "$drain"
	[ "$mode" != full ] || printf '%s=%s\n' IMAGE_DEB "$kdeb" MMBATCHD_DEB "$ddeb"
	exit 0
fi

suite=${MKCHROOT_SUITE:-bookworm}
tag=$mode-$base
[ "$mode" != full ] || [ "$suite" = bookworm ] || tag+=-$suite
logs=$out/vm/check
mkdir -p "$logs"
# make_rootfs: the full path's root in $logs/$tag.rootfs (a link into
# mkrootfs's cache). The daemon package first: its /etc/kernel/postinst.d
# hook must see the kernel install to mark the first-boot smoke run, as on
# a fleet host that already runs mmbatchd when a new kernel arrives.
make_rootfs() { "$vmtools/mkrootfs.sh" -o "$logs/$tag.rootfs" "$ddeb" "$kdeb"; }
if [ $rootfs_only = 1 ]; then
	# stdout is the directory alone (mkfs.ext4 prints to it)
	make_rootfs >&2 || die "guest.sh --rootfs: the root of $tag ($suite; dpkg -i ${ddeb##*/} ${kdeb##*/}) could not be made (tools/vmtest/mkrootfs.sh)"
	echo "$logs/$tag.rootfs"
	exit 0
fi
TEST_NAME=$tag
# shellcheck source=tests/lib/assert.sh
. "$top/tests/lib/assert.sh"
# shellcheck source=tests/vm/host.sh
. "$here/host.sh"
echo "$TEST_NAME: $krel ($([ "$kid" = "$build" ] && echo "build $build" || echo "Debian's stock kernel, VM_KERNEL=stock, $kid"))"

rc=0 t_boot=$SECONDS
if [ "$mode" = debug ]; then
	# Only a kernel with the checkers on proves anything here.
	expect_eq "debug build: DEBUG in $kid" 1 "$(bid_get "$kid" DEBUG 2>&1)"
	config=$(bid_get "$kid" CONFIG)
	for opt in CONFIG_PROVE_LOCKING CONFIG_PROVE_RCU CONFIG_KASAN CONFIG_KASAN_GENERIC CONFIG_DEBUG_VM \
		CONFIG_DEBUG_ATOMIC_SLEEP CONFIG_DEBUG_LIST CONFIG_DEBUG_OBJECTS CONFIG_SLUB_DEBUG; do
		expect_line "debug build: $opt in $config" "$opt=y" "@$config"
	done
fi
if [ "$mode" != full ]; then
	mmbench=${MMBENCH_STATIC:-$out/bin/static/mmbench} mmbatchd=${MMBATCHD:-$out/bin/mmbatchd}
	[ -x "$mmbench" ] || die "$TEST_NAME: no static mmbench at $mmbench (make mmbench)"
	[ -x "$mmbatchd" ] || die "$TEST_NAME: no mmbatchd at $mmbatchd (make daemon)"
	initramfs=$logs/$tag.initramfs.cpio.gz
	# The build's own mm selftests go in too (tools/peer/selftests-build.sh);
	# the quick set of tools/peer/selftests-<base>.list runs as a step (not
	# on the debug guests: see quick_test.sh).
	if [ "$mode" = quick ]; then
		step initramfs "$top/tools/peer/selftests-initramfs.sh" -o "$initramfs" "$kid" \
			"$mmbench:/usr/bin/mmbench" "$mmbatchd:/usr/sbin/mmbatchd"
	else
		step initramfs "$vmtools/mkinitramfs.sh" -o "$initramfs" "$mmbench:/usr/bin/mmbench" "$mmbatchd:/usr/sbin/mmbatchd"
	fi
	st_list=$top/tools/peer/selftests-$base.list
	cpus=${VM_CPUS:-4}
	boot=(--timeout "${VM_QUICK_TIMEOUT:-900}" --cpus "$cpus")
	# The guest's sh reads these words (vmtest joins the command's words).
	guest_env="GUEST_CPUS=$cpus ST_LIST=${st_list##*/}"
	if [ "$mode" = debug ]; then
		# 2 vCPUs: the debug guests run no selftests in check-vm (see
		# quick_test.sh), and KASAN boots slower with more.
		cpus=${VM_DEBUG_CPUS:-2}
		guest_env="GUEST_CPUS=$cpus ST_LIST=${st_list##*/}"
		boot=(--timeout "${VM_DEBUG_TIMEOUT:-900}" --mem "${VM_DEBUG_MEM:-3072}" --cpus "$cpus")
		# shellcheck disable=SC2089 # the quotes are for the guest's sh (vmtest joins the command's words)
		guest_env+=" DEBUG_GUEST=1 INTEGRITY_ARGS='${VM_DEBUG_INTEGRITY:---seconds 8 --reps 2}' INTEGRITY_MIN_PAGES=${VM_DEBUG_MIGRATIONS:-10000} INTEGRITY_KINDS_SECONDS=${VM_DEBUG_KINDS_SECONDS:-6}"
	fi
	echo "$TEST_NAME: booting (drain knob in the series: $drain; ${boot[*]}${guest_env:+; $guest_env})"
	# shellcheck disable=SC2090 # guest_env's quotes are for the guest's sh, not this one
	# log_buf_len: the selftests' kernel messages must not wrap the log the
	# splat scan reads from its first line.
	"$vmtools/vmtest" boot "$image" --initramfs "$initramfs" "${boot[@]}" --append log_buf_len=8M \
		--log "$logs/$tag.console" --add "$here/lib.sh" --add "$here/quick_test.sh" \
		--add "$here/selftests_lib.sh" --add "$here/kselftest_verdict.awk" --add "$st_list" \
		-- "$guest_env" sh quick_test.sh "$krel" "$drain" > "$logs/$tag.out" || rc=$?
else
	rootfs=$logs/$tag.rootfs
	step rootfs make_rootfs ||
		{ fail "rootfs ($suite; dpkg -i ${ddeb##*/} ${kdeb##*/}) failed (tools/vmtest/mkrootfs.sh)"; exit 1; }
	expect_eq "kernel release the rootfs exports" "$krel" "$(cat "$rootfs/kernelrelease")"
	echo "$TEST_NAME: booting ($suite, systemd)"
	"$vmtools/vmtest" boot "$rootfs/vmlinuz" --rootfs "$rootfs/rootfs.img" --initramfs "$rootfs/initrd.img" \
		--timeout "${VM_FULL_TIMEOUT:-900}" --log "$logs/$tag.console" --add "$here/lib.sh" --add "$here/full_test.sh" \
		-- sh full_test.sh "$krel" "$(sha256sum < "$rootfs/initrd.img" | cut -d' ' -f1)" > "$logs/$tag.out" || rc=$?
fi
echo "$TEST_NAME: the boot took $((SECONDS - t_boot)) s (vmtest exit $rc)"
guest_results "$logs/$tag.out"
guest_splats "$logs/$tag.out" "$logs/$tag.console"
expect_match "the guest's checks ran to their end" '^summary: [0-9]+ ok, [0-9]+ failed, [0-9]+ not live$' "@$logs/$tag.out"
expect_status "vmtest boot (the guest command's exit status; console $logs/$tag.console)" 0 "$rc"
test_summary
