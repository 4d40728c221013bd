#!/bin/bash
# Trust of the whole path (security issue 12): a profile or include that is a
# FIFO is refused at once (it used to hang --check), and so is one reached
# through a directory that another user owns or that is group/world-writable
# (sticky /tmp-style directories included), directly or through a symlink;
# a symlink in a trusted directory to a file in a trusted directory is fine.
# Every refusal: exit 2, one FILE:LINE:COL line, nothing written.
# Reads: MMBATCHD, TOP. Needs root (chown); $T must sit in trusted
# directories (setup's scratch dir, under $OUT/test-tmp, does). The one /tmp
# path is the subject of a check: a root-owned directory inside /tmp.
. "$(dirname "$0")/lib.sh"
setup
[ "$(id -u)" = 0 ] || { echo "$TEST_NAME: needs root (chown), FAILING"; exit 1; }

tmp_dir=
hook() { kill_daemon_hook; [ -z "$tmp_dir" ] || rm -rf "$tmp_dir"; }
# shellcheck disable=SC2034 # run by tests/lib/assert.sh's EXIT trap
cleanup_hook=hook

fake_knob proc/sys/vm/swappiness 60
P=$PROFILES
printf 'sysctl:\n  vm.swappiness: 10\n' > "$P/p.yaml"
before=$(tree_sum "$ROOT")

# run ARGS...: "RC OUTPUT"; timeout -k: a daemon blocked on a FIFO would
# otherwise sit there (and the old one also blocked SIGTERM).
run() { local rc=0 out; out=$(timeout -k 2 10 "$MMBATCHD" "$@" --root "$ROOT" --state-dir "$STATE" 2>&1) || rc=$?; echo "$rc $out"; }
accepted() { echo "0 $1: ok (1 keys, 0 optional absent)"; }
refused() { echo "2 $1:1:1: refusing untrusted profile '$1': $2"; }

# 1. FIFOs, a directory, a device.
mkfifo -m 0644 "$P/fifo.yaml"
expect_eq "FIFO as profile (--check)" "$(refused "$P/fifo.yaml" "not a regular file")" "$(run --check "$P/fifo.yaml")"
expect_eq "FIFO as profile (--once)" "$(refused "$P/fifo.yaml" "not a regular file")" "$(run --once "$P/fifo.yaml")"
printf 'include: [fifo.yaml]\n' > "$P/inc-fifo.yaml"
expect_eq "FIFO as include" "2 $P/inc-fifo.yaml:1:11: refusing untrusted include '$P/fifo.yaml': not a regular file" "$(run --check "$P/inc-fifo.yaml")"
mkdir -m 0755 "$P/sub"
expect_eq "directory as profile" "$(refused "$P/sub" "not a regular file")" "$(run --check "$P/sub")"
expect_eq "device as profile" "$(refused /dev/null "not a regular file")" "$(run --check /dev/null)"

# 2. Directories on the path.
mkdir -m 0755 "$T/evil"
cp "$P/p.yaml" "$T/evil/own.yaml"
ln -s "$P/p.yaml" "$T/evil/link.yaml"
chown 65534:65534 "$T/evil"
expect_eq "symlink in another user's directory (profile)" \
	"$(refused "$T/evil/link.yaml" "directory '$T/evil' on its path is not owned by root")" "$(run --check "$T/evil/link.yaml")"
expect_eq "symlink in another user's directory (daemon)" \
	"$(refused "$T/evil/link.yaml" "directory '$T/evil' on its path is not owned by root")" "$(run --profile "$T/evil/link.yaml" --foreground)"
printf 'include: [%s]\n' "$T/evil/link.yaml" > "$P/inc-evil.yaml"
expect_eq "symlink in another user's directory (include)" \
	"2 $P/inc-evil.yaml:1:11: refusing untrusted include '$T/evil/link.yaml': directory '$T/evil' on its path is not owned by root" \
	"$(run --check "$P/inc-evil.yaml")"
expect_eq "root's file in another user's directory" \
	"$(refused "$T/evil/own.yaml" "directory '$T/evil' on its path is not owned by root")" "$(run --check "$T/evil/own.yaml")"
expect_eq "relative path from another user's directory" \
	"$(refused own.yaml "directory '$T/evil' on its path is not owned by root")" "$(cd "$T/evil" && run --check own.yaml)"
mkdir -m 0775 "$T/gw"; cp "$P/p.yaml" "$T/gw/p.yaml"
expect_eq "group-writable directory" "$(refused "$T/gw/p.yaml" "directory '$T/gw' on its path is group- or world-writable")" "$(run --check "$T/gw/p.yaml")"
mkdir -m 1777 "$T/sticky"; cp "$P/p.yaml" "$T/sticky/p.yaml"
expect_eq "sticky world-writable directory" "$(refused "$T/sticky/p.yaml" "directory '$T/sticky' on its path is group- or world-writable")" \
	"$(run --check "$T/sticky/p.yaml")"
tmp_dir=$(mktemp -d /tmp/mmbatchd-trust.XXXXXX); chmod 0755 "$tmp_dir"; cp "$P/p.yaml" "$tmp_dir/p.yaml"
expect_eq "root's directory inside /tmp" "$(refused "$tmp_dir/p.yaml" "directory '/tmp' on its path is group- or world-writable")" \
	"$(run --check "$tmp_dir/p.yaml")"

# 3. Symlinks in trusted directories: fine when the target is trusted too.
ln -s p.yaml "$P/rel-link.yaml"
ln -s "$P/p.yaml" "$P/abs-link.yaml"
ln -s ../p.yaml "$P/sub/up.yaml"
for l in rel-link.yaml abs-link.yaml sub/up.yaml; do
	expect_eq "symlink $l in a trusted directory" "$(accepted "$P/$l")" "$(run --check "$P/$l")"
done
expect_eq "relative path from a trusted directory" "$(accepted p.yaml)" "$(cd "$P" && run --check p.yaml)"
ln -s "$T/evil/own.yaml" "$P/to-evil.yaml"
expect_eq "trusted symlink to a file in another user's directory" \
	"$(refused "$P/to-evil.yaml" "directory '$T/evil' on its path is not owned by root")" "$(run --check "$P/to-evil.yaml")"
ln -s "$T/evil" "$P/evil-dir"
expect_eq "trusted symlink to another user's directory" \
	"$(refused "$P/evil-dir/own.yaml" "directory '$T/evil' on its path is not owned by root")" "$(run --check "$P/evil-dir/own.yaml")"

expect_eq "tree after the refused profiles" "$before" "$(tree_sum "$ROOT")"
expect_absent "journal after the refused profiles" "$STATE/mmbatchd/journal"
