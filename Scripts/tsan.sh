#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer and fails on any warning or failure.
#
# -DKRINGLE_TSAN keeps each promise's inline Mutex, the production lock, and announces each of
# its critical sections to the sanitizer (__tsan_acquire/__tsan_release, CThreadSanitizer):
# Synchronization's Mutex hands a contended lock over in uninstrumented code and the kernel,
# which the sanitizer cannot see (see PromiseLock.swift). The modules' shared
# `Locked` is a pthread mutex, which it sees. Long chains are shortened to 20,000 links (still
# many more than a worker runs in one turn): the sanitizer checks races, not stack depth, and
# is slower still on a long chain (about 1 ms a link at 100,000 on this two-core machine,
# where the four chain tests then held the cores for minutes).
#
#   Scripts/tsan.sh [swift test options, e.g. --filter KringlePromiseTests]
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
start=$(date +%s)
KRINGLE_CHAIN_LINKS=${KRINGLE_CHAIN_LINKS:-20000} TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0} \
    swift test --sanitize=thread -Xswiftc -DKRINGLE_TSAN --scratch-path .build/tsan "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
warnings=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "tsan.sh: $warnings ThreadSanitizer warnings, swift test exited $status, $(( $(date +%s) - start )) s"
[ "$status" -eq 0 ] && [ "$warnings" -eq 0 ]
