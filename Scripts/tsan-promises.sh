#!/usr/bin/env bash
# Runs the promise tests under ThreadSanitizer.
#
# -DKRINGLE_TSAN swaps each promise's Mutex for a pthread mutex, which ThreadSanitizer
# understands (Synchronization's Mutex waits on raw futexes it cannot see). The chains are
# shortened: the sanitizer is about ten times slower, and it checks races, not stack depth.
set -euo pipefail
cd "$(dirname "$0")/.."
KRINGLE_CHAIN_LINKS=${KRINGLE_CHAIN_LINKS:-100000} \
    swift test --sanitize=thread -Xswiftc -DKRINGLE_TSAN --scratch-path .build/tsan --filter KringlePromiseTests
