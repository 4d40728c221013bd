#!/bin/bash
# shellcheck disable=SC2154 # rc_out is set by capture (printf -v)
# tools/pkg/mkchroot.sh's cache, without the archive: a stand-in mmdebstrap
# first in PATH writes a tiny tree and counts its calls. Checks:
#   - the first call builds the tarball under MKCHROOT_CACHE (not under OUT);
#   - a second call (another clone's, other OUT) takes it: no mmdebstrap;
#   - a tarball older than MKCHROOT_MAX_AGE_DAYS is rebuilt, a younger one
#     is not; MKCHROOT_MAX_AGE_DAYS=0 always rebuilds;
#   - a bad MKCHROOT_MAX_AGE_DAYS is one error line naming it, exit 2,
#     nothing written.
# Reads: OUT.
set -eu
# shellcheck disable=SC2034 # read by tests/lib/assert.sh (sourced through lib.sh)
TEST_NAME=mkchroot_cache_test
. "$(dirname "$0")/lib.sh"
mkchroot=$TOP/tools/pkg/mkchroot.sh
scratch

mkdir -p "$T/bin"
# The stand-in: mmdebstrap [opts] SUITE TARGET MIRROR.
cat >"$T/bin/mmdebstrap" <<'EOF'
#!/bin/sh
for a; do :; done
target=$(eval "echo \${$(($# - 1))}")
mkdir -p "$target/etc" "$target/var/cache/apt/archives" "$target/var/lib/apt/lists"
echo stand-in >"$target/etc/debian_version"
echo x >>"$CALLS"
EOF
chmod 0755 "$T/bin/mmdebstrap"
export CALLS=$T/calls PATH=$T/bin:$PATH MKCHROOT_CACHE=$T/cache MKCHROOT_MIRROR=http://deb.invalid/debian
: >"$CALLS"
calls() { wc -l <"$CALLS"; }

echo "- the first call builds the tarball in MKCHROOT_CACHE"
capture rc env OUT="$T/clone1/out" "$mkchroot" tarball
expect_ok "mkchroot.sh tarball (clone 1)" "$rc" "$rc_out"
tarball=$(printf '%s\n' "$rc_out" | tail -n 1)
expect_file "the tarball" "$tarball"
expect_eq "it is under MKCHROOT_CACHE" "$T/cache" "$(dirname "$tarball")"
expect_absent "nothing under the clone's OUT" "$T/clone1/out"
expect_eq "mmdebstrap calls" 1 "$(calls)"

echo "- another clone (other OUT) takes the cached tarball"
capture rc env OUT="$T/clone2/out" "$mkchroot" tarball
expect_ok "mkchroot.sh tarball (clone 2)" "$rc" "$rc_out"
expect_eq "the same tarball" "$tarball" "$(printf '%s\n' "$rc_out" | tail -n 1)"
expect_eq "mmdebstrap calls (no new one)" 1 "$(calls)"

echo "- age: 6 days is kept, 8 days (over the default 7) is rebuilt, 0 always rebuilds"
touch -d '6 days ago' "$tarball"
capture rc "$mkchroot" tarball
expect_ok "mkchroot.sh tarball (6 days old)" "$rc" "$rc_out"
expect_eq "mmdebstrap calls (6 days: cached)" 1 "$(calls)"
touch -d '8 days ago' "$tarball"
capture rc "$mkchroot" tarball
expect_ok "mkchroot.sh tarball (8 days old)" "$rc" "$rc_out"
expect_contains "it says why it rebuilds" "is 8 days old (MKCHROOT_MAX_AGE_DAYS=7): rebuilding it" "$rc_out"
expect_eq "mmdebstrap calls (8 days: rebuilt)" 2 "$(calls)"
expect_eq "the rebuilt tarball is new (age in days)" 0 $((($(date +%s) - $(stat -c %Y "$tarball")) / 86400))
capture rc env MKCHROOT_MAX_AGE_DAYS=0 "$mkchroot" tarball
expect_ok "mkchroot.sh tarball (MKCHROOT_MAX_AGE_DAYS=0)" "$rc" "$rc_out"
expect_eq "mmdebstrap calls (0: rebuilt)" 3 "$(calls)"
expect_lines "one tarball of the suite in the cache" 1 "$(find "$T/cache" -name 'bookworm-*.tar.zst')"

echo "- a bad MKCHROOT_MAX_AGE_DAYS: one line, exit 2, nothing written"
rm -rf "$T/cache"
capture rc env MKCHROOT_MAX_AGE_DAYS=week "$mkchroot" tarball
expect_status "MKCHROOT_MAX_AGE_DAYS=week" 2 "$rc"
expect_lines "one line" 1 "$rc_out"
expect_contains "it names the knob" "MKCHROOT_MAX_AGE_DAYS='week'" "$rc_out"
expect_absent "no cache written" "$T/cache"
expect_eq "mmdebstrap calls (none)" 3 "$(calls)"
