#!/bin/bash
# Trust: a world-writable profile, a profile owned by another user, a
# group-writable include, and a journal edited to name a path outside the
# allowlists (directly, or through a symlink in an allowed tree) are each
# refused with a clear error, exit status 2, and no write.
# Reads: MMBATCHD, TOP. Needs root (chown).
# shellcheck disable=SC2154 # VAR_out is set by capture
. "$(dirname "$0")/lib.sh"
setup
[ "$(id -u)" = 0 ] || { echo "$TEST_NAME: needs root (chown), FAILING"; exit 1; }

fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
printf 'sysctl:\n  vm.swappiness: 10\n' > "$PROFILES/p.yaml"
echo 'precious' > "$T/outside"
before=$(tree_sum "$ROOT")

# timeout: a daemon that wrongly accepts its input would run forever.
run() { rc=0; out=$(timeout 30 "$MMBATCHD" "$@" --root "$ROOT" --state-dir "$STATE" 2>&1) || rc=$?; echo "$rc $out"; }

chmod 0666 "$PROFILES/p.yaml"
expect_eq "world-writable profile" "2 $PROFILES/p.yaml:1:1: refusing untrusted profile '$PROFILES/p.yaml': group- or world-writable" "$(run --once "$PROFILES/p.yaml")"
expect_eq "world-writable profile (daemon)" "2 $PROFILES/p.yaml:1:1: refusing untrusted profile '$PROFILES/p.yaml': group- or world-writable" "$(run --profile "$PROFILES/p.yaml" --foreground)"
chmod 0644 "$PROFILES/p.yaml"
chown 65534:65534 "$PROFILES/p.yaml"
expect_eq "profile owned by another user" "2 $PROFILES/p.yaml:1:1: refusing untrusted profile '$PROFILES/p.yaml': not owned by root" "$(run --once "$PROFILES/p.yaml")"
chown 0:0 "$PROFILES/p.yaml"

printf 'include: [inc.yaml]\n' > "$PROFILES/top.yaml"
printf 'sysctl:\n  vm.dirty_ratio: 5\n' > "$PROFILES/inc.yaml"
chmod 0664 "$PROFILES/inc.yaml"
expect_eq "group-writable include" "2 $PROFILES/top.yaml:1:11: refusing untrusted include '$PROFILES/inc.yaml': group- or world-writable" "$(run --once "$PROFILES/top.yaml")"
expect_eq "tree after refused profiles" "$before" "$(tree_sum "$ROOT")"
expect_absent "journal after refused profiles" "$STATE/mmbatchd/journal"

# A valid journal, then tampered copies of it.
capture rc "$MMBATCHD" --once "$PROFILES/p.yaml" --root "$ROOT" --state-dir "$STATE"
expect_ok "--once" "$rc" "$rc_out"
applied=$(tree_sum "$ROOT")
cp "$STATE/mmbatchd/journal" "$T/journal.good"

# 1. an entry outside the allowlists (dirty_ratio is listed first, so a
#    restore that wrote entries one by one would change it)
{ head -3 "$T/journal.good"; printf '/proc/sys/vm/dirty_ratio\t99\n/etc/passwd\troot::0:0::/:/bin/sh\n'; tail -n +4 "$T/journal.good"; } > "$STATE/mmbatchd/journal"
chmod 0600 "$STATE/mmbatchd/journal"
expect_eq "journal naming /etc/passwd" "2 $STATE/mmbatchd/journal:5:1: refusing journal entry '/etc/passwd': not an allowed sysfs file (mmbatchd --list-keys lists them)" "$(run --rollback)"
expect_eq "tree after the refused rollback" "$applied" "$(tree_sum "$ROOT")"
rc=0; timeout 30 "$MMBATCHD" --profile "$PROFILES/p.yaml" --root "$ROOT" --state-dir "$STATE" --foreground >"$T/start.log" 2>&1 || rc=$?
expect_eq "daemon start with that journal: exit" 2 "$rc"
msg=$(grep -c "refusing journal entry '/etc/passwd'" "$T/start.log" || true)
expect_eq "daemon start with that journal: error logged" 1 "$msg"
expect_eq "tree after the refused start" "$applied" "$(tree_sum "$ROOT")"

# 2. an allowed-looking path whose symlink leads outside
mkdir -p "$ROOT/sys/kernel/mm/transparent_hugepage/khugepaged"
ln -s "$T/outside" "$ROOT/sys/kernel/mm/transparent_hugepage/khugepaged/defrag"
applied_link=$(tree_sum "$ROOT")   # tree_sum sees the symlink too
{ head -3 "$T/journal.good"; printf '/proc/sys/vm/dirty_ratio\t99\n/sys/kernel/mm/transparent_hugepage/khugepaged/defrag\tpwned\n'; } > "$STATE/mmbatchd/journal"
expect_eq "journal entry through a symlink" "2 mmbatchd: rollback: journal: refusing to restore '/sys/kernel/mm/transparent_hugepage/khugepaged/defrag': resolves through a symlink (an allowed file must be the file itself)" "$(run --rollback)"
expect_eq "file behind the symlink" precious "$(cat "$T/outside")"
expect_eq "tree after the refused symlink rollback" "$applied_link" "$(tree_sum "$ROOT")"
rm "$ROOT/sys/kernel/mm/transparent_hugepage/khugepaged/defrag"
rmdir "$ROOT/sys/kernel/mm/transparent_hugepage/khugepaged"

# 3. the journal itself not trusted
cp "$T/journal.good" "$STATE/mmbatchd/journal"
chmod 0606 "$STATE/mmbatchd/journal"
expect_eq "world-writable journal" "2 $STATE/mmbatchd/journal:1:1: refusing untrusted journal: group- or world-writable" "$(run --rollback)"
chmod 0600 "$STATE/mmbatchd/journal"; chown 65534 "$STATE/mmbatchd/journal"
expect_eq "journal owned by another user" "2 $STATE/mmbatchd/journal:1:1: refusing untrusted journal: not owned by root" "$(run --rollback)"
expect_eq "tree after refused journals" "$applied" "$(tree_sum "$ROOT")"
chown 0 "$STATE/mmbatchd/journal"
rc=0; "$MMBATCHD" --rollback --root "$ROOT" --state-dir "$STATE" 2>/dev/null || rc=$?
expect_eq "the good journal restores" 0 "$rc"
expect_eq "tree after the good rollback" "$before" "$(tree_sum "$ROOT")"
