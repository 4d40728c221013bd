#!/bin/bash
# `make check-distcc`: kernel builds through distcc (DISTCC_HOSTS). Starts two
# distccd daemons on 127.0.0.1 (two free ports, logs in a temp dir, both killed
# on exit), then runs the real pipeline (make kernel) for part of the 6.12
# guest kernel (BUILD_TARGETS, default "mm/": kbuild's prepare step plus that
# directory) in a fresh build dir under $OUT/test-distcc/, with ccache off
# (CCACHE=0, else a warm cache compiles nothing) and
# DISTCC_HOSTS="127.0.0.1:P1/1 127.0.0.1:P2/1": two slots, so build.sh runs
# -j2 (the machine's limit) and each daemon compiles one job at a time.
# Asserts: the build succeeded at -j2, each daemon's log shows compiles that
# finished COMPILE_OK (counts printed), every mm/ object appears in the
# daemons' logs (none was compiled locally); the build is read through its
# identity file, by path (<build dir>/mmbatch-build.env: TREE, BUILD_DIR,
# CONFIG_HASH, and no IMAGE for a partial build); an unparsable DISTCC_HOSTS
# fails the build stage with one line naming it.
# Reads: TOP, OUT, MAKE, DISTCC_TEST_TARGETS (default "mm/"),
#        DISTCC_TEST_MIN (compiles each daemon must show, default 3).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
TEST_NAME=${TEST_STAGE:-distcc}
make_cmd=${MAKE:-make}
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs JOBS CCACHE_PREFIX KB_IDENTITY_OUT
export BASE=6.12 FLAVOR=guest
targets=${DISTCC_TEST_TARGETS:-mm/}
min=${DISTCC_TEST_MIN:-3}
# Not assert.sh's scratch (under $OUT): distccd drops root for its own user,
# which must write its log and pid file here, and may not be able to reach
# $OUT (e.g. under /root). Removed at exit by assert.sh all the same.
T=$(mktemp -d)
chmod 1777 "$T"
daemon_pids=() ports=()
stop_daemons() {
	local p
	for p in ${daemon_pids[@]+"${daemon_pids[@]}"}; do kill "$p" 2>/dev/null || true; done
	for p in ${daemon_pids[@]+"${daemon_pids[@]}"}; do wait "$p" 2>/dev/null || true; done
}
# shellcheck disable=SC2034 # read by tests/lib/assert.sh's EXIT trap
cleanup_hook=stop_daemons
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
# shellcheck source=tools/kbuild/identity.sh
. "$TOP/tools/kbuild/identity.sh"

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start_daemon N: distccd number N on a free port; appends it to ports.
start_daemon() {
	local n=$1 p tries=0 pid
	while :; do
		p=$((20000 + RANDOM % 40000))
		port_in_use "$p" || break
		tries=$((tries + 1)); [ $tries -lt 50 ] || { fail "no free port found for distccd $n"; exit 1; }
	done
	# --no-detach: $! is the daemon itself, so the EXIT trap can stop it.
	distccd --no-detach --daemon --allow 127.0.0.1 --listen 127.0.0.1 --port "$p" \
		--jobs 1 --log-level info --log-file "$T/distccd$n.log" --pid-file "$T/distccd$n.pid" &
	pid=$!
	daemon_pids+=("$pid")
	for _ in $(seq 50); do port_in_use "$p" && break; sleep 0.2; done
	port_in_use "$p" || { fail "distccd $n did not listen on 127.0.0.1:$p:"; cat "$T/distccd$n.log" >&2 || true; exit 1; }
	echo "    distccd $n: pid $pid, 127.0.0.1:$p, log $T/distccd$n.log"
	ports+=("$p")
}

echo "== two distccd daemons on 127.0.0.1"
start_daemon 1
start_daemon 2
# distcc takes the first host with a free slot, so the second daemon works
# only while the first is busy: in runs here it got 8-90 of ~110 compiles
# (--randomize did not even that out). Hence a low minimum per daemon and a
# separate check that every mm/ object was compiled by one of them.
hosts="127.0.0.1:${ports[0]}/1 127.0.0.1:${ports[1]}/1"

mkdir "$T/distcc-client"
# The build dir given (KB_BUILD_DIR), so its identity file is known by path.
build=$OUT/test-distcc/6.12-guest-distcc
id=$build/mmbatch-build.env
rm -rf "$build"
mkdir -p "$OUT/test-distcc"
echo "== make kernel BUILD_TARGETS='$targets' CCACHE=0 DISTCC_HOSTS='$hosts' (fresh build dir $build)"
t0=$SECONDS
rc=0
# A fresh DISTCC_DIR: no host back-off state from earlier runs.
nice -n 5 env KB_BUILD_DIR="$build" BUILD_TARGETS="$targets" CCACHE=0 DISTCC_HOSTS="$hosts" \
	DISTCC_DIR="$T/distcc-client" "$make_cmd" --no-print-directory -C "$TOP" kernel >"$T/kernel.out" 2>&1 || rc=$?
grep -E '^(config|build): ' "$T/kernel.out" | grep -v ' compile: objects ' | sed 's/^/    /'
expect_eq "make kernel through distcc: exit status" 0 "$rc"
[ $rc -eq 0 ] || { tail -n 30 "$T/kernel.out" >&2; exit 1; }
echo "    took $((SECONDS - t0)) s"
expect_eq "last line: the build dir" "$build" "$(tail -n 1 "$T/kernel.out")"
expect_eq "build.sh chose -j from the distcc slots" 1 "$(grep -c "^build: distcc to '$hosts' (2 slots), -j2$" "$T/kernel.out" || true)"
expect_file "mm/memory.o built" "$build/mm/memory.o"
expect_eq "identity BUILD_DIR" "$build" "$(bid_get "$id" BUILD_DIR 2>&1)"
expect_eq "identity CONFIG_HASH = sha256 of the .config" "$(sha256sum <"$build/.config" | cut -c1-64)" "$(bid_get "$id" CONFIG_HASH 2>&1)"
rc=0; out=$(bid_get "$id" IMAGE 2>&1) || rc=$?
expect_fails "identity of a partial build (BUILD_TARGETS): no IMAGE" "IMAGE is not set" "$rc" "$out"

# Let the daemons finish writing their logs.
sleep 1
echo "    kbuild compile lines in build.log: $(grep -c '^  CC ' "$build/build.log" || true)"
for n in 1 2; do
	ok=$(grep -c 'COMPILE_OK' "$T/distccd$n.log" || true)
	# kbuild probes compiler options by compiling with flags that may be
	# refused: those show up as COMPILE_ERROR and are expected.
	bad=$(grep -c 'COMPILE_ERROR' "$T/distccd$n.log" || true)
	echo "    distccd $n: $ok COMPILE_OK, $bad COMPILE_ERROR (kbuild's option probes); e.g. $(grep -m1 'COMPILE_OK' "$T/distccd$n.log" | sed 's/.*COMPILE_OK/COMPILE_OK/')"
	if [ "$ok" -ge "$min" ]; then pass "distccd $n compiled remotely: $ok COMPILE_OK (>= $min)"
	else fail "distccd $n: expected >= $min COMPILE_OK lines in its log, got $ok"; fi
	cp "$T/distccd$n.log" "$OUT/test-distcc/distccd$n.log"
done
tree=$(bid_get "$id" TREE 2>&1 || true)
expect_eq "identity TREE" "$OUT/tree/6.12-mmbatch" "$tree"
mm_remote=$(cat "$T"/distccd[12].log | grep 'COMPILE_OK' | grep -c " $tree/mm/[^/ ]*\.c$" || true)
mm_local=$(find "$build/mm" -maxdepth 1 -name '*.o' | wc -l)
echo "    mm/*.c compiled remotely: $mm_remote; mm/*.o in the build dir: $mm_local (daemon logs kept in $OUT/test-distcc/)"
expect_eq "every mm/ object was compiled by a daemon" "$mm_local" "$mm_remote"

echo "== an unparsable DISTCC_HOSTS fails the build stage with one line"
rc=0
env KB_BUILD_DIR="$build" BUILD_TARGETS="$targets" CCACHE=0 DISTCC_HOSTS="127.0.0.1:x/y" DISTCC_DIR="$T/distcc-client" \
	"$TOP/tools/kbuild/build.sh" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
expect_eq "build.sh with DISTCC_HOSTS='127.0.0.1:x/y': exit status" 1 "$rc"
expect_eq "its error" "ERROR: build: DISTCC_HOSTS='127.0.0.1:x/y': distcc cannot parse this host list (see distcc(1) HOST SPECIFICATIONS)" "$(grep '^ERROR' "$T/bad.err")"
expect_eq "its stderr lines" 1 "$(wc -l <"$T/bad.err")"

rm -rf "$build"
test_summary
