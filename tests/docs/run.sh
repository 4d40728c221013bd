#!/bin/bash
# `make check-docs`: every fenced block of README.md, CONTRIBUTING.md and
# docs/**/*.md (not docs/man/) is run, or the test fails; and every relative
# link resolves.
#
# A block's info string says how it runs:
#   ```sh [status=N[,N]]   on the fake host: a private mount namespace where
#                          /etc/mmbatch, /usr/share/mmbatch/profiles,
#                          /var/lib/mmbatch, /boot/grub (the Debian 12
#                          grub.cfg of tests/canary/fixtures/) and the knobs
#                          under /proc/sys and /sys (tests/docs/fake-host.txt)
#                          are scratch trees (tests/docs/in-fake-host.sh),
#                          with out/bin, src/mmbatchctl and src/mmbench first
#                          on PATH, in a scratch dir; `bash -e`, exit status
#                          0 (or one of status=). One fake host per page:
#                          its blocks run in order and see each other's work.
#   ```console [status=N]  the same host; lines starting "# " or "$ " are
#                          commands, the lines after each its expected output
#                          (stdout+stderr), compared whole: "..." in a line
#                          stands for any text, a line "..." for one or more
#                          lines. status= is the last command's.
#   ```sh host             in the Debian 12 test chroot (tools/pkg/mkchroot.sh)
#                          with a local apt repository signed by a throwaway
#                          key (tests/repo/lib.sh's rt_make_key,
#                          tools/repo/mkrepo.sh) holding the 6.12 guest
#                          packages and mmbatchd, the documented URL
#                          https://pkgs.example.org/mmbatch replaced by its
#                          file:// URL, the same fake knobs bound over the
#                          chroot's /proc/sys and /sys; all host blocks share
#                          one chroot, in page order.
#   ```sh make-n           each line is a `make` command, run as `make -n`
#                          (what it would run; the kernel builds take hours).
#   ```sh skip: REASON     not run; prints SKIP with REASON (never a pass).
#   ```text, ```yaml       not commands (diagrams, file contents).
# Any other info string, an empty one, or an indented code block fails.
# In every run block, a kernel or package name ending in "-cloud" is run as
# "-guest", and a 6.12 release (6.12.N-mmbatchS-) as the built one's (the
# test builds and boots guest kernels; the canary fixture's
# kernels are the 6.12 guest build's release (the recorded grub.cfg's
# 6.12.117-mmbatch1-guest renamed) and, running, 6.1.192-mmbatch1-x6c119661-guest).
#
# Also: every `make <target>` the pages show inline names a target of the
# Makefile (kbuild's own bzImage and tinyconfig aside).
#
# And every line `make help` prints (tools/help.sh on the Makefile and
# mk/*.mk) is at most 100 characters.
#
# And every inline `mmbatchd ...`, `mmbench ...`, `mmbatchctl ...` names a
# subcommand and options its --help lists; every `mmbatchd_NAME` metric is
# one src/mmbatchd/status.c writes.
#
# Tests (ONLY='docs/TEST'): links, fences, targets, help, options, make, fake,
# host.
# Reads: TOP, OUT, BIN_DIR (default $OUT/bin: mmbatchd, mmbench), BUILD
# (the identity file of the build whose packages the host blocks install,
# default $OUT/build/6.12-guest/mmbatch-build.env: META_DEB, IMAGE_DEB,
# MMBATCHD_DEB), DOCS_PKG_DIR (instead: a directory holding those packages,
# found by name), DOCS_FILES (default: README.md, CONTRIBUTING.md and
# docs/**/*.md).
# Needs root (mount namespaces, chroot).
set -eu

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
OUT=${OUT:-$TOP/out}
BIN_DIR=${BIN_DIR:-$OUT/bin}
export TOP OUT
# shellcheck disable=SC2034 # read by assert.sh
TEST_NAME=check-docs
export TEST_STAGE=${TEST_STAGE:-docs}
# The repository tests' library: tests/lib/assert.sh, tools/kbuild/identity.sh,
# and the throwaway keys and package lookups the host blocks use.
# shellcheck source=tests/repo/lib.sh
. "$TOP/tests/repo/lib.sh"

usage() { echo "usage: run.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage
for f in "$BIN_DIR/mmbatchd" "$BIN_DIR/mmbench"; do
	[ -x "$f" ] || { echo "ERROR: $f missing: run 'make tools'" >&2; exit 2; }
done

DOC_URL=https://pkgs.example.org/mmbatch
CHROOT_REPO=/srv/mmbatch-repo
GRUB_FIXTURE=$TOP/tests/canary/fixtures/debian12-update-grub.cfg
RUNNING_KVER=6.1.192-mmbatch1-x6c119661-guest
# The fixture's 6.12 kernel, shown on the fake host as the release of the
# build the host blocks install (BUILD), e.g. 6.12.117-mmbatch2-guest.
GRUB_FIXTURE_KVER=6.12.117-mmbatch1-guest
FAKE_KVER=$(bid_get "${BUILD:-$OUT/build/6.12-guest/mmbatch-build.env}" KERNELRELEASE 2>/dev/null || echo "$GRUB_FIXTURE_KVER")
scratch
mkdir -p "$T/blocks"

if [ -n "${DOCS_FILES:-}" ]; then
	read -r -a docs <<<"$DOCS_FILES"
else
	docs=(README.md CONTRIBUTING.md)
	while IFS= read -r f; do docs+=("$f"); done < <(cd "$TOP" && find docs -name '*.md' -not -path 'docs/man/*' | LC_ALL=C sort)
fi

# extract DOC: every fenced block of DOC into $T/blocks/N, one index line
# "N<TAB>DOC<TAB>LINE<TAB>INFO" each; "INDENTED<TAB>DOC<TAB>LINE" for an
# indented code block (four spaces after a blank line, not inside a list).
extract() {
	awk -v doc="$1" -v dir="$T/blocks" -v n="$(find "$T/blocks" -type f | wc -l)" '
		function out(s) { print s >> (dir "/" n) }
		infence {
			if ($0 ~ "^" indent "```[ \t]*$" || $0 ~ /^[ \t]*```[ \t]*$/) { infence = 0; close(dir "/" n); next }
			line = $0; sub("^" indent, "", line); out(line); next
		}
		/^[ \t]*```/ {
			n++; infence = 1; match($0, /^[ \t]*/); indent = substr($0, 1, RLENGTH)
			info = $0; sub(/^[ \t]*```[ \t]*/, "", info); sub(/[ \t]+$/, "", info)
			printf "" > (dir "/" n)
			printf "%d\t%s\t%d\t%s\n", n, doc, NR, info
			prev = ""; next
		}
		/^[ \t]*([-*+]|[0-9]+\.)[ \t]/ { inlist = 1 }
		/^[^ \t]/ && !/^[ \t]*([-*+]|[0-9]+\.)[ \t]/ { inlist = 0 }
		/^(    |\t)/ && prev ~ /^[ \t]*$/ && !inlist && NR > 1 { printf "INDENTED\t%s\t%d\t\n", doc, NR }
		{ prev = $0 }' "$TOP/$1"
}

index=$T/index
: >"$index"
for d in "${docs[@]}"; do extract "$d" >>"$index"; done

# subst FILE: the block as the test runs it (-cloud kernels and packages as
# -guest; host blocks also get the local repository's URL).
# The pages show one 6.12 release (e.g. 6.12.117-mmbatch2); Debian's
# linux-source-6.12 moves on (6.12.117 became 6.12.118), so a documented
# 6.12 release runs as the built one's (FAKE_KVER less -guest).
build_release=${FAKE_KVER%-guest}
subst() {
	sed -E "s/([0-9])-cloud\b/\1-guest/g; s/\b6\.12\.[0-9]+-mmbatch[0-9]+-/$build_release-/g" "$1"
}

# --- links: every relative link of every page resolves (file, and #anchor
# to a heading of it, slugged as GitHub does)
slugs() {
	awk '/^[ \t]*```/ { f = !f; next } !f && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
		tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}
check_links() {
	local d dir link path anchor bad=0 n=0
	for d in "${docs[@]}"; do
		dir=$(dirname "$TOP/$d")
		while IFS= read -r link; do
			n=$((n + 1))
			path=${link%%#*} anchor=
			[[ $link == *"#"* ]] && anchor=${link#*#}
			[ -n "$path" ] && path=$dir/$path || path=$TOP/$d
			if [ ! -e "$path" ]; then
				fail "$d: link ($link): no such file"; bad=1
			elif [ -n "$anchor" ] && ! slugs "$path" | grep -qxF -- "$anchor"; then
				fail "$d: link ($link): no heading '#$anchor' in ${path#"$TOP"/}"; bad=1
			fi
		done < <(grep -o '\](\([^)( ]*\))' "$TOP/$d" | sed 's/^](//; s/)$//' | grep -v -E '^(https?|mailto|file|man):' || true)
	done
	[ $bad -eq 1 ] || pass "links: $n relative links in ${#docs[@]} pages resolve"
}

# --- targets: every inline `make TARGET` is a target of the Makefile
check_targets() {
	local known t bad=0 n=0
	known=$(make -C "$TOP" -pRrq : 2>/dev/null | awk -F: '/^[a-zA-Z0-9][^$#\/\t=%]*:([^=]|$)/ { print $1 }' | sort -u)
	while IFS= read -r t; do
		n=$((n + 1))
		case $t in bzImage | tinyconfig | *-) continue ;; esac # kbuild's own; check-<stage>
		grep -qxF -- "$t" <<<"$known" || { fail "a page shows \`make $t\`: no such target"; bad=1; }
	done < <(cd "$TOP" && grep -oh '`make [a-zA-Z][a-zA-Z0-9_.-]*' "${docs[@]}" | sed 's/^`make //' | sort -u)
	[ $bad -eq 1 ] || pass "targets: the $n make targets the pages name exist"
}

# --- help: every line `make help` prints is at most 100 characters
check_help() {
	local out line bad=0 n
	out=$("$TOP/tools/help.sh" "$TOP/Makefile" "$TOP"/mk/*.mk) || { fail "help: tools/help.sh failed"; return; }
	n=$(grep -c '' <<<"$out")
	while IFS= read -r line; do
		fail "help: a line of make help has ${line%%:*} characters (at most 100):${line#*:}"; bad=1
	done < <(awk 'length($0) > 100 { print length($0) ":" $0 }' <<<"$out")
	[ $bad -eq 1 ] || pass "help: the $n lines make help prints fit in 100 characters"
}

# --- options: every inline `mmbatchd ...`, `mmbench ...` or `mmbatchctl ...`
# names a subcommand and options its --help lists; every metric name
# `mmbatchd_NAME` is one status.c writes
# shellcheck disable=SC2016 # the backticks are Markdown's
check_options() {
	local span prog rest w help bad=0 n=0
	declare -A helps=(
		[mmbatchd]="$("$BIN_DIR/mmbatchd" --help 2>&1)"
		[mmbench]="$("$BIN_DIR/mmbench" --help 2>&1; "$BIN_DIR/mmbench" compare --help 2>&1)"
		[mmbatchctl]="$("$TOP/src/mmbatchctl/mmbatchctl" --help 2>&1)")
	while IFS= read -r span; do
		n=$((n + 1))
		prog=${span%% *} rest=${span#"$prog"}
		help=${helps[$prog]}
		read -r -a words <<<"$rest"
		for w in "${words[@]}"; do
			case $w in
			--[a-z]*) w=${w%%=*}; w=${w%%[!a-z-]*} ;;
			[a-z]*) # a subcommand: the first word, mmbench's and mmbatchctl's
				if [ "$w" != "${words[0]}" ] || [ "$prog" = mmbatchd ]; then continue; fi ;;
			*) continue ;;
			esac
			grep -qw -- "$w" <<<"$help" || { fail "a page shows \`$span\`: '$w' is not in $prog --help"; bad=1; }
		done
	done < <(cd "$TOP" && grep -oh '`\(mmbatchd\|mmbench\|mmbatchctl\)\( [^`]*\)\?`' "${docs[@]}" | tr -d '`' | sort -u)
	while IFS= read -r w; do
		n=$((n + 1))
		grep -qF "\"${w#mmbatchd_}\"" "$TOP/src/mmbatchd/status.c" || { fail "a page names the metric $w: status.c writes no such metric"; bad=1; }
	done < <(cd "$TOP" && grep -oh '`mmbatchd_[a-z_]*`' "${docs[@]}" | tr -d '`' | sort -u)
	[ $bad -eq 1 ] || pass "options: the $n inline commands and metric names the pages show exist"
}

# --- the kinds of blocks
kind_of() {
	case $1 in
	sh | 'sh status='*) echo fake ;;
	console | 'console status='*) echo console ;;
	'sh host') echo host ;;
	'sh make-n') echo make ;;
	'sh skip: '?*) echo skip ;;
	text | yaml) echo data ;;
	*) echo bad ;;
	esac
}
statuses_of() { case $1 in *status=*) echo "${1##*status=}" | tr ',' ' ' ;; *) echo 0 ;; esac; }
is_status() { local s; for s in $2; do [ "$1" = "$s" ] && return 0; done; return 1; }

check_fences() {
	local id doc line info k bad=0 n=0
	while IFS=$'\t' read -r id doc line info; do
		n=$((n + 1))
		if [ "$id" = INDENTED ]; then
			fail "$doc:$line: indented code block: fence it with an info string (tests/docs/run.sh says which)"; bad=1
			continue
		fi
		k=$(kind_of "$info")
		if [ "$k" = bad ]; then
			fail "$doc:$line: fenced block with info string '$info': not one tests/docs/run.sh knows how to run"; bad=1
		fi
	done <"$index"
	[ $bad -eq 1 ] || pass "fences: all $n blocks say how they run"
}

# --- make-n blocks
run_make_block() {
	local id=$1 where=$2 l cmd rc out
	while IFS= read -r l; do
		cmd=${l%%#*}
		cmd=${cmd%"${cmd##*[![:space:]]}"}
		[ -n "$cmd" ] || continue
		case $cmd in
		make | 'make '*) ;;
		*) fail "$where: '$cmd': a make-n block holds make commands only"; continue ;;
		esac
		eval "set -- ${cmd#make}"
		rc=0
		out=$(make -n --no-print-directory -C "$TOP" "$@" 2>&1) || rc=$?
		expect_ok "$where: make -n${cmd#make} (dry run: what it would run)" "$rc" "$out"
	done < <(subst "$T/blocks/$id")
}

# --- the fake host
fake_knobs() {
	local root=$1 p v
	while read -r p v; do
		case $p in '#'* | '') continue ;; esac
		mkdir -p "$(dirname "$root$p")"
		printf '%s\n' "$v" >"$root$p"
		chmod 0644 "$root$p"
	done <"$TOP/tests/docs/fake-host.txt"
	mkdir -p "$root/sys/devices/system/node/node0"
}

fake_new() {
	local f=$1 d k
	mkdir -p "$f/work" "$f/home"
	for d in etc var_lib usr_share boot; do mkdir -p "$f/$d.u" "$f/$d.w"; done
	install -d -m 0755 "$f/etc.u/mmbatch" "$f/usr_share.u/mmbatch/profiles" "$f/boot.u/grub"
	install -d -m 0700 "$f/var_lib.u/mmbatch"
	install -m 0644 "$TOP/configs/mmbatchd.yaml" "$f/etc.u/mmbatch/mmbatchd.yaml"
	install -m 0644 "$TOP"/configs/profiles/*.yaml "$f/usr_share.u/mmbatch/profiles/"
	# The recorded grub.cfg names the 6.12 guest of its day; the pages
	# name the current release, so the fake host gets the build's.
	sed "s/$(re_quote "$GRUB_FIXTURE_KVER")/$FAKE_KVER/g" "$GRUB_FIXTURE" >"$f/boot.u/grub/grub.cfg"
	grub-editenv "$f/boot.u/grub/grubenv" create
	sed -n "s/.*menuentry_id_option 'gnulinux-\(.*\)-advanced-.*/\1/p" "$f/boot.u/grub/grub.cfg" |
		while IFS= read -r k; do : >"$f/boot.u/vmlinuz-$k"; done
	fake_knobs "$f"
}

# fake_run FAKE SCRIPT: SCRIPT on the fake host; output on stdout.
fake_run() {
	local rc=0
	DOC_PATH=$BIN_DIR:$TOP/src/mmbatchctl:$TOP/src/mmbench:/usr/sbin:/usr/bin:/sbin:/bin \
	MMBATCHD=$BIN_DIR/mmbatchd MMBENCH=$BIN_DIR/mmbench \
	MMBATCHCTL_SMOKE=$TOP/src/mmbench/mmbatch-smoke MMBATCHCTL_KVER=$RUNNING_KVER \
	MMBATCHCTL_REBOOT=true MMBATCHCTL_NOW=2026-12-01T12:00:00Z \
		unshare -m --propagation private "$TOP/tests/docs/in-fake-host.sh" "$1" "$2" 2>&1 || rc=$?
	# a block that ran gpg left its agent running
	[ ! -d "$1/home/.gnupg" ] || GNUPGHOME=$1/home/.gnupg gpgconf --kill gpg-agent >/dev/null 2>&1 || true
	return "$rc"
}

run_fake_block() {
	local id=$1 where=$2 info=$3 fake=$4 rc=0 out
	subst "$T/blocks/$id" >"$T/run.$id"
	out=$(fake_run "$fake" "$T/run.$id") || rc=$?
	if is_status "$rc" "$(statuses_of "$info")"; then
		pass "$where: ran on the fake host, exit $rc"
	else
		fail "$where: exit $rc, expected $(statuses_of "$info"); output:"; _show "$out" 15
	fi
}

# glob_of TEXT: TEXT as a bash pattern ("..." any text).
glob_of() { printf '%s' "$1" | sed 's/[][*?\\]/\\&/g; s/\.\.\./*/g'; }

run_console_block() {
	local id=$1 where=$2 info=$3 fake=$4 l cmds=() exps=() i rc out last pat
	while IFS= read -r l; do
		case $l in
		'# '* | '$ '*) cmds+=("${l#? }"); exps+=("") ;;
		*) [ ${#cmds[@]} -gt 0 ] || { fail "$where: output before the first command"; return; }
			i=$((${#cmds[@]} - 1)); exps[i]+=${exps[i]:+$'\n'}$l ;;
		esac
	done < <(subst "$T/blocks/$id")
	last=$((${#cmds[@]} - 1))
	for i in "${!cmds[@]}"; do
		printf '%s\n' "${cmds[i]}" >"$T/run.$id.$i"
		rc=0
		out=$(fake_run "$fake" "$T/run.$id.$i") || rc=$?
		if [ "$i" -eq "$last" ]; then
			is_status "$rc" "$(statuses_of "$info")" || { fail "$where: '${cmds[i]}': exit $rc, expected $(statuses_of "$info")"; continue; }
		elif [ "$rc" -ne 0 ]; then
			fail "$where: '${cmds[i]}': exit $rc"; _show "$out" 10; continue
		fi
		pat=$(glob_of "${exps[i]}")
		# shellcheck disable=SC2053 # a pattern on purpose
		if [[ $out == $pat ]]; then
			pass "$where: '${cmds[i]}' printed what the page shows (exit $rc)"
		else
			fail "$where: '${cmds[i]}' printed other than the page shows (- page, + actual):"
			diff <(printf '%s\n' "${exps[i]}") <(printf '%s\n' "$out") | sed -n 's/^< /      -/p; s/^> /      +/p' | head -n 20 >&2
		fi
	done
}

# --- the host blocks: one Debian 12 chroot, a local signed repository
host_packages() {
	local build=${BUILD:-$OUT/build/6.12-guest/mmbatch-build.env} k
	if [ -n "${DOCS_PKG_DIR:-}" ]; then
		for k in "$DOCS_PKG_DIR"/linux-image-mmbatch-6.12-guest_*.deb "$DOCS_PKG_DIR"/linux-image-6.12.*-mmbatch?-guest_*.deb \
			"$DOCS_PKG_DIR"/mmbatchd_*_amd64.deb; do
			[ -f "$k" ] && echo "$k"
		done
		return 0
	fi
	rt_packages "$build" META_DEB IMAGE_DEB MMBATCHD_DEB || true
}

host_cleanup() {
	[ -n "${host_root:-}" ] || return 0
	umount -l "$host_root/proc/sys" "$host_root/sys/kernel/mm" 2>/dev/null || true
	"$TOP/tools/pkg/mkchroot.sh" umount "$host_root" || true
	rt_cleanup_keys
	rm -rf --one-file-system "$host_root"
}

host_setup() {
	local pkgs=() rc=0 out
	mapfile -t pkgs < <(host_packages)
	if [ ${#pkgs[@]} -lt 3 ]; then
		host_error="no 6.12 guest packages (META_DEB, IMAGE_DEB, MMBATCHD_DEB of ${BUILD:-$OUT/build/6.12-guest/mmbatch-build.env}): run 'make packages BASE=6.12 FLAVOR=guest' (make check's check-packages stage does)"
		return 1
	fi
	rt_make_key "$T/key" "mmbatch doc-test key"
	out=$(REPO_KEY=$T/key/key.asc REPO_OUT=$T/repo REPO_URL=file://$CHROOT_REPO "$MKREPO" "${pkgs[@]}" 2>&1) || rc=$?
	expect_ok "host: local signed repository of ${#pkgs[@]} packages (tools/repo/mkrepo.sh)" "$rc" "$out"
	[ "$rc" -eq 0 ] || { host_error="mkrepo failed"; return 1; }
	host_root=$T/root
	# shellcheck disable=SC2034 # run by assert.sh at exit
	cleanup_hook=host_cleanup
	"$TOP/tools/pkg/mkchroot.sh" unpack "$host_root" >/dev/null
	"$TOP/tools/pkg/mkchroot.sh" mount "$host_root"
	printf '#!/bin/sh\nexit 101\n' >"$host_root/usr/sbin/policy-rc.d"
	chmod 0755 "$host_root/usr/sbin/policy-rc.d"
	rm -f "$host_root/etc/apt/sources.list" "$host_root"/etc/apt/sources.list.d/*
	cp -a "$T/repo" "$host_root$CHROOT_REPO"
	fake_knobs "$T/hostknobs"
	mount --bind "$T/hostknobs/proc/sys" "$host_root/proc/sys"
	mount --bind "$T/hostknobs/sys/kernel/mm" "$host_root/sys/kernel/mm"
	pass "host: Debian 12 chroot with the repository at file://$CHROOT_REPO, fake knobs under /proc/sys and /sys/kernel/mm"
}

run_host_block() {
	local id=$1 where=$2 rc=0 out
	subst "$T/blocks/$id" | sed "s|$DOC_URL|file://$CHROOT_REPO|g" >"$host_root/run-block.sh"
	out=$(chroot "$host_root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C HOME=/root \
		DEBIAN_FRONTEND=noninteractive bash -e /run-block.sh 2>&1) || rc=$?
	expect_ok "$where: ran in the Debian 12 chroot" "$rc" "$out"
}

# --- run
selected links && check_links
selected fences && check_fences
selected targets && check_targets
selected help && check_help
selected options && check_options

declare -A fake_of=()
host_ids=()
while IFS=$'\t' read -r id doc line info; do
	[ "$id" != INDENTED ] || continue
	where="$doc:$line (\`\`\`${info%%:*})"
	case $(kind_of "$info") in
	make) selected make && run_make_block "$id" "$where" ;;
	skip) selected fake && skip "$where" "${info#sh skip: }" ;;
	fake | console)
		selected fake || continue
		if [ -z "${fake_of[$doc]:-}" ]; then
			fake_of[$doc]=$T/fake.${#fake_of[@]}
			fake_new "${fake_of[$doc]}"
		fi
		if [ "$(kind_of "$info")" = fake ]; then
			run_fake_block "$id" "$where" "$info" "${fake_of[$doc]}"
		else
			run_console_block "$id" "$where" "$info" "${fake_of[$doc]}"
		fi ;;
	host) host_ids+=("$id"$'\t'"$where") ;;
	esac
done <"$index"

if [ ${#host_ids[@]} -gt 0 ] && selected host; then
	host_error=
	host_setup || true
	for e in "${host_ids[@]}"; do
		if [ -n "$host_error" ]; then
			fail "${e#*$'\t'}: cannot run: $host_error"
		else
			run_host_block "${e%%$'\t'*}" "${e#*$'\t'}"
		fi
	done
fi
test_summary
