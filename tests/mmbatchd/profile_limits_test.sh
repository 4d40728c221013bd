#!/bin/bash
# Parser limits (security issue 12): a repeated include is read once (a chain
# where every file includes the next one 4 times stays cheap, and the skipped
# repeat does not re-apply its keys), the number of includes, of keys and of
# bytes across all files is capped with a FILE:LINE:COL error naming the limit,
# and a large map of unique keys is checked for duplicates in O(n log n)
# (a 780 KB profile once took 12.8 s). The timed cases print their CPU time.
# Reads: MMBATCHD, TOP.
. "$(dirname "$0")/lib.sh"
setup

fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
P=$PROFILES

below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# check FILE: "RC OUTPUT" of --check (killed after 60 s: the bug being tested
# was a blow-up, this is only a backstop).
check() { local rc=0 out; out=$(timeout -k 5 60 "$MMBATCHD" --check "$1" --root "$ROOT" 2>&1) || rc=$?; echo "$rc $out"; }
# timed_check FILE: like check, and sets took (CPU seconds, user + system:
# unlike the wall time it does not depend on what else the machine runs) and
# rss (max RSS in KiB). The bound: 1 s, 2 s for a sanitizer build.
bound=1
if ldd "$MMBATCHD" 2>/dev/null | grep -q libasan; then bound=2; fi
timed_check() {
	local rc=0 out
	out=$(/usr/bin/time -q -f 'cpu=%U %S rss=%M' timeout -k 5 60 "$MMBATCHD" --check "$1" --root "$ROOT" 2>&1) || rc=$?
	took=$(echo "${out##*cpu=}" | awk '{ printf "%.2f", $1 + $2 }')
	rss=${out##*rss=}
	out=${out%$'\n'cpu=*}
	echo "$rc $out" > "$T/timed.out"
}

# 1. A chain of 10 files, each including the next one 4 times: 4^9 loads
#    before, 10 now. Memory (max RSS) printed for comparison.
for i in $(seq 0 8); do
	n="c$((i + 1)).yaml"
	printf 'include: [%s, %s, %s, %s]\n' "$n" "$n" "$n" "$n" > "$P/c$i.yaml"
done
printf 'sysctl:\n  vm.swappiness: 10\n' > "$P/c9.yaml"
timed_check "$P/c0.yaml"
echo "  include chain (10 files, each including the next 4 times): $took s CPU, $rss KiB max RSS"
expect_eq "include chain" "0 $P/c0.yaml: ok (1 keys, 0 optional absent)" "$(cat "$T/timed.out")"
if below "$took" "$bound"; then pass "include chain in $took s CPU (< $bound s)"
else fail "include chain took $took s CPU (want < $bound s)"; fi

# 2. A repeated include is skipped, not re-applied: a, then b overriding it,
#    then a again leaves b's value (a file's keys take effect at its first
#    include). The same file through a second path counts as a repeat.
printf 'sysctl:\n  vm.swappiness: 1\n  vm.dirty_ratio: 1\n' > "$P/a.yaml"
printf 'sysctl:\n  vm.swappiness: 2\n' > "$P/b.yaml"
mkdir -m 0755 "$P/sub"
ln -s ../a.yaml "$P/sub/a-link.yaml"
printf 'include: [a.yaml, b.yaml, a.yaml, sub/a-link.yaml, ./a.yaml]\n' > "$P/abA.yaml"
rc=0; out=$("$MMBATCHD" --plan "$P/abA.yaml" --root "$ROOT" 2>&1) || rc=$?
expect_eq "include a, b, a again: plan" "0 'vm.swappiness' (60) -> (2)
'vm.dirty_ratio' (20) -> (1)" "$rc $out"

# 3. At most PROFILE_MAX_INCLUDES (128) include entries, repeats included.
printf 'sysctl:\n  vm.dirty_ratio: 5\n' > "$P/ok.yaml"
{ echo 'include:'; for i in $(seq 128); do echo '  - ok.yaml'; done; } > "$P/inc128.yaml"
expect_eq "128 includes" "0 $P/inc128.yaml: ok (1 keys, 0 optional absent)" "$(check "$P/inc128.yaml")"
{ echo 'include:'; for i in $(seq 129); do echo '  - ok.yaml'; done; } > "$P/inc129.yaml"
expect_eq "129 includes" "2 $P/inc129.yaml:130:5: too many includes (limit 128 across the profile and its includes)" \
	"$(check "$P/inc129.yaml")"

# 4. At most PROFILE_MAX_KNOBS (1024) keys in the merged profile: the
#    allowlists name every file one by one (no nodeN or size pattern any
#    more), so they hold far fewer keys than that and the limit cannot be
#    reached; every allowed key, set twice through an include, is one key.
n_allowed=$("$MMBATCHD" --list-keys | wc -l)
if [ "$n_allowed" -lt 1024 ]; then pass "$n_allowed allowed keys, under the 1024-key limit"
else fail "$n_allowed allowed keys: the 1024-key limit is reachable again (test it)"; fi
"$MMBATCHD" --list-keys | awk -F'\t' '$4 ~ /^0\.\./ && $4 !~ /dangerous/ {
	s = $1 ~ /^\// ? "sysfs" : "sysctl"; print s "\t" $1 }' > "$T/zero-ok"
{ echo 'sysctl:'; awk -F'\t' '$1 == "sysctl" { print "  " $2 ": {value: 0, optional: true}" }' "$T/zero-ok"
  echo 'sysfs:'; awk -F'\t' '$1 == "sysfs" { print "  " $2 ": {value: 0, optional: true}" }' "$T/zero-ok"; } > "$P/all.yaml"
n_zero=$(wc -l < "$T/zero-ok")
{ echo 'include: [all.yaml]'; cat "$P/all.yaml"; } > "$P/all-again.yaml"
present=$(awk -F'\t' '$2 == "vm.swappiness" || $2 == "vm.dirty_ratio"' "$T/zero-ok" | wc -l)
expect_eq "every key that takes 0, each set twice" "0 $P/all-again.yaml: ok ($n_zero keys, $((n_zero - present)) optional absent)" \
	"$(check "$P/all-again.yaml")"

# 5. At most PROFILE_MAX_TOTAL_BYTES (1 MiB) read across all files.
pad() { # pad FILE BYTES: a valid profile of about BYTES bytes (mostly comments)
	printf 'sysctl:\n  vm.dirty_ratio: 7\n' > "$1"
	head -c "$2" /dev/zero | tr '\0' x | fold -w 99 | sed 's/^/#/' >> "$1"
}
pad "$P/big1.yaml" 600000
pad "$P/big2.yaml" 600000
printf 'include: [big1.yaml, big2.yaml]\n' > "$P/big.yaml"
expect_eq "two 600 KB includes" "2 $P/big.yaml:1:22: '$P/big2.yaml' is too large: the profile and its includes may hold at most 1048576 bytes in total" \
	"$(check "$P/big.yaml")"
printf 'include: [big1.yaml]\n' > "$P/big-one.yaml"
expect_eq "one 600 KB include" "0 $P/big-one.yaml: ok (1 keys, 0 optional absent)" "$(check "$P/big-one.yaml")"

# 6. The duplicate-key check on a 780 KB map of 49000 unique keys (under the
#    100000-node limit): refused for its unknown keys, quickly.
awk 'BEGIN { for (i = 0; i < 49000; i++) printf "key_%08d: 1\n", i }' > "$P/wide.yaml"
timed_check "$P/wide.yaml"
echo "  $(wc -c < "$P/wide.yaml")-byte profile of 49000 unique keys: $took s CPU"
expect_eq "wide map" "2 $P/wide.yaml:1:1: unknown key 'key_00000000' (expected include, sysctl, sysfs, drain, smoke, rollback, metrics_file, allow_dangerous)" "$(cat "$T/timed.out")"
if below "$took" "$bound"; then pass "wide map in $took s CPU (< $bound s)"
else fail "wide map took $took s CPU (want < $bound s)"; fi
# ... and a duplicate at its end is still found, naming the first one.
echo 'key_00000007: 2' >> "$P/wide.yaml"
expect_eq "wide map with a duplicate" "2 $P/wide.yaml:49001:1: duplicate key 'key_00000007' (first at line 8)" "$(check "$P/wide.yaml")"
