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
# The tests run 16 at a time rather than all at once (Swift Testing's default): every test
# starts at once otherwise, and under the sanitizer their servers' and transports' threads
# (some 800 LoopbackServer and 500 curl threads at the peak) left Swift concurrency's two-thread
# pool without a turn for 19 s, past the bounded waits of the tests queued on it. `swift test`
# does not pass the width on, so the script builds the tests and runs their binary itself.
#
#   Scripts/tsan.sh [test binary options, e.g. --filter KringlePromiseTests]
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
start=$(date +%s)
build=(--sanitize=thread -Xswiftc -DKRINGLE_TSAN --scratch-path .build/tsan)
swift build --build-tests "${build[@]}" || exit 1
tests="$(swift build "${build[@]}" --show-bin-path)/KringlePackageTests.xctest"
KRINGLE_CHAIN_LINKS=${KRINGLE_CHAIN_LINKS:-20000} TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0} \
    "$tests" --testing-library swift-testing --experimental-maximum-parallelization-width 16 "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
warnings=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
echo "tsan.sh: $warnings ThreadSanitizer warnings, the tests exited $status, $(( $(date +%s) - start )) s"
[ "$status" -eq 0 ] && [ "$warnings" -eq 0 ]
