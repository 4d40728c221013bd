#!/bin/bash
# The quick-path initramfs of a build with its mm selftests in it: what
# tools/vmtest/mkinitramfs.sh makes from the given binaries, plus the
# build's selftests (tools/peer/selftests-build.sh) in /usr/lib/kselftest/mm,
# its modules in /lib/modules/<release> (modprobe: test_hmm.sh) and a static
# bash (/bin/bash, for the tests that are bash scripts).
#   selftests-initramfs.sh -o FILE BUILD_IDENTITY [SRC[:DEST]...]
# Prints nothing on success; FILE is the image (cached by mkinitramfs.sh).
set -eu -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
usage() { echo "usage: selftests-initramfs.sh -o FILE BUILD_IDENTITY [SRC[:DEST]...]" >&2; exit 2; }
[ $# -ge 3 ] && [ "$1" = -o ] || usage
result=$2 build=$3
shift 3
stage=$("$here/selftests-build.sh" "$build" | tail -n 1)
# shellcheck source=tools/kbuild/identity.sh
. "$top/tools/kbuild/identity.sh"
krel=$(bid_get "$build" KERNELRELEASE)
specs=("$@" /bin/bash-static:/bin/bash)
for f in "$stage"/bin/*; do
	specs+=("$f:/usr/lib/kselftest/mm/${f##*/}")
done
image_hash=$(bid_get "$build" IMAGE_HASH)
mods=$stage/modules/$krel-${image_hash:0:12}
while IFS= read -r -d '' f; do
	specs+=("$f:${f#"$mods"}")
done < <(find "$mods/lib/modules" -type f -print0 | sort -z)
exec "$top/tools/vmtest/mkinitramfs.sh" -o "$result" "${specs[@]}"
