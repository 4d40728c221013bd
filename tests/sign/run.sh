#!/bin/bash
# `make check-sign`: module signing with a key supplied from outside the build
# (SIGN_KEY). Prints each step and each assertion (expected and actual).
# Tests (ONLY=sign/NAME; vm needs build's kernel, so it runs build too):
#  key_check tests/sign/key_check_test.sh, host only (no source, no build):
#            a SIGN_KEY that group or others may read or write is refused
#            in one line naming it and its mode; KBUILD_SIGN_PIN from a make
#            command line (MAKEFLAGS, and make's own parse-time guard) is
#            refused; 0600/0400 keys and a PIN in the environment pass;
#  config    config stage: a SIGN_KEY that is missing, not a file, has no
#            certificate, no private key, or a key of another certificate
#            fails with one line naming the file, and creates no build dir;
#  unsigned  without SIGN_KEY the 6.12 guest's report says "modules:
#            unsigned", its identity file names no signing key;
#  build     the 6.12 guest built with SIGN_KEY (a throwaway key made here
#            under $OUT/test-sign/, reused while it exists) and
#            tests/sign/sign-force.config (MODULE_SIG_FORCE=y): report line
#            with the certificate's fingerprint, the key's path in .config
#            (kbuild needs it there) but not in the report or the identity
#            file; the build is read through its identity file (path from
#            KB_IDENTITY_OUT: SIGN_FPR, IMAGE, CONFIG_HASH);
#  vm        tests/sign's module built against that build dir: one copy
#            signed by kbuild's modules_install (MODULE_SIG_ALL with
#            SIGN_KEY), one with the kernel's scripts/sign-file, one signed
#            with another key, one unsigned; the guest (tools/vmtest/vmtest)
#            loads both signed ones (unloading in between) and refuses the
#            others (insmod: "Key was rejected by service", dmesg: "Loading
#            of ... is rejected").
# Reads: TOP, OUT, MAKE, ONLY (tests/lib/assert.sh's selector),
#        SIGN_TEST_TIMEOUT (guest timeout, default 300 s).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
export TOP OUT
TEST_NAME=${TEST_STAGE:-sign}
make_cmd=${MAKE:-make}
kb=$TOP/tools/kbuild
# shellcheck source=tests/lib/knobs.sh
. "$TOP/tests/lib/knobs.sh"
unset_pipeline_knobs KB_IDENTITY_OUT
export BASE=6.12 FLAVOR=guest
# shellcheck source=tests/lib/assert.sh
. "$TOP/tests/lib/assert.sh"
# shellcheck source=tools/kbuild/identity.sh
. "$kb/identity.sh"
scratch
sha() { sha256sum | cut -c1-64; }

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
# way docs/building/signing.md says (what kbuild's own genkey makes).
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
# kb_sign_init refuses a key that group or others may read (an older run's
# key may be 0644).
chmod 600 "$key"
make_key "$T/other.pem" "mmbatch check-sign other key"
fpr=sha256:$(openssl x509 -in "$key" -noout -fingerprint -sha256 | sed 's/^.*=//')

if selected key_check; then
	echo "== SIGN_KEY's mode and KBUILD_SIGN_PIN's channel (host only)"
	rc=0
	TEST_NAME=key_check "$TOP/tests/sign/key_check_test.sh" >"$T/key_check.out" 2>&1 || rc=$?
	sed 's/^/    /' "$T/key_check.out"
	expect_eq "key_check_test.sh: exit status" 0 "$rc"
fi

if selected config || selected unsigned || selected build || selected vm; then
	echo "== source and series of 6.12 (no-ops when check-pipeline ran)"
	{ "$kb/source.sh" && "$kb/series.sh"; } >"$T/series.out" 2>&1 || { cat "$T/series.out"; fail "source.sh, series.sh (6.12) failed"; exit 1; }
fi

if selected config; then
	echo "== config stage: bad SIGN_KEY values fail with one line naming the file"
	openssl req -new -x509 -nodes -batch -newkey rsa:2048 -subj "/CN=x/" -keyout "$T/keyonly.pem" -out "$T/cert.pem" 2>/dev/null
	cp "$T/cert.pem" "$T/certonly.pem"
	# a key with the certificate of another key
	cat "$T/keyonly.pem" >"$T/mismatch.pem"; openssl x509 -in "$key" >>"$T/mismatch.pem"
	echo "not a PEM" >"$T/garbage.pem"
	mkdir "$T/adir.pem"
	# a good key that others may read: refused by its mode
	cp "$key" "$T/open.pem"; chmod 0644 "$T/open.pem"
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
readable by others|$T/open.pem|mode 0644: the private key is readable or writable by group or others; make it the owner's alone (chmod 600 $T/open.pem)
EOF
	ls "$OUT/build" >"$T/builds.after"
	expect_eq "build dirs created by the bad SIGN_KEY runs" "" "$(comm -13 "$T/builds.before" "$T/builds.after" | tr '\n' ' ')"
fi

if selected unsigned; then
	echo "== without SIGN_KEY: the 6.12 guest config says its modules are unsigned"
	# The build of these knobs, and its identity file, by path.
	plain=$OUT/build/6.12-guest
	rc=0; "$make_cmd" -s --no-print-directory -C "$TOP" config >"$T/cfg.out" 2>&1 || rc=$?
	expect_eq "make config (6.12 guest, no SIGN_KEY): exit status" 0 "$rc"
	expect_eq "identity CONFIG of the plain build" "$plain/.config" "$(bid_get "$plain/mmbatch-build.env" CONFIG 2>&1)"
	rc=0; out=$(bid_get "$plain/mmbatch-build.env" SIGN_FPR 2>&1) || rc=$?
	expect_fails "identity SIGN_FPR of the plain build: none" "SIGN_FPR is not set" "$rc" "$out"
	expect_contains "$plain/config-report.txt" "signing:      modules: unsigned (no SIGN_KEY" "@$plain/config-report.txt"
	expect_lacks "$plain/.config" "CONFIG_MODULE_SIG_ALL=y" "@$plain/.config"
	expect_lacks "$plain/.config" "signing_key.pem" "@$plain/.config"
fi

if selected build || selected vm; then
	echo "== the 6.12 guest with SIGN_KEY=$key and MODULE_SIG_FORCE (ccache)"
	rc=0
	nice -n 5 env SIGN_KEY="$key" FRAGMENTS="$TOP/tests/sign/sign-force.config" KB_IDENTITY_OUT="$T/kernel.id" \
		"$make_cmd" --no-print-directory -C "$TOP" kernel >"$T/kernel.out" 2>&1 || rc=$?
	grep -E '^(config|build): ' "$T/kernel.out" | grep -v ' compile: objects ' | sed 's/^/    /'
	expect_eq "make kernel SIGN_KEY=... : exit status" 0 "$rc"
	[ $rc -eq 0 ] || { tail -n 30 "$T/kernel.out" >&2; exit 1; }
	# The build, read through its identity file (its path from KB_IDENTITY_OUT).
	id=$(cat "$T/kernel.id" 2>/dev/null || true)
	build=$(bid_get "$id" BUILD_DIR) || { fail "no identity file named in KB_IDENTITY_OUT ($T/kernel.id)"; exit 1; }
	bzimage=$(bid_get "$id" IMAGE) || { fail "identity $id names no IMAGE"; exit 1; }
	echo "    build dir: $build, identity: $id"
	expect_eq "identity file: in the build dir" "$build/mmbatch-build.env" "$id"
	expect_eq "identity IMAGE" "$build/arch/x86/boot/bzImage" "$bzimage"
	expect_eq "identity IMAGE_HASH = sha256 of the bzImage" "$(sha <"$bzimage")" "$(bid_get "$id" IMAGE_HASH 2>&1)"
	expect_eq "identity CONFIG_HASH = sha256 of the .config" "$(sha <"$build/.config")" "$(bid_get "$id" CONFIG_HASH 2>&1)"
	expect_eq "identity SIGN_FPR = the certificate's fingerprint" "$fpr" "$(bid_get "$id" SIGN_FPR 2>&1)"
	expect_eq "make kernel: last line, the bzImage" "$bzimage" "$(tail -n 1 "$T/kernel.out")"
	case "$(basename "$build")" in
	6.12-guest-s*-f*) pass "build dir names the key (-s<sha8>): $(basename "$build")" ;;
	*) fail "build dir: expected 6.12-guest-s<sha8>-f<sha8>, got $(basename "$build")" ;;
	esac
	report=$build/config-report.txt
	expect_contains "config-report.txt" "signing:      modules: signed with key $fpr" "@$report"
	expect_lacks "config-report.txt" "$key" "@$report"
	expect_lacks "mmbatch-build.env" "$key" "@$id"
	for want in CONFIG_MODULE_SIG=y CONFIG_MODULE_SIG_ALL=y CONFIG_MODULE_SIG_FORCE=y "CONFIG_MODULE_SIG_KEY=\"$key\""; do
		expect_contains ".config" "$want" "@$build/.config"
	done
	# The built-in keyring holds exactly our certificate.
	openssl x509 -in "$key" -outform DER -out "$T/cert.der"
	expect_eq "certs/signing_key.x509 = SIGN_KEY's certificate (sha256)" \
		"$(sha256sum <"$T/cert.der" | cut -c1-64)" "$(sha256sum <"$build/certs/signing_key.x509" | cut -c1-64)"
	expect_absent "kbuild generated no key (certs/signing_key.pem)" "$build/certs/signing_key.pem"
fi

if selected vm; then
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
	expect_contains "guest" "insmod unsigned.ko: insmod: can't insert 'unsigned.ko': Key was rejected by service" "@$g"
	expect_contains "guest" "Loading of unsigned module is rejected" "@$g"
	expect_insmod "$g" otherkey refused
	expect_contains "guest" "insmod otherkey.ko: insmod: can't insert 'otherkey.ko': Key was rejected by service" "@$g"
	expect_contains "guest" "Loading of module with unavailable key is rejected" "@$g"
	expect_insmod "$g" installed loaded
	expect_contains "guest" "rmmod mmbatch_signtest: status 0" "@$g"
	expect_insmod "$g" signed loaded
	expect_eq "guest: times the module said it loaded" 2 "$(grep -c 'mmbatch_signtest: loaded' "$g" || true)"
	expect_contains "guest" "/proc/modules: mmbatch_signtest" "@$g"
	expect_lacks "guest" "module verification failed" "@$g"
fi
test_summary
