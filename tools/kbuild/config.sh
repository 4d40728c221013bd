#!/bin/bash
# Stage 3 (config): writes the final .config of one build into
# out/build/<srcid>-<flavor>[-debug][-nr<N>][-vanilla][-x<sha8>][-s<sha8>][-f<sha8>]/.config
# (with EXTRA_PATCHES under out/x/x<sha8>[-vanilla]/build/, beside its tree), with
# config-report.txt and mmbatch-build.env beside it, and prints the .config
# path as its last line.
# Base config: FLAVOR=cloud / generic = Debian's config.amd64_none_cloud-amd64
# / config.amd64_none_amd64 (linux-config-<base>); FLAVOR=guest = tinyconfig.
# Debian's trusted/revocation key lists are cleared. Module signing: with
# SIGN_KEY (key + certificate in one PEM, checked by lib.sh) MODULE_SIG,
# MODULE_SIG_ALL and MODULE_SIG_KEY=<its absolute path> are requested, so
# modules_install signs every module and kbuild puts the certificate in the
# built-in keyring; without it MODULE_SIG stays as the base config has it,
# MODULE_SIG_ALL is off and MODULE_SIG_KEY is empty, so kbuild generates no key
# and modules are unsigned, except in a flavor with a public TEST key
# (configs/kernel/guest/module-signing.{config,pem}): its certificate is
# built in and the packaging signs the modules (tools/pkg/stage-kernel.sh). The report's `signing:` line says which (with the
# certificate's fingerprint, never the key's path). BTF is kept only with
# pahole. Then the fragments configs/kernel/common/*.config,
# configs/kernel/<flavor>/*.config, configs/kernel/<flavor>/<base>/*.config
# (options only one base has), with DEBUG=1 configs/kernel/debug/*.config,
# configs/kernel/debug/<base>/*.config and configs/kernel/debug/<flavor>/*.config
# (the debug variant: lockdep, KASAN, DEBUG_VM, ...; the report's `debug:`
# line lists what they turn on), FRAGMENTS and the
# knobs are merged
# (scripts/kconfig/merge_config.sh) and olddefconfig runs. Every
# requested option that did not survive fails the stage, one line each; the
# previous .config stays as it was.
# Reads: BASE, SRC, FLAVOR, DEBUG, NR_CPUS, LOCALVERSION, PATCHES, EXTRA_PATCHES,
#        FRAGMENTS, SIGN_KEY, OUT, TOP; KB_IDENTITY_OUT=FILE: the build identity
#        file's path is written to FILE (for scripts; stdout stays as it is);
#        KB_SEED_FROM=DIR: a new build dir starts as a copy of DIR (below).
set -eu
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/kbuild/cache.sh
. "$(dirname "$0")/cache.sh"

usage() { echo "usage: [BASE=..] [FLAVOR=cloud|generic|guest] [DEBUG=1] [NR_CPUS=N] [FRAGMENTS='a.config ..'] config.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage

kb_init
[ -f "$KB_TREE/.mmbatch-tree" ] && [ "$(cat "$KB_TREE/.mmbatch-tree")" = "$KB_TREE_HASH" ] ||
	kb_die "config: tree $KB_TREE missing or stale: run 'make series' first"

kb_lock "$KB_TREE.lock" -s
kb_lock "$KB_BUILD.lock"

# KB_SEED_FROM=DIR: a build dir made here for the first time starts as a
# copy of DIR, a finished build of the same tree (timestamps kept; its
# identity, counters and logs left out; its own path rewritten, as kbuild
# records it: cache.sh kb_rewrite_paths), so kbuild compiles only what this
# config and release change (fixdep's per-option dependencies, utsrelease.h)
# instead of every object again through ccache: check-repo's next series
# (a release change) and check-distcc's mm/. With EXTRA_PATCHES, DIR may
# also be a build of the tree they go on top of (lib.sh KB_PLAIN_TREE, the
# same knobs without them): its tree's path is rewritten to this x-tree's
# too, and kbuild compiles what the extra patches change besides (the
# canary's BAD kernel, seeded from the 6.1 guest: mm/migrate.c and what
# the release reaches), where a build dir of its own walked all ~1570
# objects through ccache. Seeding does not help a change of MODULE_SIG,
# which reaches include/linux/module.h and so nearly every
# object: that is why the guest flavor carries module signing itself
# (configs/kernel/guest/module-signing.config) rather than check-sign
# building a signed variant. Checked (lib.sh kb_seed_check) before anything
# is written, and again under the seed's lock.
seed=
if [ -n "${KB_SEED_FROM:-}" ] && [ ! -f "$KB_BUILD/.config" ]; then
	seed=${KB_SEED_FROM%/}
	kb_seed_check "$seed"
fi

# The repository's fragments of this build, in merge order: common, the
# flavor's, the flavor's of this base, and with DEBUG=1 the debug variant's
# (all flavors', this base's, this flavor's).
ours=() dirs=(common "$KB_FLAVOR" "$KB_FLAVOR/$KB_BASE")
[ "$KB_DEBUG" = 0 ] || dirs+=(debug "debug/$KB_BASE" "debug/$KB_FLAVOR")
for d in "${dirs[@]}"; do
	for f in "$TOP/configs/kernel/$d"/*.config; do [ -f "$f" ] && ours+=("$f"); done
done
# Everything the result depends on; an unchanged stamp skips the stage.
fragment_files=("${ours[@]}")
for f in ${FRAGMENTS:-}; do
	[ -f "$f" ] && fragment_files+=("$f")
done
# A flavor's public module-signing TEST key (configs/kernel/guest/: the guest
# flavor's module-signing.config names it): copied into the build dir as
# certs/mmbatch-test-signing.pem, the relative MODULE_SIG_KEY kbuild resolves
# there, so autoconf.h names no path of this checkout (ccache direct mode).
test_key=$TOP/configs/kernel/$KB_FLAVOR/module-signing.pem
[ -f "$test_key" ] || test_key=
inputs=$( {
	echo "tree=$KB_TREE_HASH flavor=$KB_FLAVOR debug=$KB_DEBUG local=$KB_LOCALVERSION_FULL nr=$KB_NR_CPUS"
	echo "sign=$KB_SIGN_KEY ${KB_SIGN_KEY:+$(sha256sum <"$KB_SIGN_KEY")} pahole=$(command -v pahole || true)"
	sha256sum "$0" "$TOP/tools/kbuild/lib.sh" | cut -c1-64
	[ "$KB_FLAVOR" = guest ] || sha256sum /usr/src/linux-config-"$KB_BASE"/config.amd64_none_*.xz 2>/dev/null | cut -c1-64
	for f in ${fragment_files[@]+"${fragment_files[@]}"}; do echo "$f"; sha256sum <"$f"; done
	[ -z "$test_key" ] || sha256sum <"$test_key"
} | kb_sha)
cstamp=$KB_BUILD/.mmbatch-config
if [ -f "$KB_BUILD/.config" ] && [ "$(cat "$cstamp" 2>/dev/null)" = "$inputs" ] &&
	[ "$(cat "$KB_BUILD/localversion-mmbatch" 2>/dev/null)" = "$KB_LOCALVERSION_FULL" ]; then
	kb_write_identity "$KB_BUILD/mmbatch-build.env"
	echo "config: $KB_RELEASE: up to date (inputs unchanged)" >&2
	[ -z "${KB_IDENTITY_OUT:-}" ] || echo "$KB_BUILD/mmbatch-build.env" >"$KB_IDENTITY_OUT"
	echo "$KB_BUILD/.config"
	exit 0
fi

work=$OUT/build/.kconfig/$(basename "$KB_BUILD")
mkdir -p "$work"
rm -f "$work/.config" "$work/.config.old"
scratch=$(mktemp -d "$OUT/build/.kconfig/.tmp.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
log=$work/kconfig.log
: >"$log"
t0=$SECONDS

# kconfig's host tools (fixdep, conf) are compiled in each work dir: through
# ccache, as build.sh compiles (CCACHE=0: plain gcc), every work dir after
# the first of a tree takes them from the cache.
hostcc=gcc
if [ "${CCACHE:-1}" = 1 ] && command -v ccache >/dev/null; then
	export CCACHE_BASEDIR=$OUT CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
	hostcc="ccache gcc"
fi
kmake() {
	make -C "$KB_TREE" O="$work" HOSTCC="$hostcc" LOCALVERSION= "$@" >>"$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; kb_die "config: 'make $*' failed (log: $log)"; }
}

# 1. The base config.
case "$KB_FLAVOR" in
cloud|generic)
	variant=amd64_none_amd64
	[ "$KB_FLAVOR" = cloud ] && variant=amd64_none_cloud-amd64
	base_cfg=/usr/src/linux-config-$KB_BASE/config.$variant.xz
	if [ ! -f "$base_cfg" ]; then
		"$TOP/tools/deps.sh" <(echo "linux-config-$KB_BASE") ||
			kb_die "config: cannot install linux-config-$KB_BASE for $base_cfg"
	fi
	[ -f "$base_cfg" ] || kb_die "config: $base_cfg missing (linux-config-$KB_BASE)"
	xz -dc "$base_cfg" >"$work/.config"
	base_desc="Debian $base_cfg"
	;;
guest)
	# tinyconfig's output is kept per tree and toolchain (cache.sh).
	tiny=$(kb_tinyconfig_entry)
	if kb_tinyconfig_restore "$tiny" "$work/.config"; then
		echo "config: make tinyconfig: kept from an earlier config of this tree ($tiny)" >>"$log"
	else
		kmake tinyconfig
		kb_tinyconfig_store "$work/.config" "$tiny"
	fi
	base_desc="make tinyconfig"
	;;
esac
cp "$work/.config" "$scratch/base.config"

# 2. Debian's configs name Debian's certificates; ours must not.
cfg=("$KB_TREE/scripts/config" --file "$work/.config")
"${cfg[@]}" --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
# No SIGN_KEY: an empty key name, or kbuild would generate certs/signing_key.pem
# (a new key every build: packages not reproducible, signed by a key nobody
# keeps). With SIGN_KEY the knobs below set it.
[ -n "$KB_SIGN_KEY" ] || "${cfg[@]}" --set-str MODULE_SIG_KEY ""
btf_note="kept"
if grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$work/.config" && ! command -v pahole >/dev/null; then
	"${cfg[@]}" --disable DEBUG_INFO_BTF
	btf_note="disabled (pahole not installed)"
	kb_note "config: pahole not installed: CONFIG_DEBUG_INFO_BTF disabled"
fi

# 3. Our fragments, then the knobs (last, so they win).
fragments=("${ours[@]}")
for f in ${FRAGMENTS:-}; do fragments+=("$(realpath "$f")"); done
{
	echo "# knobs (tools/kbuild/config.sh)"
	# The release suffix lives in the build dir's localversion-mmbatch
	# file (step 5), not here: CONFIG_LOCALVERSION lands in autoconf.h,
	# which every object includes, so builds that differ only in their
	# release (extra patches, the next series) would share no ccache
	# direct-mode hit.
	echo 'CONFIG_LOCALVERSION=""'
	echo "# CONFIG_LOCALVERSION_AUTO is not set"
	if [ -n "$KB_NR_CPUS" ]; then
		# MAXSMP pins NR_CPUS to 8192; above 512 x86 needs off-stack
		# cpumasks, which Kconfig only offers with DEBUG_PER_CPU_MAPS.
		echo "# CONFIG_MAXSMP is not set"
		if [ "$KB_NR_CPUS" -gt 512 ]; then
			echo "CONFIG_DEBUG_PER_CPU_MAPS=y"
			echo "CONFIG_CPUMASK_OFFSTACK=y"
		fi
		echo "CONFIG_NR_CPUS=$KB_NR_CPUS"
	fi
	if [ -n "$KB_SIGN_KEY" ]; then
		echo "CONFIG_MODULE_SIG=y"
		echo "CONFIG_MODULE_SIG_ALL=y"
		echo "CONFIG_MODULE_SIG_KEY=\"$KB_SIGN_KEY\""
		# RSA comes with MODULE_SIG; an EC key needs ECDSA to verify.
		if [ "$KB_SIGN_KEYTYPE" = ec ]; then echo "CONFIG_CRYPTO_ECDSA=y"; fi
		# Debian's module loader checks every signed module's SHA-256
		# against the blacklist (mod_is_hash_blacklisted); without
		# sha256 every correctly signed module fails with ENOENT.
		echo "CONFIG_CRYPTO_SHA256=y"
	else
		echo "# CONFIG_MODULE_SIG_ALL is not set"
	fi
} >"$scratch/knobs.config"
fragments+=("$scratch/knobs.config")
(cd "$scratch" && "$KB_TREE/scripts/kconfig/merge_config.sh" -m -O "$work" "$work/.config" "${fragments[@]}") >>"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; kb_die "config: merge_config.sh failed (log: $log)"; }
kmake olddefconfig

# 4. Every requested option must have survived olddefconfig.
# requested: "CONFIG_X<TAB>value<TAB>file:line", the last request of each wins.
requested=$scratch/requested
for f in "${fragments[@]}"; do
	awk -v f="$f" '
		/^CONFIG_[A-Za-z0-9_]+=/ { i = index($0, "="); printf "%s\t%s\t%s:%d\n", substr($0, 1, i - 1), substr($0, i + 1), f, FNR; next }
		/^# CONFIG_[A-Za-z0-9_]+ is not set/ { printf "%s\tis not set\t%s:%d\n", $2, f, FNR; next }
		/^[ \t]*(#.*)?$/ { next }
		{ printf "BAD\t%s:%d: not a config line: %s\n", f, FNR, $0 }' "$f"
done >"$scratch/all-requests"
if grep -q '^BAD' "$scratch/all-requests"; then
	kb_die "config: $(grep -m1 '^BAD' "$scratch/all-requests" | cut -f2-)"
fi
tac "$scratch/all-requests" | awk -F'\t' '!seen[$1]++' | tac >"$requested"

# kconfig_why SYM: the "depends on"/"range" lines of SYM's Kconfig entries.
kconfig_why() {
	local sym=${1#CONFIG_} hits
	hits=$(grep -rn --include='Kconfig*' -E "^[[:space:]]*(menu)?config[[:space:]]+${sym}[[:space:]]*$" "$KB_TREE" | cut -d: -f1,2 || true)
	if [ -z "$hits" ]; then echo "no such symbol in Kconfig"; return; fi
	local file line why=()
	while IFS=: read -r file line; do
		while IFS= read -r w; do [ -n "$w" ] && why+=("$w"); done < <(awk -v start="$line" '
			NR <= start { next }
			/^[[:space:]]*(config|menuconfig|choice|endchoice|menu|endmenu|if|endif|source|comment)([[:space:]]|$)/ { exit }
			/^[[:space:]]*depends on / { sub(/^[[:space:]]*depends on[[:space:]]*/, ""); print "depends on " $0 }
			/^[[:space:]]*range / { sub(/^[[:space:]]*/, ""); print $0 }' "$file")
	done <<<"$hits"
	if [ ${#why[@]} -eq 0 ]; then
		echo "no 'depends on' in its Kconfig entry: see ${hits%%$'\n'*}"
	else
		local IFS=';'; echo "${why[*]}" | sed 's/;/; /g'
	fi
}

# One awk pass over the new .config for every request (a process per
# option, as a shell loop would spawn, costs seconds per config run here);
# it prints the requests that did not survive, "SYM<TAB>want<TAB>got<TAB>from".
awk -F'\t' '
	FNR == NR {
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/)) { sym = substr($0, 1, RLENGTH - 1); if (!(sym in val)) val[sym] = substr($0, RLENGTH + 1) }
		else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) { split($0, w, " "); if (!(w[2] in val)) val[w[2]] = "is not set" }
		next
	}
	{
		got = ($1 in val) ? val[$1] : "is not set"   # also when Kconfig hides it: no line at all
		if (got != $2) printf "%s\t%s\t%s\t%s\n", $1, $2, got, $3
	}' "$work/.config" "$requested" >"$scratch/mismatches"
bad=0
while IFS=$'\t' read -r sym want gotv from; do
	shown_want="=$want"; [ "$want" = "is not set" ] && shown_want="'is not set'"
	shown_got="=$gotv"; [ "$gotv" = "is not set" ] && shown_got="'is not set'"
	echo "config: $sym requested $shown_want, got $shown_got ($(kconfig_why "$sym")) [$from]" >&2
	bad=$((bad + 1))
done <"$scratch/mismatches"
[ $bad -eq 0 ] || kb_die "config: $bad requested option(s) did not survive olddefconfig; $KB_BUILD/.config unchanged"

# 5. Success: install the .config (only when it changed, so kbuild sees no
# new timestamp for nothing), the report and the env file.
if [ -n "$seed" ]; then
	# Copied whole under a temporary name, then renamed: an interrupted
	# copy leaves no build dir that looks seeded.
	kb_lock "$seed.lock" -s
	kb_seed_check "$seed"
	rm -rf "$KB_BUILD.seed"
	cp -a "$seed" "$KB_BUILD.seed"
	rm -f "$KB_BUILD.seed/mmbatch-build.env" "$KB_BUILD.seed/.mmbatch-"* "$KB_BUILD.seed/build.log" "$KB_BUILD.seed/config-report.txt"
	kb_rewrite_paths "$KB_BUILD.seed" "$KB_SEED_TREE" "$(bid_get "$seed/mmbatch-build.env" BUILD_DIR)" "$KB_TREE" "$KB_BUILD" ||
		kb_die "config: KB_SEED_FROM=$seed: its paths could not be rewritten in $KB_BUILD.seed"
	seed_what="the same tree"
	if [ "$KB_SEED_TREE" != "$KB_TREE" ]; then
		# Whatever the dates say, what the extra patches change is
		# compiled again (lib.sh kb_seed_forget says why).
		forgot=$(kb_seed_forget "$KB_BUILD.seed") ||
			kb_die "config: KB_SEED_FROM=$seed: the records of what EXTRA_PATCHES change could not be removed from $KB_BUILD.seed"
		seed_what="the same tree without EXTRA_PATCHES; $forgot targets reading what they change made again"
	fi
	# Not for the build cache: seeded, never fresh, it would never be restored.
	touch "$KB_BUILD.seed/.mmbatch-seeded"
	# The seed's build dir, for make check's builds log (build.sh).
	bid_get "$seed/mmbatch-build.env" BUILD_DIR >"$KB_BUILD.seed/.mmbatch-seed"
	rm -rf "$KB_BUILD"
	mv "$KB_BUILD.seed" "$KB_BUILD"
	kb_note "config: $KB_BUILD starts as a copy of $seed (KB_SEED_FROM, $seed_what)"
fi
mkdir -p "$KB_BUILD"
if ! cmp -s "$work/.config" "$KB_BUILD/.config"; then
	cp "$work/.config" "$KB_BUILD/.config.new"
	mv -f "$KB_BUILD/.config.new" "$KB_BUILD/.config"
fi
# The release suffix: kbuild's scripts/setlocalversion appends the build
# dir's localversion* files on every make (before CONFIG_LOCALVERSION).
lv=$KB_BUILD/localversion-mmbatch
if [ "$(cat "$lv" 2>/dev/null)" != "$KB_LOCALVERSION_FULL" ]; then
	echo "$KB_LOCALVERSION_FULL" >"$lv.new"
	mv -f "$lv.new" "$lv"
fi
# The flavor's test key, where kbuild reads it (only the guest flavor has one).
test_fpr=
if [ -n "$test_key" ]; then
	mkdir -p "$KB_BUILD/certs"
	install -m 0600 "$test_key" "$KB_BUILD/certs/mmbatch-test-signing.pem"
	test_fpr=sha256:$(openssl x509 -in "$test_key" -noout -fingerprint -sha256 | sed 's/^.*=//')
fi
{
	echo "mmbatch kernel config report"
	echo "release:      $KB_RELEASE"
	echo "source:       linux-$KB_KVERSION (${SRC:-Debian linux-source-$KB_BASE})"
	echo "variant:      $KB_VARIANT${KB_XHASH:+ + extra patches $KB_XHASH}"
	echo "series:       ${KB_SERIES_DIR#"$TOP/"} version $KB_SERIES_VERSION, $(grep -c . <<<"$KB_SERIES_ENTRIES" || true) patches, sha256 $KB_SERIES_HASH"
	echo "flavor:       $KB_FLAVOR"
	echo "suffix:       $KB_LOCALVERSION_FULL (the build dir's localversion-mmbatch; CONFIG_LOCALVERSION empty)"
	echo "base config:  $base_desc"
	if [ -z "$KB_SIGN_KEY" ] && [ -n "$test_key" ] && grep -qx 'CONFIG_MODULE_SIG_KEY="certs/mmbatch-test-signing.pem"' "$KB_BUILD/.config"; then
		echo "signing:      modules: signed at packaging time (scripts/sign-file) with the flavor's public TEST key $test_fpr (${test_key#"$TOP/"}, certificate in the built-in keyring; not enforced: module.sig_enforce=1 enforces); for tests only; trusted/revocation key lists cleared"
	elif [ -n "$KB_SIGN_KEY" ]; then
		echo "signing:      modules: signed with key $KB_SIGN_FPR ($KB_SIGN_SUBJECT; SIGN_KEY, MODULE_SIG_ALL=y, certificate in the built-in keyring); trusted/revocation key lists cleared"
	else
		echo "signing:      modules: unsigned (no SIGN_KEY: MODULE_SIG_ALL off, no key generated; CONFIG_MODULE_SIG=$(sed -n 's/^CONFIG_MODULE_SIG=//p' "$KB_BUILD/.config" | grep . || echo n) as the base config has it); trusted/revocation key lists cleared"
	fi
	echo "BTF:          $btf_note"
	if [ "$KB_DEBUG" = 1 ]; then
		# What the debug fragments turn on, by name: their =y requests
		# that no later fragment overrode (the last request wins).
		echo "debug:        yes (configs/kernel/debug: $(awk -F'\t' -v d="$TOP/configs/kernel/debug/" \
			'index($3, d) == 1 && $2 == "y" { sub(/^CONFIG_/, "", $1); print $1 }' "$requested" |
			paste -sd, - | sed 's/,/, /g'))"
	else
		echo "debug:        no"
	fi
	echo "fragments:"
	for f in "${fragments[@]}"; do
		case "$f" in "$scratch/knobs.config") echo "  (knobs) $(grep -v '^#' "$f" | tr '\n' ' ')" ;; *) echo "  ${f#"$TOP/"}" ;; esac
	done
	echo "requested options: $(wc -l <"$requested"), all present after olddefconfig"
	echo "CONFIG_NR_CPUS:      $(sed -n 's/^CONFIG_NR_CPUS=//p' "$KB_BUILD/.config")"
	psz=$(sed -n 's/^CONFIG_PAGEVEC_SIZE=//p' "$KB_BUILD/.config")
	echo "CONFIG_PAGEVEC_SIZE: ${psz:-not in this tree (series without the batch-size option)}"
	echo
	echo "changes against the base config (scripts/diffconfig; -removed +added, old -> new):"
	if command -v python3 >/dev/null; then
		python3 "$KB_TREE/scripts/diffconfig" "$scratch/base.config" "$KB_BUILD/.config" | sed 's/^/  /'
	else
		diff "$scratch/base.config" "$KB_BUILD/.config" | sed -n 's/^[<>] /  /p'
	fi
} >"$scratch/report"
if [ -n "$KB_SIGN_KEY" ]; then
	# The key's path is this machine's business: the report goes into the
	# packages' documentation, which must not depend on where the key is.
	awk -v p="$KB_SIGN_KEY" '{ while ((i = index($0, p)) > 0) $0 = substr($0, 1, i - 1) "<SIGN_KEY>" substr($0, i + length(p)); print }' \
		"$scratch/report" >"$scratch/report.new"
	mv -f "$scratch/report.new" "$scratch/report"
fi
mv -f "$scratch/report" "$KB_BUILD/config-report.txt"
kb_write_identity "$KB_BUILD/mmbatch-build.env"
echo "$inputs" >"$cstamp"
echo "config: $KB_RELEASE: $(wc -l <"$requested") requested options checked in $((SECONDS - t0)) s; report $KB_BUILD/config-report.txt" >&2
[ -z "${KB_IDENTITY_OUT:-}" ] || echo "$KB_BUILD/mmbatch-build.env" >"$KB_IDENTITY_OUT"
echo "$KB_BUILD/.config"
