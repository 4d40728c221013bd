#!/bin/bash
# `make check-distcc`: kernel builds through distcc (DISTCC_HOSTS). Starts two
# distccd daemons on 127.0.0.1 (two free ports, logs in a temp dir, both killed
# on exit), then recompiles part of the 6.12 guest kernel (BUILD_TARGETS,
# default "mm/") through the real pipeline (make kernel) with ccache off
# (CCACHE=0, else a warm cache compiles nothing) and
# DISTCC_HOSTS="127.0.0.1:P1/1 127.0.0.1:P2/1": two slots, so build.sh runs
# -j2 (the machine's limit) and each daemon compiles one job at a time.
# Only that part is compiled: the build dir ($OUT/test-distcc/6.12-guest-distcc)
# is seeded from the finished 6.12 guest build (make guest-kernel-6.12 first,
# a no-op when built; config.sh's KB_SEED_FROM copies it, paths rewritten),
# then the copy's record of its compiler is made distcc's (below) and the
# objects under the targets' dirs are deleted (with their .cmd files), so
# kbuild compiles exactly those again and nothing else (prepare, host tools
# and objtool are up to date). The compiler record: kbuild compiles again
# every object whose command changed, and with CC='distcc gcc' the compiler
# version text changes too (distcc rewrites gcc to x86_64-linux-gnu-gcc,
# also for --version), which re-runs syncconfig and touches
# include/config/CC_VERSION_TEXT, on which every object depends
# (include/linux/compiler-version.h): a seeded copy would compile all of
# prepare and mm/ again. So, like config.sh's path rewrite, the seed's CC
# (auto.conf.cmd's, also its HOSTCC) becomes build.sh's 'distcc gcc' in its
# commands, and its CONFIG_CC_VERSION_TEXT distcc's, in every text file that
# holds them (the dates kbuild compares kept). Seeded, without that rewrite,
# or in a fresh dir (as before), the same build compiled prepare and the host
# tools too, not mm/ alone (measured: docs/results/2026-12-07-cold-check.md).
# Asserts: the build succeeded at -j2 with CC='distcc gcc', the objects it
# compiled (build.sh's count) are exactly the deleted ones (nothing else
# compiled), each is back, each daemon's log shows compiles that finished
# COMPILE_OK (counts printed), the sources the daemons compiled are exactly
# the deleted objects' (none compiled locally, nothing else sent); the build
# is read through its identity file, by path (<build dir>/mmbatch-build.env:
# TREE, BUILD_DIR, CONFIG_HASH, and no IMAGE for a partial build); an
# unparsable DISTCC_HOSTS fails the build stage with one line naming it.
# Reads: TOP, OUT, MAKE, DISTCC_TEST_TARGETS (default "mm/": directory
#        targets, each "DIR/"), DISTCC_TEST_MIN (compiles each daemon must
#        show, default 3).
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

# rewrite_words DIR OLD NEW: OLD, where it stands as a word of a command or
# a quoted value (after a start of line, blank, ';', '=', ',', quote or '(';
# before a blank, ';', ',', quote, ')' or an end of line), replaced by NEW
# in every text file of DIR that holds it. Each file's date is kept to the
# nanosecond (kbuild compares .config, auto.conf, autoconf.h by date), but
# for the .cmd files: kbuild reads them, never compares their dates, and
# config.sh's path rewrite leaves them dated now too; touching each of the
# ~1700 would take ~9 s. Prints the number of files rewritten.
rewrite_words() {
	local dir=$1 t f
	LC_ALL=C grep -rlZ --binary-files=without-match -F -e "$2" "$dir" >"$T/rw.list" || true
	[ -s "$T/rw.list" ] || { echo 0; return 0; }
	grep -zv '\.cmd$' <"$T/rw.list" | xargs -0 -r stat -c '%.9Y %n' >"$T/rw.dates"
	# shellcheck disable=SC2016 # perl's variables, not the shell's
	LC_ALL=C OLD=$2 NEW=$3 xargs -0 perl -pi -e \
		's/(?<![^\s;=,"\x27(])\Q$ENV{OLD}\E(?=[\s;,"\x27)]|$)/$ENV{NEW}/g' <"$T/rw.list"
	while read -r t f; do touch -h -d "@$t" -- "$f"; done <"$T/rw.dates"
	tr -cd '\0' <"$T/rw.list" | wc -c
}

stage_t0=$SECONDS
# The targets' directories (the objects compiled again).
dirs=()
for t in $targets; do
	[[ "$t" =~ ^[A-Za-z0-9_][A-Za-z0-9_/-]*/$ ]] ||
		{ fail "DISTCC_TEST_TARGETS='$targets': '$t' is not a directory target such as mm/"; exit 1; }
	dirs+=("${t%/}")
done

echo "== the 6.12 guest build to seed from: make guest-kernel-6.12 (a no-op when built)"
t0=$SECONDS
guest_id=$OUT/build/6.12-guest/mmbatch-build.env
rc=0
nice -n 5 "$make_cmd" --no-print-directory -C "$TOP" guest-kernel-6.12 >"$T/guest.out" 2>&1 || rc=$?
grep -E '^(config|build): ' "$T/guest.out" | grep -v ' compile: objects ' | sed 's/^/    /' || true
expect_eq "make guest-kernel-6.12: exit status" 0 "$rc"
[ $rc -eq 0 ] || { tail -n 30 "$T/guest.out" >&2; exit 1; }
echo "    took $((SECONDS - t0)) s"
expect_eq "make guest-kernel-6.12: its identity file, last" "$guest_id" "$(tail -n 1 "$T/guest.out")"
tree_dir=$OUT/tree/6.12-mmbatch
seed=$(bid_get "$guest_id" BUILD_DIR 2>&1 || true)
expect_eq "the guest build's identity BUILD_DIR" "$OUT/build/6.12-guest" "$seed"
expect_eq "the guest build's identity TREE" "$tree_dir" "$(bid_get "$guest_id" TREE 2>&1)"
rc=0; out=$(bid_get "$guest_id" IMAGE 2>&1) || rc=$?
expect_eq "the guest build is finished (its identity names an IMAGE): bid_get exit status" 0 "$rc"
[ $rc -eq 0 ] || { echo "$out" >&2; exit 1; }

# The build dir given (KB_BUILD_DIR), so its identity file is known by path.
build=$OUT/test-distcc/6.12-guest-distcc
id=$build/mmbatch-build.env
rm -rf "$build"
mkdir -p "$OUT/test-distcc" "$T/distcc-client"
echo "== make config KB_SEED_FROM=$seed (new build dir $build)"
t0=$SECONDS
rc=0
env KB_BUILD_DIR="$build" KB_SEED_FROM="$seed" "$make_cmd" --no-print-directory -C "$TOP" config >"$T/config.out" 2>&1 || rc=$?
grep -E '^config: ' "$T/config.out" | sed 's/^/    /' || true
expect_eq "make config KB_SEED_FROM: exit status" 0 "$rc"
[ $rc -eq 0 ] || { tail -n 30 "$T/config.out" >&2; exit 1; }
expect_contains "the build dir starts as a copy of the guest build" "$build starts as a copy of $seed (KB_SEED_FROM" "@$T/config.out"

# The seed's record of its compiler made build.sh's with DISTCC_HOSTS and
# CCACHE=0 (its CC and HOSTCC; checked against build.sh's own line below).
new_cc='distcc gcc'
# shellcheck disable=SC2016 # make's $(CC), not the shell's
old_cc=$(sed -n 's/^ifneq "\$(CC)" "\(.*\)"$/\1/p' "$build/include/config/auto.conf.cmd")
# shellcheck disable=SC2016 # make's $(CC_VERSION_TEXT), not the shell's
old_ver=$(sed -n 's/^ifneq "\$(CC_VERSION_TEXT)" "\(.*\)"$/\1/p' "$build/include/config/auto.conf.cmd")
# As the top Makefile computes it (CC_VERSION_TEXT).
new_ver=$(LC_ALL=C DISTCC_DIR="$T/distcc-client" $new_cc --version 2>/dev/null | head -n 1 | tr -d '#')
if [ -z "$old_cc" ] || [ -z "$old_ver" ] || [ -z "$new_ver" ]; then
	fail "the seed's compiler (auto.conf.cmd: CC '$old_cc', CC_VERSION_TEXT '$old_ver') or distcc's version text ('$new_ver') not found"
	exit 1
fi
ncc=0 nver=0
[ "$old_cc" = "$new_cc" ] || ncc=$(rewrite_words "$build" "$old_cc" "$new_cc")
[ "$old_ver" = "$new_ver" ] || nver=$(rewrite_words "$build" "$old_ver" "$new_ver")
echo "    the seed's compiler record: CC '$old_cc' -> '$new_cc' in $ncc files, CC_VERSION_TEXT '$old_ver' -> '$new_ver' in $nver files"
expect_eq "the seeded .config names distcc's compiler version" "CONFIG_CC_VERSION_TEXT=\"$new_ver\"" "$(grep '^CONFIG_CC_VERSION_TEXT=' "$build/.config")"

# The targets' objects (not a module's .mod.o: made after modpost, never by
# a directory target), each with its .cmd file, and the sources distcc gets.
for d in "${dirs[@]}"; do [ -d "$build/$d" ] || { fail "DISTCC_TEST_TARGETS: no $d/ in the guest build"; exit 1; }; done
(cd "$build" && find "${dirs[@]}" -name '*.o' ! -name '*.mod.o') | LC_ALL=C sort >"$T/objects"
: >"$T/sources"
while read -r o; do
	rm -f "$build/$o" "$build/$(dirname "$o")/.$(basename "$o").cmd"
	s=
	for c in "$tree_dir/${o%.o}.c" "$tree_dir/${o%.o}.S" "$build/${o%.o}.c" "$build/${o%.o}.S"; do
		[ -f "$c" ] && { s=$c; break; }
	done
	[ -n "$s" ] || { fail "no source of $o in $tree_dir or $build"; s="?$o"; }
	echo "$s" >>"$T/sources"
done <"$T/objects"
nobj=$(wc -l <"$T/objects")
[ "$nobj" -gt 0 ] || { fail "no object under ${dirs[*]} in the seeded copy"; exit 1; }
echo "    deleted $nobj objects under ${dirs[*]} (and their .cmd files); seeding took $((SECONDS - t0)) s"

echo "== two distccd daemons on 127.0.0.1"
start_daemon 1
start_daemon 2
# distcc takes the first host with a free slot, so the second daemon works
# only while the first is busy: in cold runs (prepare and mm/) it got 8-90
# of ~110 compiles (--randomize did not even that out; a seeded run's share:
# docs/results/2026-12-07-cold-check.md). Hence a low minimum per daemon and
# a separate check that every mm/ object was compiled by one of them.
hosts="127.0.0.1:${ports[0]}/1 127.0.0.1:${ports[1]}/1"

echo "== make kernel BUILD_TARGETS='$targets' CCACHE=0 DISTCC_HOSTS='$hosts' (seeded build dir $build)"
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
expect_match "build.sh compiled with CC='$new_cc' (the seed's compiler record rewritten to it)" "^build: .*\(make -j2, CC='$(re_quote "$new_cc")', log " "@$T/kernel.out"
expect_no_match "kbuild did not run syncconfig again (the compiler record matched)" '^  SYNC ' "@$build/build.log"
compiled=$(sed -nE "s/^build: .*: targets '$(re_quote "$targets")' done in [0-9]+ s \(([0-9]+) objects compiled\)$/\1/p" "$T/kernel.out")
echo "    objects compiled: ${compiled:-?} (the objects deleted under ${dirs[*]}: $nobj)"
expect_eq "objects compiled = the objects deleted under ${dirs[*]} (nothing else compiled)" "$nobj" "$compiled"
missing=$(while read -r o; do [ -s "$build/$o" ] || echo "$o"; done <"$T/objects")
expect_eq "every deleted object built again" "" "$missing"
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
	# Cold builds sent kbuild's option probes too, some refused
	# (COMPILE_ERROR, expected); the seeded copy's build sent none.
	bad=$(grep -c 'COMPILE_ERROR' "$T/distccd$n.log" || true)
	echo "    distccd $n: $ok COMPILE_OK, $bad COMPILE_ERROR; e.g. $(grep -m1 'COMPILE_OK' "$T/distccd$n.log" | sed 's/.*COMPILE_OK/COMPILE_OK/')"
	if [ "$ok" -ge "$min" ]; then pass "distccd $n compiled remotely: $ok COMPILE_OK (>= $min)"
	else fail "distccd $n: expected >= $min COMPILE_OK lines in its log, got $ok"; fi
	cp "$T/distccd$n.log" "$OUT/test-distcc/distccd$n.log"
done
tree=$(bid_get "$id" TREE 2>&1 || true)
expect_eq "identity TREE" "$tree_dir" "$tree"
# The source of each COMPILE_OK: the line's last word.
cat "$T"/distccd[12].log | sed -n 's/.* COMPILE_OK .* \([^ ]*\)$/\1/p' | LC_ALL=C sort >"$T/remote"
echo "    sources compiled remotely: $(wc -l <"$T/remote"); objects deleted: $nobj (daemon logs kept in $OUT/test-distcc/)"
expect_eq "the daemons compiled every deleted object's source, and nothing else" "$(LC_ALL=C sort "$T/sources")" "$(cat "$T/remote")"

echo "== an unparsable DISTCC_HOSTS fails the build stage with one line"
rc=0
env KB_BUILD_DIR="$build" BUILD_TARGETS="$targets" CCACHE=0 DISTCC_HOSTS="127.0.0.1:x/y" DISTCC_DIR="$T/distcc-client" \
	"$TOP/tools/kbuild/build.sh" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
expect_eq "build.sh with DISTCC_HOSTS='127.0.0.1:x/y': exit status" 1 "$rc"
expect_eq "its error" "ERROR: build: DISTCC_HOSTS='127.0.0.1:x/y': distcc cannot parse this host list (see distcc(1) HOST SPECIFICATIONS)" "$(grep '^ERROR' "$T/bad.err")"
expect_eq "its stderr lines" 1 "$(wc -l <"$T/bad.err")"

rm -rf "$build"
echo "    stage took $((SECONDS - stage_t0)) s"
test_summary
