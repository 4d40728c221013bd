#!/bin/bash
# Stage 1 (source): unpacks the base kernel source once, pristine, into
# out/src/<srcid>/pristine/linux-<version>/ and prints that path.
# The source is Debian's linux-source-<BASE> tarball (/usr/src, installed with
# apt-get when missing) or SRC=PATH (a kernel tarball, or a tree: copied
# without .git). Re-unpacked only when the source's identity changes.
# Reads: BASE (default 6.12), SRC, OUT, TOP.
set -eu
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: [BASE=6.12|6.1] [SRC=tarball|tree] source.sh" >&2; exit 2; }
[ $# -eq 0 ] || usage

kb_init_src
if [ -z "${SRC:-}" ] && [ ! -f "$KB_TARBALL" ]; then
	kb_note "source: $KB_TARBALL missing: installing linux-source-$BASE"
	"$TOP/tools/deps.sh" <(echo "linux-source-$BASE") ||
		kb_die "source: cannot install linux-source-$BASE (no such base in Debian?)"
	[ -f "$KB_TARBALL" ] || kb_die "source: linux-source-$BASE did not provide $KB_TARBALL"
fi

# What identifies the source: path, size and date of a tarball; the HEAD
# commit and dirty state of a git tree.
identity() {
	if [ -f "${KB_TARBALL:-/nonexistent}" ]; then
		stat -c 'tarball %n %s %Y' "$KB_TARBALL"
	elif [ -d "$KB_SRC_PATH/.git" ]; then
		echo "git $KB_SRC_PATH $(git -C "$KB_SRC_PATH" rev-parse HEAD) $(git -C "$KB_SRC_PATH" status --porcelain | kb_sha)"
	else
		echo "tree $KB_SRC_PATH"
	fi
}

kb_lock "$OUT/src/$KB_SRCID.lock"
want=$(identity)
have=$(cat "$KB_PRISTINE_ROOT/.stamp" 2>/dev/null || true)
pristine=$(kb_find_pristine)
if [ -n "$pristine" ] && [ "$want" = "$have" ]; then
	echo "source: $pristine (unpacked already)" >&2
	echo "$pristine"
	exit 0
fi

mkdir -p "$KB_SRC_ROOT"
scratch=$(mktemp -d "$KB_SRC_ROOT/.unpack.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
t0=$SECONDS
if [ -n "$KB_TARBALL" ]; then
	echo "source: unpacking $KB_TARBALL" >&2
	tar -xf "$KB_TARBALL" -C "$scratch"
	mapfile -t tops < <(find "$scratch" -mindepth 1 -maxdepth 1)
	[ ${#tops[@]} -eq 1 ] && [ -f "${tops[0]}/Makefile" ] ||
		kb_die "source: $KB_TARBALL does not hold one kernel directory"
	top=${tops[0]}
else
	echo "source: copying tree $KB_SRC_PATH (without .git)" >&2
	top=$scratch/linux
	mkdir "$top"
	tar -C "$KB_SRC_PATH" --exclude=.git -cf - . | tar -C "$top" -xf -
fi
version=$(kb_kversion "$top")
echo "$want" >"$scratch/.stamp"
rm -rf "$KB_PRISTINE_ROOT"
mkdir "$scratch/pristine"
mv "$top" "$scratch/pristine/linux-$version"
mv "$scratch/.stamp" "$scratch/pristine/.stamp"
mv "$scratch/pristine" "$KB_PRISTINE_ROOT"
echo "source: linux-$version unpacked in $((SECONDS - t0)) s" >&2
echo "$KB_PRISTINE_ROOT/linux-$version"
