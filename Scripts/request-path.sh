#!/usr/bin/env bash
# Lists the files of ours (Sources/Kringle, Sources/KringleCore, Sources/KringlePromise, Sources/CCurlShim) whose
# code runs for ONE request of the default client: `NetworkClient().get(endpoint, as:).done { … }`
# against nginx on 127.0.0.1, after a first request has warmed the client up.
#
# How: the tests are built with coverage in a scratch directory of their own (the ordinary
# build is left alone), with -DKRINGLE_REQUEST_PATH, which compiles in the probe test
# (Tests/KringleTests/Pipeline/RequestPathProbe.swift; it declares the profile runtime's C
# functions with @_extern(c), hence the Extern feature). The probe makes the warm-up request,
# resets the LLVM profile counters, makes the measured request and writes the counters as soon
# as its `done` handler has run, before the client is released. (--enable-code-coverage
# instruments Swift only; the -Xcc flags instrument the C shim too.) llvm-cov then says, per
# file, how many lines ran: the file set is stable from run to run, the line counts vary by a
# few lines with thread timing. Needs nginx (apt-get install -y nginx-light): a server in its own process,
# where LoopbackServer would run Kringle's own parsers on the server's side.
#
#   Scripts/request-path.sh            # the list, then the number of files
#   Scripts/request-path.sh --no-build # reuse the last coverage build
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build/request-path
build=yes
[ "${1:-}" = "--no-build" ] && build=no

toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
tool() {
    if [ -x "$toolchain/$1" ]; then echo "$toolchain/$1"
    elif command -v xcrun >/dev/null; then echo "xcrun $1"
    else command -v "$1"
    fi
}
profdata=$(tool llvm-profdata)
cov=$(tool llvm-cov)

if [ "$build" = yes ]; then
    swift build --build-tests --enable-code-coverage --scratch-path "$scratch" \
        -Xswiftc -DKRINGLE_REQUEST_PATH -Xswiftc -enable-experimental-feature -Xswiftc Extern \
        -Xcc -fprofile-instr-generate -Xcc -fcoverage-mapping >&2
fi
binary=$(swift build --show-bin-path --scratch-path "$scratch")/KringlePackageTests.xctest
[ -f "$binary/Contents/MacOS/KringlePackageTests" ] && binary="$binary/Contents/MacOS/KringlePackageTests"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The probe writes its own profile; whatever the process writes at exit goes to $out too.
KRINGLE_REQUEST_PATH_PROFILE="$out/request.profraw" LLVM_PROFILE_FILE="$out/exit-%p.profraw" \
    swift test --skip-build --scratch-path "$scratch" --filter RequestPathProbe >&2
if [ ! -s "$out/request.profraw" ]; then
    echo "request-path.sh: the probe wrote no profile (is nginx installed? see the test output above)" >&2
    exit 1
fi
$profdata merge -sparse "$out/request.profraw" -o "$out/request.profdata"
$cov export -summary-only -instr-profile "$out/request.profdata" "$binary" >"$out/summary.json"

python3 - "$out/summary.json" "$PWD" <<'EOF'
import json, sys
summary, root = json.load(open(sys.argv[1])), sys.argv[2].rstrip("/") + "/"
ours = ("Sources/Kringle/", "Sources/KringleCore/", "Sources/KringlePromise/", "Sources/CCurlShim/")
files = {}
for entry in summary["data"][0]["files"]:
    name = entry["filename"].removeprefix(root)
    lines = entry["summary"]["lines"]["covered"]
    if name.startswith(ours) and lines > 0:
        files[name] = lines
for name in sorted(files):
    print(f"{files[name]:6d}  {name}")
for module in ours:
    print(f"{sum(1 for n in files if n.startswith(module)):6d}  files in {module}")
print(f"{len(files):6d}  files in all, {sum(files.values())} lines run")
EOF
