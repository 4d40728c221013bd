# shellcheck shell=bash disable=SC2034
# Shared helpers for the repository scripts (tools/repo/*.sh). Sourced.
#
# repo_key_init resolves REPO_KEY into a gpg home and a key to sign with:
#   REPO_KEY=FILE       an exported secret key (gpg --export-secret-keys, armored
#                       or binary), imported into a private temporary gpg home;
#                       REPO_KEY_PASSFILE names its passphrase file if it has one
#   REPO_KEY=ID         a key id, fingerprint or user id in the caller's keyring
#                       (GNUPGHOME, default ~/.gnupg); it must sign unattended
#                       (no passphrase, or one cached by the running gpg-agent)
#   REPO_KEY=generate   a throwaway key, made once and kept in $OUT/repo-key/
#                       (never published, never committed: out/ is ignored)
# Sets GNUPGHOME (exported), REPO_KEY_FPR (primary fingerprint) and
# REPO_KEY_IDS (every 16-hex key id of the key, primary and subkeys, upper
# case, space-separated: what rpm prints as "Key ID").
#
# Reads: TOP, OUT, REPO_KEY, REPO_KEY_PASSFILE.

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${OUT:=$TOP/out}"
export TOP OUT
umask 022
export LC_ALL=C TZ=UTC

repo_die() { echo "ERROR: $*" >&2; exit 1; }
repo_note() { echo "$*" >&2; }

# gpg homes of ours: repo_cleanup stops the agents that our gpg calls started
# there and removes the temporary ones (never touches the caller's keyring).
REPO_TMP_HOMES=() REPO_AGENT_HOMES=()
repo_cleanup() {
	local h
	for h in ${REPO_AGENT_HOMES[@]+"${REPO_AGENT_HOMES[@]}"} ${REPO_TMP_HOMES[@]+"${REPO_TMP_HOMES[@]}"}; do
		GNUPGHOME=$h gpgconf --kill gpg-agent >/dev/null 2>&1 || true
	done
	for h in ${REPO_TMP_HOMES[@]+"${REPO_TMP_HOMES[@]}"}; do
		rm -rf "$h"
	done
}

# repo_gpg ARGS...: gpg, batch mode, in the resolved home.
repo_gpg() { gpg --batch --no-tty --quiet "$@"; }

# repo_key_generate HOME: a new RSA-3072 signing key in HOME (RSA: what
# every apt (gpgv/sqv) and rpm in use verifies; 3072: current minimum advice).
repo_key_generate() {
	GNUPGHOME=$1 gpg --batch --no-tty --quiet --passphrase '' \
		--quick-generate-key "mmbatch throwaway repository key (make repo REPO_KEY=generate; do not publish) <packagers@mmbatch.example.org>" \
		rsa3072 sign 2y
}

# repo_secret_fprs: fingerprints of the primary keys with a secret part that
# match "$@" (all when no argument), one a line.
repo_secret_fprs() {
	repo_gpg --with-colons --list-secret-keys "$@" 2>/dev/null |
		awk -F: '$1 == "sec" { want = 1; next } $1 == "fpr" && want { print $10; want = 0 }'
}

repo_key_init() {
	local key=${REPO_KEY:-} fprs
	case $key in
	'')
		repo_die "repo: REPO_KEY is not set: give a secret key file (REPO_KEY=path/key.asc), a key id in your gpg keyring (REPO_KEY=0xABCD...), or REPO_KEY=generate for a throwaway key under out/repo-key/"
		;;
	generate)
		export GNUPGHOME=$OUT/repo-key
		REPO_AGENT_HOMES+=("$GNUPGHOME")
		mkdir -p "$GNUPGHOME"
		chmod 0700 "$GNUPGHOME"
		if [ -z "$(repo_secret_fprs)" ]; then
			repo_note "repo: REPO_KEY=generate: making a THROWAWAY signing key in $GNUPGHOME (for tests; publish nothing signed by it)"
			repo_key_generate "$GNUPGHOME" || repo_die "repo: gpg could not generate a key in $GNUPGHOME"
		else
			repo_note "repo: REPO_KEY=generate: reusing the throwaway key in $GNUPGHOME"
		fi
		;;
	*)
		if [ -f "$key" ]; then
			[ -r "$key" ] || repo_die "repo: REPO_KEY=$key: cannot read the key file"
			export GNUPGHOME
			GNUPGHOME=$(mktemp -d)
			REPO_TMP_HOMES+=("$GNUPGHOME")
			if [ -n "${REPO_KEY_PASSFILE:-}" ]; then
				[ -r "$REPO_KEY_PASSFILE" ] || repo_die "repo: REPO_KEY_PASSFILE=$REPO_KEY_PASSFILE: cannot read it"
				# Every gpg call in this home (also rpmsign's) reads the passphrase.
				printf 'pinentry-mode loopback\npassphrase-file %s\n' "$(realpath "$REPO_KEY_PASSFILE")" >"$GNUPGHOME/gpg.conf"
				echo allow-loopback-pinentry >"$GNUPGHOME/gpg-agent.conf"
			fi
			repo_gpg --import "$key" 2>"$GNUPGHOME/import.err" ||
				repo_die "repo: REPO_KEY=$key: gpg cannot import it: $(tail -n 1 "$GNUPGHOME/import.err")"
		else
			: "${GNUPGHOME:=$HOME/.gnupg}"
			export GNUPGHOME
			[ -d "$GNUPGHOME" ] || repo_die "repo: REPO_KEY=$key: no keyring at $GNUPGHOME (set GNUPGHOME, or give a key file)"
			local id_re='^[A-Za-z0-9@<>._ +-]+$'
			[[ "$key" =~ $id_re ]] ||
				repo_die "repo: REPO_KEY='$key' is neither a file nor a key id"
		fi
		;;
	esac
	if [ "$key" = generate ] || [ -f "$key" ]; then
		fprs=$(repo_secret_fprs)
	else
		fprs=$(repo_secret_fprs "$key")
	fi
	[ -n "$fprs" ] || repo_die "repo: REPO_KEY=$key: no secret key found (in $GNUPGHOME)"
	[ "$(printf '%s\n' "$fprs" | wc -l)" -eq 1 ] ||
		repo_die "repo: REPO_KEY=$key: more than one secret key ($(printf "%s\n" "$fprs" | tr "\n" " ")); name one by its fingerprint"
	REPO_KEY_FPR=$fprs
	REPO_KEY_IDS=$(repo_gpg --with-colons --list-keys "$REPO_KEY_FPR" | awk -F: '$1 == "pub" || $1 == "sub" { print toupper($5) }' | tr '\n' ' ')
	# Sign once now: a key that cannot sign unattended fails here, before
	# anything is written, with gpg's reason.
	# The signature goes to stdout: gpg deletes its -o file when signing
	# fails, and as root that file must never be /dev/null.
	local err
	if ! err=$(echo probe | repo_gpg --local-user "$REPO_KEY_FPR" --sign 2>&1 >/dev/null); then
		repo_die "repo: REPO_KEY=$key: cannot sign with $REPO_KEY_FPR: $(printf '%s\n' "$err" | tail -n 1)"
	fi
	repo_note "repo: signing with $REPO_KEY_FPR"
}
