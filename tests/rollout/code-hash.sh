#!/bin/bash
# Prints the hash of the rollout code: every file under tools/rollout/ and
# tests/rollout/ but the record of the last VM run (vm-passed.txt), by path
# and content. make check runs the VM test when it differs from the one that
# record names (tests/rollout/run.sh).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
find tools/rollout tests/rollout -type f ! -path tests/rollout/vm-passed.txt ! -name '*.pyc' -print0 |
	LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16
