#!/bin/bash
# `make check-sign`: module signing, on the 6.12 guest build every stage
# shares (no kernel of its own: the guest flavor has MODULE_SIG with a public
# test key built in, configs/kernel/guest/module-signing.config), and the
# operator's SIGN_KEY at the config stage. Prints each step and each
# assertion (expected and actual).
# Tests (ONLY=sign/NAME; packages and vm need the guest build and packages,
# made when missing):
#  key_check tests/sign/key_check_test.sh, host only (no source, no build):
#            a SIGN_KEY that group or others may read or write is refused
#            in one line naming it and its mode; KBUILD_SIGN_PIN from a make
#            command line (MAKEFLAGS, and make's own parse-time guard) is
#            refused; 0600/0400 keys and a PIN in the environment pass;
#  config    config stage: a SIGN_KEY that is missing, not a file, has no
#            certificate, no private key, or a key of another certificate
#            fails with one line naming the file, and creates no build dir;
#  guest     the 6.12 guest's .config: MODULE_SIG, MODULE_SIG_KEY the test
#            key in its build dir (the repository's, byte for byte), its
#            certificate the built-in one, neither MODULE_SIG_ALL nor
#            MODULE_SIG_FORCE; the report names the test key's fingerprint,
#            the identity no SIGN_FPR;
#  operator  config.sh with SIGN_KEY (a throwaway key made here under
#            $OUT/test-sign/, reused while it exists) and
#            tests/sign/sign-force.config: build dir -s<sha8>-f<sha8>,
#            MODULE_SIG_ALL, MODULE_SIG_FORCE and the key's path in .config
#            (kbuild needs it there), not in the report or the identity,
#            SIGN_FPR its fingerprint; config only (removed after);
#  packages  the guest's DEB and RPM (make guest-packages-6.12): each module
#            ends with a signature that verifies against the built-in
#            certificate (openssl cms over the module's bytes), the same
#            bytes in both; the check fails on another key and on no key;
#  vm        tests/sign's module built against the guest build dir: one
#            signed with scripts/sign-file and the test key, one with
#            another key, one unsigned; the guest booted with
#            module.sig_enforce=1 (tools/vmtest/vmtest) loads the signed one
#            and the DEB's test_hmm.ko and refuses the others (insmod: "Key
#            was rejected by service", dmesg: "Loading of ... is rejected").
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
# Its certificate as sign-file takes it (DER).
openssl x509 -in "$T/other.pem" -outform DER -out "$T/other.der"
fpr=sha256:$(openssl x509 -in "$key" -noout -fingerprint -sha256 | sed 's/^.*=//')

if selected key_check; then
	echo "== SIGN_KEY's mode and KBUILD_SIGN_PIN's channel (host only)"
	rc=0
	TEST_NAME=key_check "$TOP/tests/sign/key_check_test.sh" >"$T/key_check.out" 2>&1 || rc=$?
	sed 's/^/    /' "$T/key_check.out"
	expect_eq "key_check_test.sh: exit status" 0 "$rc"
fi

if selected config || selected guest || selected operator || selected packages || selected vm; then
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

if selected guest || selected packages || selected vm; then
	echo "== the 6.12 guest build every stage shares (make guest-kernel-6.12: built when missing)"
	rc=0; "$make_cmd" -s --no-print-directory -C "$TOP" guest-kernel-6.12 >"$T/gk.out" 2>&1 || rc=$?
	expect_eq "make guest-kernel-6.12: exit status" 0 "$rc"
	[ $rc -eq 0 ] || { tail -n 30 "$T/gk.out" >&2; exit 1; }
	id=$OUT/build/6.12-guest/mmbatch-build.env
	build=$(bid_get "$id" BUILD_DIR) || { fail "identity $id names no BUILD_DIR"; exit 1; }
	bzimage=$(bid_get "$id" IMAGE) || { fail "identity $id names no IMAGE"; exit 1; }
	test_key=$TOP/configs/kernel/guest/module-signing.pem
	test_fpr=sha256:$(openssl x509 -in "$test_key" -noout -fingerprint -sha256 | sed 's/^.*=//')
fi

if selected guest; then
	echo "== the guest flavor: MODULE_SIG with the public test key built in, not enforced, no second kernel"
	for want in CONFIG_MODULE_SIG=y 'CONFIG_MODULE_SIG_KEY="certs/mmbatch-test-signing.pem"' "# CONFIG_MODULE_SIG_ALL is not set" "# CONFIG_MODULE_SIG_FORCE is not set"; do
		expect_contains ".config of $build" "$want" "@$build/.config"
	done
	expect_eq "certs/mmbatch-test-signing.pem = configs/kernel/guest/module-signing.pem (sha256)" \
		"$(sha <"$test_key")" "$(sha <"$build/certs/mmbatch-test-signing.pem")"
	openssl x509 -in "$test_key" -outform DER -out "$T/test.der"
	expect_eq "certs/signing_key.x509 (the built-in keyring) = the test key's certificate (sha256)" \
		"$(sha <"$T/test.der")" "$(sha <"$build/certs/signing_key.x509")"
	expect_contains "config-report.txt" "signing:      modules: signed at packaging time (scripts/sign-file) with the flavor's public TEST key $test_fpr" "@$build/config-report.txt"
	rc=0; out=$(bid_get "$id" SIGN_FPR 2>&1) || rc=$?
	expect_fails "identity SIGN_FPR of the guest build: none (no SIGN_KEY)" "SIGN_FPR is not set" "$rc" "$out"
	case "$(basename "$build")" in
	6.12-guest) pass "the build every stage shares: $(basename "$build")" ;;
	*) fail "build dir: expected 6.12-guest, got $(basename "$build")" ;;
	esac
fi

if selected operator; then
	echo "== SIGN_KEY=$key and MODULE_SIG_FORCE: the operator's config (config stage only, scratch build dir)"
	rc=0
	env SIGN_KEY="$key" FRAGMENTS="$TOP/tests/sign/sign-force.config" KB_IDENTITY_OUT="$T/op.id" \
		"$kb/config.sh" >"$T/op.out" 2>"$T/op.err" || rc=$?
	expect_eq "config.sh SIGN_KEY=... : exit status" 0 "$rc"
	[ $rc -eq 0 ] || { cat "$T/op.err" >&2; exit 1; }
	opid=$(cat "$T/op.id")
	opbuild=$(bid_get "$opid" BUILD_DIR) || { fail "identity $opid names no BUILD_DIR"; exit 1; }
	# Only its config was made: removed at the end, with its kconfig work dir.
	case "$(basename "$opbuild")" in
	6.12-guest-s*-f*) pass "build dir names the key (-s<sha8>) and the fragment (-f<sha8>): $(basename "$opbuild")" ;;
	*) fail "build dir: expected 6.12-guest-s<sha8>-f<sha8>, got $(basename "$opbuild")" ;;
	esac
	expect_eq "identity SIGN_FPR = the certificate's fingerprint" "$fpr" "$(bid_get "$opid" SIGN_FPR 2>&1)"
	expect_eq "identity CONFIG_HASH = sha256 of the .config" "$(sha <"$opbuild/.config")" "$(bid_get "$opid" CONFIG_HASH 2>&1)"
	expect_contains "config-report.txt" "signing:      modules: signed with key $fpr" "@$opbuild/config-report.txt"
	expect_lacks "config-report.txt" "$key" "@$opbuild/config-report.txt"
	expect_lacks "mmbatch-build.env" "$key" "@$opid"
	for want in CONFIG_MODULE_SIG=y CONFIG_MODULE_SIG_ALL=y CONFIG_MODULE_SIG_FORCE=y "CONFIG_MODULE_SIG_KEY=\"$key\""; do
		expect_contains ".config" "$want" "@$opbuild/.config"
	done
	expect_lacks ".config: the guest's test key is replaced" "mmbatch-test-signing.pem" "@$opbuild/.config"
	case $opbuild in "$OUT"/build/6.12-guest-s*) rm -rf "$opbuild" "$OUT/build/.kconfig/$(basename "$opbuild")" ;; esac
fi

# unpack PKG DIR: unpacks the DEB or RPM PKG into DIR.
unpack() {
	mkdir -p "$2"
	case $1 in
	*.deb) dpkg-deb -x "$1" "$2" ;;
	*.rpm) (cd "$2" && rpm2cpio "$1" | cpio -idm --quiet) ;;
	esac
}

# verify_sig KO CERT_DER: the module's appended signature (PKCS#7, kernel
# module_signature trailer) verifies over the module's bytes with CERT.
verify_sig() {
	local ko=$1 size siglen body
	size=$(stat -c %s "$ko")
	# struct module_signature (12 bytes, sig_len big-endian at its end) +
	# the 28-byte marker.
	siglen=$(tail -c 40 "$ko" | head -c 12 | od -An -tu1 | awk '{ print $9 * 16777216 + $10 * 65536 + $11 * 256 + $12 }')
	body=$((size - 40 - siglen))
	[ "$body" -gt 0 ] || return 1
	head -c "$body" "$ko" >"$T/body"
	tail -c $((siglen + 40)) "$ko" | head -c "$siglen" >"$T/sig.p7"
	openssl cms -verify -binary -inform DER -in "$T/sig.p7" -content "$T/body" \
		-certfile "$2" -nointern -noverify -out /dev/null 2>"$T/cms.err"
}

if selected packages || selected vm; then
	echo "== the 6.12 guest's packages (make guest-packages-6.12: made when missing), their modules signed at packaging time"
	rc=0; "$make_cmd" -s --no-print-directory -C "$TOP" guest-packages-6.12 >"$T/gp.out" 2>&1 || rc=$?
	expect_eq "make guest-packages-6.12: exit status" 0 "$rc"
	[ $rc -eq 0 ] || { tail -n 30 "$T/gp.out" >&2; exit 1; }
	deb=$(bid_get "$id" IMAGE_DEB) || { fail "identity $id records no IMAGE_DEB"; exit 1; }
	rpm=$(bid_get "$id" KERNEL_RPM) || { fail "identity $id records no KERNEL_RPM"; exit 1; }
	unpack "$deb" "$T/deb"
	unpack "$rpm" "$T/rpm"
	pkg_hmm=$(find "$T/deb" -name test_hmm.ko | head -n 1)
fi

if selected packages; then
	mapfile -t kos < <(cd "$T/deb" && find . -name '*.ko' | sort)
	expect_eq "modules in the DEB: as many as the build's modules.order lists" "$(grep -c . "$build/modules.order")" "${#kos[@]}"
	expect_contains "modules in the DEB" "test_hmm.ko" "${kos[*]}"
	for k in "${kos[@]}"; do
		expect_eq "${k##*/} ends with the signature marker" "~Module signature appended~" "$(tail -c 28 "$T/deb/$k" | tr -d '\n')"
		rc=0; verify_sig "$T/deb/$k" "$build/certs/signing_key.x509" || rc=$?
		expect_eq "${k##*/}: its signature verifies with the built-in certificate (openssl cms -verify)" 0 "$rc"
		[ $rc -eq 0 ] || cat "$T/cms.err" >&2
		expect_eq "${k##*/}: the same bytes in the RPM" "$(sha <"$T/deb/$k")" "$(sha <"$T/rpm/$k" 2>/dev/null)"
	done
	# The check itself fails on a module signed with another key, and on an unsigned one.
	"$build/scripts/sign-file" sha512 "$T/other.pem" "$T/other.der" "$build/lib/test_hmm.ko" "$T/hmm-other.ko"
	rc=0; verify_sig "$T/hmm-other.ko" "$build/certs/signing_key.x509" || rc=$?
	expect_eq "a module signed with another key: the verification fails" 1 "$((rc != 0))"
	rc=0; verify_sig "$build/lib/test_hmm.ko" "$build/certs/signing_key.x509" || rc=$?
	expect_eq "the build dir's unsigned test_hmm.ko: the verification fails" 1 "$((rc != 0))"
fi

if selected vm; then
	echo "== out-of-tree module tests/sign against $build: signed with sign-file, other key, unsigned"
	mkdir -p "$T/mod"
	cp "$TOP/tests/sign/Kbuild" "$TOP/tests/sign/mmbatch_signtest.c" "$T/mod/"
	rc=0; make -C "$build" M="$T/mod" modules >"$T/mod.log" 2>&1 || rc=$?
	expect_eq "make -C <build> M=tests/sign modules: exit status" 0 "$rc"
	[ $rc -eq 0 ] || { tail -n 20 "$T/mod.log" >&2; exit 1; }
	ko=$T/mod/mmbatch_signtest.ko
	cp "$ko" "$T/unsigned.ko"
	# The other key's module carries a signature the kernel has no key for.
	"$build/scripts/sign-file" sha512 "$T/other.pem" "$T/other.der" "$ko" "$T/otherkey.ko"
	"$build/scripts/sign-file" sha512 "$build/certs/mmbatch-test-signing.pem" "$build/certs/signing_key.x509" "$ko" "$T/signed.ko"
	for f in signed otherkey; do
		expect_eq "$f.ko ends with the signature marker" "~Module signature appended~" "$(tail -c 28 "$T/$f.ko" | tr -d '\n')"
	done
	expect_eq "unsigned.ko has no signature marker" 0 "$(grep -c 'Module signature appended' "$T/unsigned.ko" || true)"
	[ -n "$pkg_hmm" ] || { fail "no test_hmm.ko in $deb"; exit 1; }
	cp "$pkg_hmm" "$T/test_hmm.ko"

	echo "== booting the guest build with module.sig_enforce=1: insmod unsigned, other key, signed, the DEB's test_hmm (vmtest)"
	rc=0
	nice -n 5 "$TOP/tools/vmtest/vmtest" boot "$bzimage" --cpus 1 --nodes 1 --mem 512 \
		--timeout "${SIGN_TEST_TIMEOUT:-300}" --log "$T/console.log" --append "module.sig_enforce=1" \
		--add "$T/unsigned.ko" --add "$T/otherkey.ko" --add "$T/signed.ko" --add "$T/test_hmm.ko" --add "$TOP/tests/sign/guest_test.sh" \
		-- sh guest_test.sh >"$T/guest.out" 2>&1 || rc=$?
	sed 's/^/    | /' "$T/guest.out"
	expect_eq "guest command exit status" 0 "$rc"
	g=$T/guest.out
	expect_contains "guest" "sig_enforce: Y" "@$g"
	expect_insmod "$g" unsigned refused
	expect_contains "guest" "insmod unsigned.ko: insmod: can't insert 'unsigned.ko': Key was rejected by service" "@$g"
	expect_contains "guest" "Loading of unsigned module is rejected" "@$g"
	expect_insmod "$g" otherkey refused
	expect_contains "guest" "insmod otherkey.ko: insmod: can't insert 'otherkey.ko': Key was rejected by service" "@$g"
	expect_contains "guest" "Loading of module with unavailable key is rejected" "@$g"
	expect_insmod "$g" signed loaded
	expect_contains "guest" "rmmod mmbatch_signtest: status 0" "@$g"
	expect_insmod "$g" test_hmm loaded
	expect_eq "guest: times the module said it loaded" 1 "$(grep -c 'mmbatch_signtest: loaded' "$g" || true)"
	expect_contains "guest" "/proc/modules: test_hmm" "@$g"
	expect_lacks "guest" "module verification failed" "@$g"
fi
test_summary
