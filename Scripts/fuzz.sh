#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses of Fuzz/Harnesses, one per parser that reads what a
# peer sends (Set-Cookie, cookie dates, the cookie file, header lines of both transports,
# LoopbackServer's request heads and chunked bodies, multipart escaping, Link fields,
# RateLimit fields, WebSocket frames and messages).
#
#   Scripts/fuzz.sh --list                     the harnesses' names
#   Scripts/fuzz.sh NAME SECONDS [OPTION ...]  build NAME and fuzz it for SECONDS (one job);
#                                              OPTIONs go to libFuzzer (say, -max_len=8192)
#   Scripts/fuzz.sh --reproduce NAME FILE ...  build NAME and run it once on each FILE
#
# A harness finding a crash, a sanitizer report, a broken invariant or an input that takes
# over 10 s fails the script; the input is saved as .build/fuzz/artifacts/NAME/crash-… (or
# timeout-…, leak-…), and `Scripts/fuzz.sh --reproduce NAME that-file` runs it again. The last
# line says how many inputs ran and the coverage reached (libFuzzer's cov: and ft:).
#
# How: `swift build` compiles Kringle, KringlePromise, KringleTesting and the C shim into a
# scratch path of their own (.build/fuzz), instrumented for libFuzzer and AddressSanitizer
# and with -enable-testing, so that the harnesses `@testable import` them and reach the
# internal parsers; then swiftc links one harness (with Fuzz/Support) against those objects.
# Nothing is installed: libFuzzer ships with the Swift toolchain.
#
# Corpora: Fuzz/Corpus/NAME holds the seeds, committed; what libFuzzer adds goes to
# .build/fuzz/corpus/NAME, which later runs start from (delete it to start afresh). A
# dictionary of the format's words, Fuzz/Dictionaries/NAME.dict, is used when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    sed -n '5,9p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# File names are UpperCamelCase like every Swift file here; a harness's name is its file's
# name in kebab-case (CurlHeaderLine.swift is curl-header-line).
harness_names() {
    for file in Fuzz/Harnesses/*.swift; do
        basename "$file" .swift | sed -E 's/([a-z0-9])([A-Z])/\1-\2/g' | tr '[:upper:]' '[:lower:]'
    done
}

harness_file() {
    local name=$1 file
    for file in Fuzz/Harnesses/*.swift; do
        local candidate
        candidate=$(basename "$file" .swift | sed -E 's/([a-z0-9])([A-Z])/\1-\2/g' | tr '[:upper:]' '[:lower:]')
        if [ "$candidate" = "$name" ]; then
            echo "$file"
            return
        fi
    done
    echo "fuzz.sh: no harness named '$name' (Scripts/fuzz.sh --list names them)" >&2
    exit 2
}

[ $# -ge 1 ] || usage
mode=fuzz
case "$1" in
    --list) harness_names; exit 0 ;;
    --reproduce) mode=reproduce; shift; [ $# -ge 2 ] || usage ;;
    -*) usage ;;
    *) [ $# -ge 2 ] || usage ;;
esac
name=$1
file=$(harness_file "$name")
shift

scratch=.build/fuzz
instrumented=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing -Xcc -fsanitize=fuzzer-no-link,address)
echo "== building the instrumented modules" >&2
swift build --scratch-path "$scratch" -c release --target KringleTesting "${instrumented[@]}" >&2
bin=$(swift build --scratch-path "$scratch" -c release --show-bin-path)

echo "== building the $name harness" >&2
mkdir -p "$scratch/harnesses"
executable=$scratch/harnesses/$name
swiftc -O -swift-version 6 -warnings-as-errors -parse-as-library -sanitize=fuzzer,address -use-ld=lld \
    -module-name "$(basename "$file" .swift)Fuzzer" "$file" Fuzz/Support/*.swift \
    -I "$bin/Modules" \
    -Xcc -fmodule-map-file="$bin/CCurlShim.build/module.modulemap" -Xcc -I -Xcc Sources/CCurlShim/include \
    "$bin"/KringleCore.build/*.o "$bin"/Kringle.build/*.o "$bin"/KringlePromise.build/*.o "$bin"/KringleTesting.build/*.o \
    "$bin"/CCurlShim.build/*.o -ldl \
    -o "$executable"

# The cookie-file and multipart harnesses write scratch files: under .build, not /tmp.
export TMPDIR=$PWD/$scratch/tmp
mkdir -p "$TMPDIR"

if [ "$mode" = reproduce ]; then
    exec "$executable" "$@"
fi

seconds=$1
shift
seeds=Fuzz/Corpus/$name
corpus=$scratch/corpus/$name
artifacts=$scratch/artifacts/$name
log=$scratch/logs/$name.log
mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
[ -d "$seeds" ] || { echo "fuzz.sh: $name has no seed corpus in $seeds" >&2; exit 1; }
dictionary=()
[ -f "Fuzz/Dictionaries/$name.dict" ] && dictionary=(-dict="Fuzz/Dictionaries/$name.dict")

echo "== fuzzing $name for $seconds s (log: $log)" >&2
status=0
"$executable" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dictionary[@]}" "$@" "$corpus" "$seeds" >"$log" 2>&1 || status=$?

# libFuzzer's status lines: "#123456 DONE cov: 812 ft: 2903 corp: ..."; the last one counts.
last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
executions=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -n 1)
cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
if [ $status -ne 0 ]; then
    # The report: the sanitizer's or the broken invariant's message and the saved input.
    grep -E "==ERROR|Fatal error|invariant broken|SUMMARY|Test unit written|ALARM|deadly signal" "$log" >&2 || tail -n 40 "$log" >&2
    echo "fuzz: $name: FINDING after ${executions:-?} executions (status $status); see $log" >&2
    exit 1
fi
echo "fuzz: $name: ${executions:-?} executions in $seconds s, cov: ${cov:-?} ft: ${ft:-?}, no finding"
