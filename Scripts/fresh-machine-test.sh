#!/usr/bin/env bash
# Runs the README's `swift test` as a new user's machine would: in a fresh clone of HEAD,
# inside a private mount namespace where nginx, tinyproxy and microsocks cannot be run
# (/dev/null is bound over each) and the first python3 on PATH runs without site-packages
# (`python3 -S`, so haralyzer cannot be imported). The tests that need them must skip, each
# naming its package, and the run must pass.
#
#   Scripts/fresh-machine-test.sh             # must pass, listing the skips
#   Scripts/fresh-machine-test.sh --require   # KRINGLE_REQUIRE_TEST_TOOLS=1: must fail, naming what is missing
#
# Needs root (unshare -m, mount --bind), as CI and the developers' machines have.
set -euo pipefail
cd "$(dirname "$0")/.."
require=0
[ "${1:-}" = "--require" ] && require=1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git clone -q . "$scratch/kringle"
mkdir "$scratch/bin"
printf '#!/bin/sh\nexec %s -S "$@"\n' "$(command -v python3)" >"$scratch/bin/python3"
chmod +x "$scratch/bin/python3"
unshare -m env SCRATCH="$scratch" REQUIRE="$require" bash -c '
    set -euo pipefail
    for program in nginx tinyproxy microsocks; do
        for path in /usr/sbin/$program /usr/bin/$program /usr/local/bin/$program; do
            if [ -e "$path" ]; then mount --bind /dev/null "$path"; fi
        done
    done
    export PATH="$SCRATCH/bin:$PATH"
    cd "$SCRATCH/kringle"
    if [ "$REQUIRE" = 1 ]; then export KRINGLE_REQUIRE_TEST_TOOLS=1; fi
    swift test
'
