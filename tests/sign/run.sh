#!/bin/bash
# `make check-sign`: module signing with a key supplied from outside the build
# (SIGN_KEY). Prints each step and each assertion (expected and actual):
#  1. config stage: a SIGN_KEY that is missing, not a file, has no certificate,
#     no private key, or a key of another certificate fails with one line
#     naming the file, and creates no build dir;
#  2. without SIGN_KEY the 6.12 guest's report says "modules: unsigned";
#  3. the 6.12 guest built with SIGN_KEY (a throwaway key made here under
#     $OUT/test-sign/, reused while it exists) and tests/sign/sign-force.config
#     (MODULE_SIG_FORCE=y): report line with the certificate's fingerprint,
#     the key's path in .config (kbuild needs it there) but not in the report;
#  4. tests/sign's module built against that build dir: one copy signed by
#     kbuild's modules_install (MODULE_SIG_ALL with SIGN_KEY), one with the
#     kernel's scripts/sign-file, one signed with another key, one unsigned;
#     the guest (tools/vmtest/vmtest) loads both signed ones (unloading in
#     between) and refuses the others (insmod: "Key was rejected by service",
#     dmesg: "Loading of ... is rejected").
# Reads: TOP, OUT, MAKE, SIGN_TESTS (subset of: config unsigned build vm;
#        default all), SIGN_TEST_TIMEOUT (guest timeout, default 300 s).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
make_cmd=${MAKE:-make}
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs
export BASE=6.12 FLAVOR=guest
T=$(mktemp -d)
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
wanted() { [ -z "${SIGN_TESTS:-}" ] || [[ " $SIGN_TESTS " == *" $1 "* ]]; }

# expect_line WHAT FILE TEXT: some line of FILE contains TEXT.
expect_line() {
	if grep -Fq -- "$3" "$2"; then pass "$1: has '$3'"
	else fail "$1: expected a line with '$3' in $2; it has:"; sed 's/^/      | /' "$2" | tail -n 20 >&2; fi
}
# expect_no_line WHAT FILE TEXT: no line of FILE contains TEXT.
expect_no_line() {
	if grep -Fq -- "$3" "$2"; then fail "$1: expected no '$3' in $2; found: $(grep -F -m1 -- "$3" "$2")"
	else pass "$1: no '$3'"; fi
}

# expect_insmod FILE MODULE refused|loaded: the guest's "insmod M.ko: status N"
# line (busybox insmod exits with the errno, e.g. 129 = EKEYREJECTED).
expect_insmod() {
	local st
	st=$(sed -n "s/^insmod $2\.ko: status \([0-9]*\)\$/\1/p" "$1" | head -n 1)
	case "$3:$st" in
	refused:[1-9]*|loaded:0) pass "insmod $2.ko $3 (status $st)" ;;
	*) fail "insmod $2.ko: expected $3 (status $([ "$3" = loaded ] && echo 0 || echo 'non-zero')), got status '${st:-none}'" ;;
	esac
}

# make_key FILE CN: an RSA key and its self-signed certificate in one PEM, the
# way README "Module signing" says (what kbuild's own genkey makes).
make_key() {
	openssl req -new -x509 -nodes -utf8 -sha512 -days 36500 -batch -newkey rsa:2048 \
		-subj "/CN=$2/" -addext keyUsage=digitalSignature \
		-addext basicConstraints=critical,CA:FALSE -addext subjectKeyIdentifier=hash \
		-addext authorityKeyIdentifier=keyid -outform PEM -keyout "$1" -out "$1" 2>/dev/null
}

keydir=$OUT/test-sign
key=$keydir/signing.pem
mkdir -p "$keydir"
chmod 700 "$keydir"
# One key per output dir, kept: every new key is a new build dir.
[ -s "$key" ] || { echo "== making the throwaway signing key $key"; make_key "$key" "mmbatch check-sign throwaway key"; }
make_key "$T/other.pem" "mmbatch check-sign other key"
fpr=sha256:$(openssl x509 -in "$key" -noout -fingerprint -sha256 | sed 's/^.*=//')

echo "== source and series of 6.12 (no-ops when check-pipeline ran)"
"$make_cmd" -s --no-print-directory -C "$TOP" series >"$T/series.out" 2>&1 || { cat "$T/series.out"; fail "make series failed"; exit 1; }

if wanted config; then
	echo "== config stage: bad SIGN_KEY values fail with one line naming the file"
	openssl req -new -x509 -nodes -batch -newkey rsa:2048 -subj "/CN=x/" -keyout "$T/keyonly.pem" -out "$T/cert.pem" 2>/dev/null
	cp "$T/cert.pem" "$T/certonly.pem"
	# a key with the certificate of another key
	cat "$T/keyonly.pem" >"$T/mismatch.pem"; openssl x509 -in "$key" >>"$T/mismatch.pem"
	echo "not a PEM" >"$T/garbage.pem"
	mkdir "$T/adir.pem"
	ls "$OUT/build" >"$T/builds.before"
	while IFS='|' read -r case file want; do
		rc=0
		SIGN_KEY=$file "$TOP/tools/kbuild/config.sh" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
		expect_eq "config with SIGN_KEY $case: exit status" 1 "$rc"
		expect_eq "config with SIGN_KEY $case: stderr lines" 1 "$(wc -l <"$T/bad.err")"
		expect_eq "config with SIGN_KEY $case: stderr" "ERROR: SIGN_KEY=$file: $want" "$(head -n 1 "$T/bad.err")"
		expect_eq "config with SIGN_KEY $case: stdout (no .config path)" "" "$(cat "$T/bad.out")"
	done <<EOF
missing|$T/missing.pem|no such file
a directory|$T/adir.pem|not a readable file
without a certificate|$T/keyonly.pem|no PEM certificate in it; expected key + certificate in one PEM
without a private key|$T/certonly.pem|no PEM private key in it (encrypted keys need KBUILD_SIGN_PIN); expected key + certificate in one PEM
not PEM|$T/garbage.pem|no PEM private key in it (encrypted keys need KBUILD_SIGN_PIN); expected key + certificate in one PEM
key of another certificate|$T/mismatch.pem|the private key does not belong to the certificate
EOF
	ls "$OUT/build" >"$T/builds.after"
	expect_eq "build dirs created by the bad SIGN_KEY runs" "" "$(comm -13 "$T/builds.before" "$T/builds.after" | tr '\n' ' ')"
fi

if wanted unsigned; then
	echo "== without SIGN_KEY: the 6.12 guest config says its modules are unsigned"
	rc=0; "$make_cmd" -s --no-print-directory -C "$TOP" config >"$T/cfg.out" 2>&1 || rc=$?
	expect_eq "make config (6.12 guest, no SIGN_KEY): exit status" 0 "$rc"
	plain=$(dirname "$(tail -n 1 "$T/cfg.out")")
	expect_line "$plain/config-report.txt" "$plain/config-report.txt" "signing:      modules: unsigned (no SIGN_KEY"
	expect_no_line "$plain/.config" "$plain/.config" "CONFIG_MODULE_SIG_ALL=y"
	expect_no_line "$plain/.config" "$plain/.config" "signing_key.pem"
fi

if wanted build || wanted vm; then
	echo "== the 6.12 guest with SIGN_KEY=$key and MODULE_SIG_FORCE (ccache)"
	rc=0
	nice -n 5 env SIGN_KEY="$key" FRAGMENTS="$TOP/tests/sign/sign-force.config" \
		"$make_cmd" --no-print-directory -C "$TOP" kernel >"$T/kernel.out" 2>&1 || rc=$?
	grep -E '^(config|build): ' "$T/kernel.out" | grep -v ' compile: objects ' | sed 's/^/    /'
	expect_eq "make kernel SIGN_KEY=... : exit status" 0 "$rc"
	[ $rc -eq 0 ] || { tail -n 30 "$T/kernel.out" >&2; exit 1; }
	bzimage=$(tail -n 1 "$T/kernel.out")
	build=${bzimage%/arch/x86/boot/bzImage}
	echo "    build dir: $build"
	case "$(basename "$build")" in
	6.12-guest-s*-f*) pass "build dir names the key (-s<sha8>): $(basename "$build")" ;;
	*) fail "build dir: expected 6.12-guest-s<sha8>-f<sha8>, got $(basename "$build")" ;;
	esac
	report=$build/config-report.txt
	expect_line "config-report.txt" "$report" "signing:      modules: signed with key $fpr"
	expect_no_line "config-report.txt" "$report" "$key"
	expect_no_line "mmbatch-build.env" "$build/mmbatch-build.env" "$key"
	for want in CONFIG_MODULE_SIG=y CONFIG_MODULE_SIG_ALL=y CONFIG_MODULE_SIG_FORCE=y "CONFIG_MODULE_SIG_KEY=\"$key\""; do
		expect_line ".config" "$build/.config" "$want"
	done
	# The built-in keyring holds exactly our certificate.
	openssl x509 -in "$key" -outform DER -out "$T/cert.der"
	expect_eq "certs/signing_key.x509 = SIGN_KEY's certificate (sha256)" \
		"$(sha256sum <"$T/cert.der" | cut -c1-64)" "$(sha256sum <"$build/certs/signing_key.x509" | cut -c1-64)"
	expect_eq "kbuild generated no key (certs/signing_key.pem)" absent "$([ -e "$build/certs/signing_key.pem" ] && echo present || echo absent)"
fi

if wanted vm; then
	echo "== out-of-tree module tests/sign against $build: signed, other key, unsigned"
	mkdir -p "$T/mod"
	cp "$TOP/tests/sign/Kbuild" "$TOP/tests/sign/mmbatch_signtest.c" "$T/mod/"
	rc=0; make -C "$build" M="$T/mod" modules >"$T/mod.log" 2>&1 || rc=$?
	expect_eq "make -C <build> M=tests/sign modules: exit status" 0 "$rc"
	[ $rc -eq 0 ] || { tail -n 20 "$T/mod.log" >&2; exit 1; }
	ko=$T/mod/mmbatch_signtest.ko
	cp "$ko" "$T/unsigned.ko"
	# The other key's module carries a signature the kernel has no key for.
	openssl x509 -in "$T/other.pem" -outform DER -out "$T/other.der"
	"$build/scripts/sign-file" sha512 "$T/other.pem" "$T/other.der" "$ko" "$T/otherkey.ko"
	"$build/scripts/sign-file" sha512 "$key" "$build/certs/signing_key.x509" "$ko" "$T/signed.ko"
	# What the packages get: modules_install signs with SIGN_KEY by itself.
	rc=0; make -C "$build" M="$T/mod" INSTALL_MOD_PATH="$T/inst" modules_install >>"$T/mod.log" 2>&1 || rc=$?
	expect_eq "make -C <build> M=tests/sign modules_install: exit status" 0 "$rc"
	installed=$(find "$T/inst" -name mmbatch_signtest.ko | head -n 1)
	if [ -z "$installed" ]; then fail "modules_install left no mmbatch_signtest.ko under $T/inst"; exit 1; fi
	cp "$installed" "$T/installed.ko"
	for f in signed otherkey installed; do
		expect_eq "$f.ko ends with the signature marker" "~Module signature appended~" "$(tail -c 28 "$T/$f.ko" | tr -d '\n')"
	done
	expect_eq "unsigned.ko has no signature marker" 0 "$(grep -c 'Module signature appended' "$T/unsigned.ko" || true)"

	echo "== booting the signed guest: insmod unsigned, other key, signed (vmtest, TCG or KVM)"
	rc=0
	nice -n 5 "$TOP/tools/vmtest/vmtest" boot "$bzimage" --cpus 1 --nodes 1 --mem 512 \
		--timeout "${SIGN_TEST_TIMEOUT:-300}" --log "$T/console.log" \
		--add "$T/unsigned.ko" --add "$T/otherkey.ko" --add "$T/installed.ko" --add "$T/signed.ko" --add "$TOP/tests/sign/guest_test.sh" \
		-- sh guest_test.sh >"$T/guest.out" 2>&1 || rc=$?
	sed 's/^/    | /' "$T/guest.out"
	expect_eq "guest command exit status" 0 "$rc"
	g=$T/guest.out
	expect_insmod "$g" unsigned refused
	expect_line "guest" "$g" "insmod unsigned.ko: insmod: can't insert 'unsigned.ko': Key was rejected by service"
	expect_line "guest" "$g" "Loading of unsigned module is rejected"
	expect_insmod "$g" otherkey refused
	expect_line "guest" "$g" "insmod otherkey.ko: insmod: can't insert 'otherkey.ko': Key was rejected by service"
	expect_line "guest" "$g" "Loading of module with unavailable key is rejected"
	expect_insmod "$g" installed loaded
	expect_line "guest" "$g" "rmmod mmbatch_signtest: status 0"
	expect_insmod "$g" signed loaded
	expect_eq "guest: times the module said it loaded" 2 "$(grep -c 'mmbatch_signtest: loaded' "$g" || true)"
	expect_line "guest" "$g" "/proc/modules: mmbatch_signtest"
	expect_no_line "guest" "$g" "module verification failed"
fi
echo "check-sign: $test_failures assertion(s) failed"
