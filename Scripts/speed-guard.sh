#!/usr/bin/env bash
# The speed guard: how many instructions one request of the default client costs, counted by
# valgrind's callgrind (deterministic: no clock is read), checked against the budget committed
# in .ci/speed-budget. It fails when a style costs more than its budget × 1.15.
#
# What is counted: `kringle-benchmarks speed-guard STYLE 200` (Benchmarks/SpeedGuard.swift),
# NetworkClient() — CurlTransport on Linux — sending 200 GETs of a 200-byte JSON one after
# another to nginx, each decoded into a struct, completed with `done`/`catch` (style `done`) or
# with `wait()` (style `wait`), after 20 unmeasured ones. Every thread of the client's process
# is counted, user space only: its own code, libcurl, Foundation's JSONDecoder, Dispatch, libc.
# nginx runs in a process of its own, which callgrind does not follow. The requests counted lie
# between two calls that callgrind dumps its counters before, so the process's start, the
# warm-up and the shutdown are left out; instructions per request are the second dump's total
# divided by 200. From one run to the next the figure moves by under 1%.
#
# The counts depend on the toolchain, libcurl and libc: the budget holds for the image that
# runs .ci/run. After a change that makes a request cheaper, or costlier on purpose, or a new
# toolchain or image, rewrite the budget with --update and commit it with the change, saying
# why in the commit message.
#
#   Scripts/speed-guard.sh                          # measure and check against .ci/speed-budget
#   Scripts/speed-guard.sh --update                 # measure (median of 3 runs) and rewrite the budget
#   Scripts/speed-guard.sh --measure                # print "STYLE INSTRUCTIONS" per style, nothing else
#   Scripts/speed-guard.sh --measure --style done   # print the number only
#   Scripts/speed-guard.sh --binary PATH ...        # a kringle-benchmarks built elsewhere (compare two builds)
#   Scripts/speed-guard.sh --by-object ...          # also print each library's share of a request
#
# Needs valgrind (apt-get install -y valgrind) and nginx (apt-get install -y nginx-light).
set -euo pipefail
cd "$(dirname "$0")/.."

budget_file=.ci/speed-budget
threshold=1.15
count=200
mode=check
binary=
by_object=false
styles=(done wait)
while [ $# -gt 0 ]; do
    case "$1" in
        --update) mode=update; shift ;;
        --measure) mode=measure; shift ;;
        --binary) binary=$2; shift 2 ;;
        --style) styles=("$2"); shift 2 ;;
        --by-object) by_object=true; shift ;;
        *) sed -n '/^#   Scripts/s/^#   //p' "$0" >&2; exit 2 ;;
    esac
done

command -v valgrind >/dev/null || { echo "speed-guard: needs valgrind (apt-get install -y valgrind)" >&2; exit 1; }
if [ -z "$binary" ]; then
    # The build Scripts/soak.sh makes: nothing to do when it has run already.
    swift build -c release --product kringle-benchmarks >&2
    binary="$(swift build -c release --show-bin-path)/kringle-benchmarks"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that Swift 6 writes ("Possibly corrupted debuginfo
# file") and gives up: it measures a copy without debug information (the symbols stay).
objcopy=$(command -v objcopy || command -v llvm-objcopy || echo "$(dirname "$(readlink -f "$(command -v swift)")")/llvm-objcopy")
"$objcopy" --strip-debug "$binary" "$work/kringle-benchmarks"

# Instructions per request of one run in STYLE; with --by-object, each object's share after it.
measure() {
    local style=$1 out="$work/$1.callgrind" names=()
    rm -f "$out"*
    # A dump names an object by number alone when an earlier dump has named it already.
    if $by_object; then names=(--compress-strings=no); fi
    if ! valgrind --tool=callgrind --callgrind-out-file="$out" '--dump-before=*SpeedGuardCheckpoint*' "${names[@]}" \
        "$work/kringle-benchmarks" speed-guard "$style" "$count" >"$work/run.log" 2>&1; then
        echo "speed-guard: the $style run failed:" >&2
        grep -v '^==' "$work/run.log" >&2 || true
        tail -5 "$work/run.log" >&2
        return 1
    fi
    # Part 2: from the first checkpoint (after the warm-up) to the second (after the requests).
    if ! grep -q '^desc: Trigger: --dump-before' "$out.2" 2>/dev/null; then
        echo "speed-guard: callgrind made no dump at kringleSpeedGuardCheckpoint (renamed?)" >&2
        return 1
    fi
    local total
    total=$(sed -n 's/^summary: //p' "$out.2")
    echo $(((total + count / 2) / count))
    if $by_object; then
        echo "speed-guard: $style, each object's own instructions per request:" >&2
        by_object_report "$out.2" >&2
    fi
}

# Each object's own instructions per request in a callgrind dump (kringle-benchmarks holds
# Kringle and KringlePromise, linked statically) (a call's line, which holds
# the callee's inclusive cost, is skipped).
by_object_report() {
    python3 - "$1" "$count" <<'EOF'
import re, sys
costs, current, skip = {}, "?", False
for line in open(sys.argv[1]):
    if line.startswith("ob="):
        current = line[3:].strip()
    elif line.startswith("calls="):
        skip = True
    elif line[:1].isdigit() or line[:1] in "+-*":
        if not skip:
            costs[current] = costs.get(current, 0) + int(line.split()[1])
        skip = False
total = sum(costs.values())
for name, cost in sorted(costs.items(), key=lambda item: -item[1])[:10]:
    print(f"  {cost / int(sys.argv[2]):>10,.0f}  {100 * cost / total:5.1f}%  {name}")
EOF
}

# The libcurl CurlTransport loads, as curl_version() names it.
libcurl_version() {
    python3 -c 'import ctypes; c = ctypes.CDLL("libcurl.so.4"); c.curl_version.restype = ctypes.c_char_p
print(c.curl_version().decode().split()[0])' 2>/dev/null || echo "libcurl (version unknown)"
}

median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

case $mode in
measure)
    for style in "${styles[@]}"; do
        value=$(measure "$style")
        if [ ${#styles[@]} -eq 1 ]; then echo "$value"; else echo "$style $value"; fi
    done
    ;;
update)
    {
        echo "# Instructions per request of the default client, by style (Scripts/speed-guard.sh checks"
        echo "# them: it fails above 1.15x). Rewritten by Scripts/speed-guard.sh --update, the median of"
        echo "# 3 runs, on $(date -u +%Y-%m-%d) with $(swift --version 2>&1 | head -1 | sed 's/ (.*//'),"
        echo "# $(libcurl_version), glibc $(ldd --version | head -1 | awk '{print $NF}')."
        for style in "${styles[@]}"; do
            first=$(measure "$style")
            second=$(measure "$style")
            third=$(measure "$style")
            runs=("$first" "$second" "$third")
            echo "speed-guard: $style: ${runs[*]} instructions per request" >&2
            echo "$style $(median3 "${runs[@]}")"
        done
    } >"$work/budget"
    mv "$work/budget" "$budget_file"
    echo "speed-guard: wrote $budget_file:" >&2
    cat "$budget_file" >&2
    ;;
check)
    [ -f "$budget_file" ] || { echo "speed-guard: no $budget_file (make one with --update)" >&2; exit 1; }
    failed=false
    for style in "${styles[@]}"; do
        budget=$(awk -v style="$style" '$1 == style { print $2 }' "$budget_file")
        [ -n "$budget" ] || { echo "speed-guard: $budget_file has no budget for $style" >&2; exit 1; }
        measured=$(measure "$style")
        ratio=$(awk -v m="$measured" -v b="$budget" 'BEGIN { printf "%.3f", m / b }')
        verdict=ok
        if awk -v r="$ratio" -v t="$threshold" 'BEGIN { exit !(r > t) }'; then
            verdict="FAIL: over ${threshold}x the budget"
            failed=true
        elif awk -v r="$ratio" 'BEGIN { exit !(r < 0.9) }'; then
            verdict="ok, and cheaper: lock the gain in with Scripts/speed-guard.sh --update"
        fi
        printf 'speed-guard: %-4s %9d instructions/request, budget %9d, %sx: %s\n' \
            "$style" "$measured" "$budget" "$ratio" "$verdict"
    done
    if $failed; then
        echo "speed-guard: a request costs more than ${threshold}x its budget in $budget_file. If that is" >&2
        echo "the price of a change on purpose, run Scripts/speed-guard.sh --update and commit the new budget" >&2
        echo "with the change, saying why; otherwise find what made the request path costlier." >&2
        exit 1
    fi
    ;;
esac
