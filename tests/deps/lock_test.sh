#!/bin/bash
# tools/deps.sh on a host where something else holds the apt/dpkg locks, as
# unattended-upgrades does at the first boot of a Debian cloud host: the
# installer says once on stderr that it waits, waits, then succeeds; with a
# short DEPS_LOCK_TIMEOUT it fails naming the holder.
#
# The locks are POSIX (fcntl) locks, the kind apt and dpkg take (a flock(1)
# lock on the same file does not stop apt). The package is one that is
# installed already; a stub dpkg-query makes deps.sh believe it is missing,
# so deps.sh runs the real apt-get update and apt-get install --no-upgrade,
# which change nothing. Checks that its version is the same afterwards.
# Needs root and python3 (holds the locks). Reads: DEPS_TEST_PKG (default
# debianutils), DEPS_TEST_HOLD (seconds a lock is held, default 5).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"
pkg=${DEPS_TEST_PKG:-debianutils}
hold=${DEPS_TEST_HOLD:-5}
[ "$(id -u)" = 0 ] || { echo "ERROR: $TEST_NAME: needs root (apt-get install)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "ERROR: $TEST_NAME: needs python3 (make deps-installer)" >&2; exit 2; }
before=$(dpkg-query -W -f='${Status} ${Version}' "$pkg" 2>/dev/null || true)
case "$before" in "install ok installed "*) ;; *) echo "ERROR: $TEST_NAME: $pkg is not installed" >&2; exit 2 ;; esac

scratch
holder_pid=
stop_holder() { [ -z "$holder_pid" ] || { kill "$holder_pid" 2>/dev/null || true; wait "$holder_pid" 2>/dev/null || true; }; holder_pid=; }
# shellcheck disable=SC2034 # run by tests/lib/assert.sh's EXIT trap
cleanup_hook=stop_holder
echo "$pkg" > "$T/list.txt"
mkdir "$T/stub"
cat > "$T/stub/dpkg-query" <<STUB
#!/bin/sh
# deps.sh's question "is $pkg installed?" answered no; everything else real.
case " \$* " in *" $pkg "*) echo "dpkg-query: no packages found matching $pkg" >&2; exit 1 ;; esac
exec /usr/bin/dpkg-query "\$@"
STUB
chmod 0755 "$T/stub/dpkg-query"

# hold_lock FILE SECONDS: a POSIX write lock on FILE, in the background,
# taken before this returns.
hold_lock() {
	: > "$T/holder.out"
	python3 -c '
import fcntl, sys, time
f = open(sys.argv[1], "r+")
fcntl.lockf(f, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(float(sys.argv[2]))' "$1" "$2" > "$T/holder.out" &
	holder_pid=$!
	for _ in $(seq 50); do grep -q locked "$T/holder.out" && return 0; sleep 0.1; done
	echo "ERROR: $TEST_NAME: could not take $1" >&2; exit 1
}

# run_deps LOGNAME [VAR=VALUE...]: deps.sh with the stub; sets rc and took.
run_deps() {
	local log=$1 t0=$SECONDS
	shift
	rc=0
	env "$@" PATH="$T/stub:$PATH" "$TOP/tools/deps.sh" "$T/list.txt" > "$T/$log.out" 2> "$T/$log.err" || rc=$?
	took=$((SECONDS - t0))
	echo "  deps.sh stderr:"; sed 's/^/    /' "$T/$log.err" | grep -v 'N: Ignoring file' || true
}

# waits_then_succeeds LOCKFILE: the wait, the one note, the success.
waits_then_succeeds() {
	local lock=$1
	echo "--- $lock held for $hold s by python3, then released"
	hold_lock "$lock" "$hold"
	run_deps wait
	stop_holder
	expect_eq "deps.sh exit status with $lock held for $hold s" 0 "$rc"
	if [ "$took" -ge $((hold - 2)) ]; then pass "deps.sh waited: took $took s (lock held $hold s)"
	else fail "deps.sh should have waited about $hold s, took $took s"; fi
	grep "^deps: $lock is held by PID .* waiting up to 600 s" "$T/wait.err" > "$T/notes" || true
	expect_lines "'waiting' notes on stderr naming $lock" 1 "@$T/notes"
}

waits_then_succeeds /var/lib/dpkg/lock-frontend
waits_then_succeeds /var/lib/apt/lists/lock

echo "--- /var/lib/dpkg/lock-frontend held for 8 s, DEPS_LOCK_TIMEOUT=2"
hold_lock /var/lib/dpkg/lock-frontend 8
run_deps timeout DEPS_LOCK_TIMEOUT=2
stop_holder
expect_eq "deps.sh exit status when the lock outlasts DEPS_LOCK_TIMEOUT" 1 "$rc"
expect_match "the error names the lock, its holder and the timeout" \
	'^ERROR: deps: /var/lib/dpkg/lock-frontend still held by PID [0-9]* \(python3\) after 2 s' "@$T/timeout.err"

echo "--- no lock held"
run_deps free
expect_eq "deps.sh exit status, no lock held" 0 "$rc"
expect_lacks "'waiting' notes on stderr, no lock held" 'waiting up to' "@$T/free.err"

expect_eq "$pkg status and version before and after (nothing changed)" "$before" \
	"$(dpkg-query -W -f='${Status} ${Version}' "$pkg")"
