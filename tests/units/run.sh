#!/bin/bash
# The systemd units of the mmbatchd package (`make check-units`):
# each UNIT_FILE a timed step (tests/lib/assert.sh), selected by ONLY as
# units/NAME (e.g. ONLY=units/mmbatchd.service); each
# of:
#   - `systemd-analyze verify` in a scratch root (the host's units, a stand-in
#     for every Exec*= binary) passes without a single warning;
#   - the same verify by the systemd of each Debian root of
#     UNIT_VERIFY_SUITES (default trixie: Debian 13's systemd 257, which
#     rejects what 252 lets pass, e.g. a Requires= on a unit 256 renamed):
#     the cached tools/pkg/mkchroot.sh tarball of that suite (built on first
#     use, ~75 s; needs mmdebstrap, zstd) unpacked into the scratch dir, the
#     unit and its Exec*= stand-ins copied in, `chroot ROOT systemd-analyze
#     verify --man=no` (the root has no man(1));
#   - every Documentation=file: path is a file the package installs
#     (specs/mmbatchd/files.list) and that file mentions the unit's topic;
#     every man:mmbatch*(N)/man:mmbench*(N) page is one the package installs
#     (@MAN@/NAME.N in files.list) and its source docs/man/NAME.N.scd
#     mentions the topic; other man: pages and http(s): are external;
#   - the sandbox every unit needs: ProtectSystem=strict together with
#     ProtectKernelTunables=yes (strict alone leaves /proc and /sys
#     writable), the ReadOnlyPaths=/InaccessiblePaths= lines that make it
#     hold on systemd 255-257 too, NoNewPrivileges,
#     SystemCallArchitectures=native, CapabilityBoundingSet= and
#     SystemCallFilter= set;
#   - per unit: mmbatchd.service has the lines its behaviour rests on
#     (ExecStart=, Type=notify, After=systemd-sysctl.service, Restart=, ...,
#     the exit watcher's socket through the fd store: ExecStartPre=+ with
#     --open-exit-watcher, FileDescriptorStoreMax=, NotifyAccess=exec; so
#     no CAP_NET_ADMIN in its bounding set, no AF_NETLINK, no capset), keeps
#     PrivateNetwork/PrivateUsers off (taskstats), and its /proc/sys and /sys
#     ReadWritePaths= are exactly the FILE column of `$MMBATCHD --list-keys`
#     (the daemon's sysctl and sysfs allowlists), each a single file with
#     '-', and its other ReadWritePaths= the state dir (and, optionally,
#     -/var/lib/prometheus/node-exporter);
#   - `systemd-analyze security --offline=true` rates it at most its limit.
# Prints every check and, at the end, the scores. Works without systemd as
# PID 1.
# Reads: MMBATCHD (the daemon binary whose --list-keys is the allowlist;
#   required when mmbatchd.service is checked), UNIT_MAX_EXPOSURE_MMBATCHD
#   (default 1.5), UNIT_MAX_EXPOSURE_SMOKE (0.8), UNIT_MAX_EXPOSURE_CANARY
#   (0.7): the scores the units have, so that any loss fails,
#   UNIT_FILES_LIST (default specs/mmbatchd/files.list of this repo),
#   MAN_DIR (the built man pages, out/man: verify's own `man PAGE` runs find
#   the package's pages there; unset, verify skips every man: page, --man=no),
#   UNIT_VERIFY_SUITES (default trixie; empty: the host's verify only, noted
#   as a skip), OUT, MKCHROOT_CACHE (the chroot cache, tools/pkg/mkchroot.sh), TEST_STAGE, ONLY.
# shellcheck disable=SC2154 # VAR_out is set by capture
set -eu

usage() { echo "usage: MMBATCHD=BIN run.sh UNIT_FILE..." >&2; exit 2; }
[ $# -ge 1 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck disable=SC2034 # read by tests/lib/assert.sh (its scratch dir fallback when OUT is unset)
TOP=$top
OUT=${OUT:-$top/out}
export OUT
UNIT_VERIFY_SUITES=${UNIT_VERIFY_SUITES-trixie}
files_list=${UNIT_FILES_LIST:-$top/specs/mmbatchd/files.list}
for unit in "$@"; do
	[ -r "$unit" ] || { echo "ERROR: units: cannot read '$unit'" >&2; exit 2; }
done
[ -r "$files_list" ] || { echo "ERROR: units: cannot read the package list '$files_list'" >&2; exit 2; }

# The stage ONLY's STAGE/TEST words are matched against (default units).
TEST_STAGE=${TEST_STAGE:-units}
# shellcheck disable=SC2034 # read by tests/lib/assert.sh
TEST_NAME=$TEST_STAGE
# shellcheck source=../lib/assert.sh
. "$top/tests/lib/assert.sh"
scratch
tmp=$T
scores=()
# systemd-analyze verify runs `man` for each Documentation=man: page, on the
# host: give it the package's pages, laid out as man wants them.
verify_man=(--man=no)
if [ -n "${MAN_DIR:-}" ] && [ -d "$MAN_DIR" ]; then
	for f in "$MAN_DIR"/*.[1-8]; do
		[ -f "$f" ] || continue
		mkdir -p "$tmp/man/man${f##*.}"
		cp "$f" "$tmp/man/man${f##*.}/"
	done
	MANPATH="$tmp/man:$(manpath 2>/dev/null || echo /usr/share/man)"
	export MANPATH
	verify_man=()
else
	echo "units: MAN_DIR unset: systemd-analyze verify --man=no (the man: pages are still checked against $files_list)" >&2
fi

# max_exposure NAME: the limit of one unit.
max_exposure() {
	case "$1" in
	mmbatchd.service) echo "${UNIT_MAX_EXPOSURE_MMBATCHD:-1.5}" ;;
	mmbatch-smoke.service) echo "${UNIT_MAX_EXPOSURE_SMOKE:-0.8}" ;;
	mmbatch-canary.service) echo "${UNIT_MAX_EXPOSURE_CANARY:-0.7}" ;;
	*) echo "${UNIT_MAX_EXPOSURE:-3.0}" ;;
	esac
}

# topic NAME: a word the unit's documentation must mention.
topic() {
	case "$1" in
	mmbatch-smoke.service) echo smoke ;;
	mmbatch-canary.service) echo canary ;;
	*) echo "${1%.service}" ;;
	esac
}

# values UNIT KEY: every value of KEY= in UNIT, one word a line.
values() { sed -n "s/^$2=//p" "$1" | tr ' ' '\n' | sed '/^$/d'; }

# has_line UNIT LINE: LINE is in UNIT verbatim.
has_line() { expect_line "$(basename "$1")" "$2" "@$1"; }

# installed_source DEST: the repo file files.list installs as DEST.
installed_source() {
	awk -v dest="$1" '
		/^#/ || NF < 4 { next }
		{
			src = $1; d = $2; n = split(src, part, "/"); base = part[n]
			if (d == dest || (d ~ /\/$/ && d base == dest)) { print src; exit }
		}' "$files_list"
}

# The allowlists: the FILE column of `mmbatchd --list-keys`, checked line by
# line (KEY<TAB>FILE<TAB>reason<TAB>values: a sysctl's FILE is
# /proc/sys/KEY-as-path, a sysfs file's is KEY itself, under /sys/kernel/mm).
list_keys() {
	local bin=${MMBATCHD:-}
	if [ -z "$bin" ]; then
		fail "MMBATCHD is not set: cannot read the daemon's allowlist (mmbatchd --list-keys)"
		return 1
	fi
	local rc=0
	"$bin" --list-keys > "$tmp/list-keys.out" 2> "$tmp/list-keys.err" || rc=$?
	if [ $rc -ne 0 ]; then
		fail "'$bin --list-keys' failed (exit $rc), so the unit's /proc/sys and /sys paths cannot be checked:"
		sed 's/^/    /' "$tmp/list-keys.err" >&2
		return 1
	fi
	if [ ! -s "$tmp/list-keys.out" ]; then
		fail "'$bin --list-keys' printed nothing (expected one allowed key a line)"
		return 1
	fi
	if ! awk -F'\t' '
		{ p = $1; if ($1 !~ /^\//) { gsub(/\./, "/", p); p = "/proc/sys/" p } }
		NF != 4 || $1 == "" || $2 != p || $3 == "" || $4 == "" || ($1 ~ /^\// && $1 !~ /^\/sys\/kernel\/mm\/[^ ]+$/) {
			printf "    line %d: expected KEY<TAB>FILE<TAB>reason<TAB>values (FILE: /proc/sys/KEY-as-path, or KEY when it is a /sys/kernel/mm path), got: %s\n", NR, $0; bad = 1 }
		END { exit bad }' "$tmp/list-keys.out" > "$tmp/list-keys.bad"; then
		fail "'$bin --list-keys' output is malformed:"
		cat "$tmp/list-keys.bad" >&2
		return 1
	fi
	pass "'$bin --list-keys': $(grep -c '^/' "$tmp/list-keys.out") allowed sysfs files, $(grep -vc '^/' "$tmp/list-keys.out") allowed sysctls"
	cut -f2 "$tmp/list-keys.out" | sort -u > "$tmp/allow.paths"
}

# check_mmbatchd UNIT: what only the daemon's unit must have.
check_mmbatchd() {
	local unit=$1 rw
	has_line "$unit" "ExecStart=/usr/sbin/mmbatchd --profile /etc/mmbatch/mmbatchd.yaml --foreground"
	has_line "$unit" "Type=notify"
	has_line "$unit" "After=systemd-sysctl.service"
	has_line "$unit" "Restart=on-failure"
	has_line "$unit" "StateDirectory=mmbatch"
	has_line "$unit" "RestrictAddressFamilies=AF_UNIX"
	# CAP_NET_ADMIN only in the privileged ExecStartPre that subscribes the
	# exit watcher's socket and stores it for the daemon (issue 41).
	has_line "$unit" "ExecStartPre=+/usr/sbin/mmbatchd --open-exit-watcher"
	has_line "$unit" "FileDescriptorStoreMax=1"
	has_line "$unit" "NotifyAccess=exec"
	# (Through files: a value such as @system-service would read as one.)
	values "$unit" CapabilityBoundingSet > "$tmp/caps.all"
	values "$unit" SystemCallFilter > "$tmp/syscalls.all"
	expect_no_line "CapabilityBoundingSet= without CAP_NET_ADMIN" CAP_NET_ADMIN "@$tmp/caps.all"
	expect_no_line "SystemCallFilter= without capset" capset "@$tmp/syscalls.all"
	has_line "$unit" "ExecReload=/bin/kill -HUP \$MAINPID"
	expect_match "WatchdogSec= set" '^WatchdogSec=.' "@$unit"

	# A private network namespace (no taskstats), a user namespace (the
	# passed socket's subscription needs the initial ones).
	for key in PrivateNetwork PrivateUsers; do
		val=$(sed -n "s/^$key=//p" "$unit")
		case "$val" in
		''|no|false|0) pass "$key not enabled" ;;
		*) fail "$key=$val would break the daemon (expected unset or no)" ;;
		esac
	done

	values "$unit" ReadWritePaths > "$tmp/rw.all"
	# Under /proc and /sys: single files only, each optional ('-'); no
	# directory, no tree (ReadWritePaths= takes no globs, so an allowlist by
	# file is a list of files).
	rw=$(grep -E '^-?/(proc|sys)(/|$)' "$tmp/rw.all" | grep -vE '^-/proc/sys/[^/]+/.+|^-/sys/kernel/mm/[^/]+/.+' | paste -sd' ' || true)
	if [ -z "$rw" ]; then
		pass "every ReadWritePaths= under /proc and /sys is '-/proc/sys/<dir>/<file>' or '-/sys/kernel/mm/<dir>/<file>'"
	else
		fail "ReadWritePaths= under /proc and /sys: expected only '-/proc/sys/<dir>/<file>' and '-/sys/kernel/mm/<dir>/<file>' entries, got: $rw"
	fi
	grep -E '^-?/(proc|sys)/' "$tmp/rw.all" | sed 's/^-//' | sort -u > "$tmp/rw.kernel"
	if list_keys; then
		# A difference: - a listed file missing, + a path not listed.
		expect_eq "ReadWritePaths= under /proc/sys and /sys vs the FILE column of mmbatchd --list-keys" \
			"$(cat "$tmp/allow.paths")" "$(cat "$tmp/rw.kernel")"
	fi
	# Outside them: the state dir, and (when the unit has it) the
	# textfile-collector directory for metrics_file, optional.
	grep -vE '^-?/(proc|sys)(/|$)' "$tmp/rw.all" | sort -u > "$tmp/rw.other" || true
	grep -vxF -- '-/var/lib/prometheus/node-exporter' "$tmp/rw.other" > "$tmp/rw.other.state" || true
	expect_eq "ReadWritePaths= outside /proc and /sys (the state dir; -/var/lib/prometheus/node-exporter may join it)" \
		"/var/lib/mmbatch" "$(cat "$tmp/rw.other.state")"
}

# stage_unit UNIT ROOT: UNIT installed in ROOT as the package installs it
# (/usr/lib/systemd/system/NAME, specs/mmbatchd/files.list), /etc/mmbatch,
# and a stand-in for every Exec*= binary ROOT lacks (verify checks that each
# one exists).
stage_unit() {
	local unit=$1 root=$2 exe
	mkdir -p "$root/usr/lib/systemd/system" "$root/etc/mmbatch"
	cp "$unit" "$root/usr/lib/systemd/system/$(basename "$unit")"
	sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\([^ ]*\).*/\1/p' "$unit" | sort -u > "$tmp/exes"
	while read -r exe; do
		[ ! -e "$root$exe" ] || continue
		mkdir -p "$root$(dirname "$exe")"
		printf '#!/bin/sh\nexit 0\n' > "$root$exe"
		chmod 0755 "$root$exe"
	done < "$tmp/exes"
}

# verify_clean WHAT RC OUTPUT: a systemd-analyze verify run passed without a
# single warning.
verify_clean() {
	expect_ok "$1" "$2" "$3"
	expect_eq "$1: warnings" "" "$3"
}

# suite_root SUITE: the scratch root of the Debian SUITE (the cached
# tools/pkg/mkchroot.sh tarball, unpacked once per run), printed; its
# systemd's own units are the ones verify resolves against.
suite_root() {
	local r=$tmp/suite-$1
	if [ ! -d "$r" ]; then
		MKCHROOT_SUITE=$1 "$top/tools/pkg/mkchroot.sh" unpack "$r" >&2 || { rm -rf "$r"; return 1; }
	fi
	echo "$r"
}

# verify_in_suites UNIT: `systemd-analyze verify` of UNIT by the systemd of
# each UNIT_VERIFY_SUITES root (chroot, no --root: the root's own unit
# paths, merged /usr and all), staged like the host's run. --man=no: the
# roots have no man(1); the man: pages are checked against files.list above.
verify_in_suites() {
	local unit=$1 name suite r ver
	name=$(basename "$unit")
	[ -n "$UNIT_VERIFY_SUITES" ] || { skip "systemd-analyze verify in other Debian roots" "UNIT_VERIFY_SUITES is empty"; return 0; }
	for suite in $UNIT_VERIFY_SUITES; do
		if ! r=$(suite_root "$suite"); then
			fail "no $suite root to verify $name in: MKCHROOT_SUITE=$suite tools/pkg/mkchroot.sh unpack failed (its error above; building the tarball needs mmdebstrap and zstd)"
			continue
		fi
		stage_unit "$unit" "$r"
		ver=$(chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin systemctl --version | awk 'NR == 1 {print $2}')
		capture rc chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C \
			systemd-analyze verify --man=no "/usr/lib/systemd/system/$name"
		verify_clean "systemd-analyze verify in a Debian $suite root (systemd $ver)" "$rc" "$rc_out"
	done
}

# check_unit UNIT: one unit, every check; appends its score to scores.
check_unit() {
	local unit=$1 name root exe max score doc src word page
	name=$(basename "$unit")

	# The scratch root: verify resolves dependencies (sysinit.target, ...)
	# and checks that every Exec*= binary exists, under --root. Merged /usr,
	# as every Debian 12 host.
	root=$tmp/root-$name
	mkdir -p "$root/usr/lib/systemd/system"
	ln -s usr/lib "$root/lib"
	cp -a /usr/lib/systemd/system/. "$root/usr/lib/systemd/system/"
	stage_unit "$unit" "$root"

	capture rc systemd-analyze verify "${verify_man[@]}" --root="$root" "/usr/lib/systemd/system/$name"
	verify_clean "systemd-analyze verify" "$rc" "$rc_out"
	verify_in_suites "$unit"

	# The sandbox every unit gets.
	has_line "$unit" "ProtectSystem=strict"
	has_line "$unit" "ProtectKernelTunables=yes"
	has_line "$unit" "NoNewPrivileges=yes"
	has_line "$unit" "SystemCallArchitectures=native"
	# systemd 255-257 skip /sys in ProtectKernelTunables and carry
	# binfmt_misc into /proc/sys read-write (seen on 257): the unit names
	# them itself (tests/vm/full_test.sh checks the result on a guest).
	has_line "$unit" "ReadOnlyPaths=-/sys/block -/sys/bus -/sys/class -/sys/dev -/sys/devices -/sys/firmware -/sys/fs -/sys/hypervisor -/sys/kernel -/sys/module -/sys/power"
	has_line "$unit" "InaccessiblePaths=-/proc/sys/fs/binfmt_misc"
	for key in CapabilityBoundingSet SystemCallFilter ReadWritePaths; do
		expect_match "$key= set" "^$key=" "@$unit"
	done

	# Documentation= must point at something that exists and is about it.
	word=$(topic "$name")
	expect_match "Documentation= set" '^Documentation=.' "@$unit"
	for doc in $(values "$unit" Documentation); do
		case "$doc" in
		file:*)
			src=$(installed_source "${doc#file:}")
			if [ -z "$src" ]; then
				fail "Documentation=$doc: the package installs no such file ($files_list)"
			elif ! grep -qi -- "$word" "$top/$src"; then
				fail "Documentation=$doc ($src): expected it to mention '$word', it does not"
			else
				pass "Documentation=$doc is $src, which mentions '$word'"
			fi
			;;
		man:mmbatch*|man:mmbench*)
			if ! [[ "$doc" =~ ^man:([A-Za-z0-9._-]+)\(([1-8])\)$ ]]; then
				fail "Documentation=$doc: expected man:NAME(SECTION)"
				continue
			fi
			page=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
			src=$(installed_source "/usr/share/man/man${BASH_REMATCH[2]}/$page")
			if [ "$src" != "@MAN@/$page" ]; then
				fail "Documentation=$doc: the package installs no /usr/share/man/man${BASH_REMATCH[2]}/$page from @MAN@/$page ($files_list)"
			elif [ ! -r "$top/docs/man/$page.scd" ]; then
				fail "Documentation=$doc: no source docs/man/$page.scd for @MAN@/$page"
			elif ! grep -qi -- "$word" "$top/docs/man/$page.scd"; then
				fail "Documentation=$doc (docs/man/$page.scd): expected it to mention '$word', it does not"
			else
				pass "Documentation=$doc is docs/man/$page.scd, installed, which mentions '$word'"
			fi
			;;
		man:*|http://*|https://*) pass "Documentation=$doc (external)" ;;
		*) fail "Documentation=$doc: not a file:, man: or http(s): URI" ;;
		esac
	done

	case "$name" in
	mmbatchd.service) check_mmbatchd "$unit" ;;
	esac

	# The exposure score, printed and bounded.
	max=$(max_exposure "$name")
	systemd-analyze security --offline=true --root="$root" "$name" > "$tmp/security.out" 2>&1 || true
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$tmp/security.out")
	if [ -z "$score" ]; then
		fail "systemd-analyze security printed no score:"; sed 's/^/    /' "$tmp/security.out" >&2
		scores+=("$name: no score (at most $max)")
	elif awk -v s="$score" -v m="$max" 'BEGIN { exit !(s <= m) }'; then
		pass "systemd-analyze security exposure $score (at most $max)"
		scores+=("$name: $score (at most $max)")
	else
		fail "systemd-analyze security exposure: expected at most $max, got $score"
		scores+=("$name: $score (at most $max: FAIL)")
	fi
}

# unit_step UNIT: check_unit, failing when any of its checks failed.
unit_step() {
	local f0=$test_failures
	check_unit "$1"
	[ "$test_failures" -eq "$f0" ]
}

ran=0
for unit in "$@"; do
	selected "$(basename "$unit")" || continue
	ran=$((ran + 1))
	step "$(basename "$unit")" unit_step "$unit" || true
done
if [ $ran -eq 0 ]; then
	echo "ERROR: units: ONLY='${ONLY:-}' selects none of: $(for u in "$@"; do basename "$u"; done | paste -sd' ')" >&2
	exit 1
fi

echo "units: exposure (systemd-analyze security --offline=true, systemd $(systemctl --version | awk 'NR == 1 {print $2}')):"
for s in "${scores[@]}"; do echo "  $s"; done
test_summary
