#!/bin/bash
# SIGN_KEY's file mode and KBUILD_SIGN_PIN's channel (issue 41: a 0644
# module-signing key was used without a word, and KBUILD_SIGN_PIN given as a
# make argument showed in ps). Host only: kb_sign_init (tools/kbuild/lib.sh)
# and make's parse-time guard (mk/kernel.mk), no kernel source, no build:
#   - a key file that group or others may read or write (0644, 0640, 0604,
#     0660, 0620, 0602, and a 0600 link to a 0644 file) is refused: exit 1,
#     one stderr line "ERROR: SIGN_KEY=FILE: mode 0NNN: ..." naming the file
#     and its mode;
#   - 0600 and 0400 keys (and a link to a 0600 key) pass, with their
#     fingerprint; an encrypted 0600 key with KBUILD_SIGN_PIN in the
#     environment passes;
#   - KBUILD_SIGN_PIN in MAKEFLAGS (what make passes down for a command-line
#     variable) is refused in one line that does not show the PIN, with or
#     without SIGN_KEY;
#   - `make KBUILD_SIGN_PIN=...` stops at parse time (exit 2, one line, no
#     PIN in it, nothing run: make -n prints no command); in the
#     environment it is accepted.
#   key_check_test.sh
# Reads: TOP, OUT.
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
TEST_NAME=${TEST_NAME:-key_check}
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs
unset MAKEFLAGS MAKELEVEL MFLAGS
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
scratch
command -v openssl >/dev/null || { skip "key checks" "openssl is not installed"; test_summary; exit 0; }

# make_key FILE [PASS]: an RSA key and its certificate in one PEM (encrypted
# with PASS when given), 0600.
make_key() {
	local enc=(-nodes)
	[ -z "${2:-}" ] || enc=(-passout "pass:$2")
	(umask 077; openssl req -new -x509 "${enc[@]}" -utf8 -sha256 -days 30 -batch -newkey rsa:2048 \
		-subj "/CN=mmbatch key check test/" -keyout "$1" -out "$1" 2>/dev/null)
}
# sign_init ENV...: kb_sign_init in a subshell with ENV; status in rc,
# stderr in $T/err, "fpr=..." on stdout in $T/out.
sign_init() {
	rc=0
	env "$@" bash -c '. "$TOP/tools/kbuild/lib.sh" && kb_sign_init && echo "fpr=$KB_SIGN_FPR"' \
		>"$T/out" 2>"$T/err" || rc=$?
}
pin=hunter2-$$

make_key "$T/base.pem"
echo "- key files group or others may read or write: refused"
for m in 0644 0640 0604 0660 0620 0602; do
	cp "$T/base.pem" "$T/k$m.pem"
	chmod "$m" "$T/k$m.pem"
	sign_init SIGN_KEY="$T/k$m.pem"
	expect_eq "SIGN_KEY mode $m: exit" 1 "$rc"
	expect_lines "SIGN_KEY mode $m: stderr" 1 "@$T/err"
	expect_match "SIGN_KEY mode $m: names the file and its mode" \
		"^ERROR: SIGN_KEY=$(re_quote "$T/k$m.pem"): mode $m: the private key is readable or writable by group or others" "@$T/err"
	expect_lines "SIGN_KEY mode $m: nothing on stdout" 0 "@$T/out"
done
ln -s "$T/k0644.pem" "$T/link-to-0644.pem"
sign_init SIGN_KEY="$T/link-to-0644.pem"
expect_eq "a link to a 0644 key: exit" 1 "$rc"
expect_match "a link to a 0644 key: the mode of the file it names" "^ERROR: SIGN_KEY=.*link-to-0644\.pem: mode 0644: " "@$T/err"

echo "- keys that are the owner's alone: accepted"
want_fpr=sha256:$(openssl x509 -in "$T/base.pem" -noout -fingerprint -sha256 | sed 's/^.*=//')
for m in 0600 0400; do
	cp "$T/base.pem" "$T/k$m.pem"
	chmod "$m" "$T/k$m.pem"
	sign_init SIGN_KEY="$T/k$m.pem"
	expect_eq "SIGN_KEY mode $m: exit" 0 "$rc"
	expect_eq "SIGN_KEY mode $m: fingerprint" "fpr=$want_fpr" "$(cat "$T/out")"
done
ln -s "$T/k0600.pem" "$T/link-to-0600.pem"
sign_init SIGN_KEY="$T/link-to-0600.pem"
expect_eq "a link to a 0600 key: exit" 0 "$rc"
make_key "$T/enc.pem" "$pin"
sign_init SIGN_KEY="$T/enc.pem" KBUILD_SIGN_PIN="$pin"
expect_eq "encrypted 0600 key, KBUILD_SIGN_PIN in the environment: exit" 0 "$rc"
expect_match "encrypted 0600 key: fingerprint" '^fpr=sha256:' "@$T/out"

echo "- KBUILD_SIGN_PIN from a make command line (MAKEFLAGS): refused"
sign_init SIGN_KEY="$T/enc.pem" KBUILD_SIGN_PIN="$pin" MAKEFLAGS=" -- KBUILD_SIGN_PIN=$pin"
expect_eq "PIN in MAKEFLAGS: exit" 1 "$rc"
expect_lines "PIN in MAKEFLAGS: stderr" 1 "@$T/err"
expect_match "PIN in MAKEFLAGS: says where to pass it" \
	'^ERROR: KBUILD_SIGN_PIN was given on the make command line, where ps shows it to every user: pass it in the environment' "@$T/err"
expect_lacks "PIN in MAKEFLAGS: the PIN is not printed" "$pin" "@$T/err"
sign_init MAKEFLAGS="s -- SIGN_KEY=x KBUILD_SIGN_PIN=$pin"
expect_eq "PIN in MAKEFLAGS, no SIGN_KEY: exit" 1 "$rc"
sign_init SIGN_KEY="$T/k0600.pem" MAKEFLAGS="s -- OTHER_KBUILD_SIGN_PIN=x"
expect_eq "another variable ending in KBUILD_SIGN_PIN: exit" 0 "$rc"

echo "- make KBUILD_SIGN_PIN=...: stopped before anything runs"
rc=0
make -n --no-print-directory -C "$TOP" help "KBUILD_SIGN_PIN=$pin" >"$T/make.out" 2>"$T/make.err" || rc=$?
expect_eq "make KBUILD_SIGN_PIN=...: exit" 2 "$rc"
expect_lines "make KBUILD_SIGN_PIN=...: stderr" 1 "@$T/make.err"
expect_match "make KBUILD_SIGN_PIN=...: says where to pass it" \
	'mk/kernel\.mk:[0-9]+: \*\*\* KBUILD_SIGN_PIN was given on the make command line, where ps shows it to every user: pass it in the environment' "@$T/make.err"
expect_lacks "make KBUILD_SIGN_PIN=...: the PIN is not printed" "$pin" "@$T/make.err"
expect_lines "make KBUILD_SIGN_PIN=...: nothing would run" 0 "@$T/make.out"
rc=0
env KBUILD_SIGN_PIN="$pin" make -n --no-print-directory -C "$TOP" help >"$T/make.out" 2>"$T/make.err" || rc=$?
expect_eq "KBUILD_SIGN_PIN in the environment: make -n help exit" 0 "$rc"
test_summary
