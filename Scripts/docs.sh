#!/usr/bin/env bash
# Builds the DocC documentation of the library modules into .build/docs/<Module>.doccarchive.
# A docc warning of any kind (a link to a symbol that does not exist, an undocumented
# parameter, a topic that names nothing) fails the script.
#
#   Scripts/docs.sh
#
# How: `swift package dump-symbol-graph` writes one symbol graph per module, public symbols
# only, with extensions of other modules' types as extension blocks (so `DispatchQueue.promises`
# has a page). It extracts a graph for every module of the package, the test modules included,
# and fails when those are not built: hence `swift build --build-tests` first. Then each module's
# catalog is converted with that module's graphs alone. A link to another module's symbol is
# written with its module (``/KringlePromise/Promise``) and resolves against the archives built
# before it (`--dependency`), so the modules are converted in dependency order.
#
# To look at an archive: `docc preview Sources/<Module>/<Module>.docc --additional-symbol-graph-dir
# .build/docs/symbol-graphs/<Module>`, or serve .build/docs/<Module>.doccarchive with any static
# web server.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each module after the modules its documentation links to.
modules=(KringlePromise KringleCore KringleURLSession Kringle KringleTesting)
declare -A dependencies=(
    [KringlePromise]=""
    [KringleCore]="KringlePromise"
    [KringleURLSession]="KringlePromise KringleCore"
    [Kringle]="KringlePromise KringleCore KringleURLSession"
    [KringleTesting]="KringlePromise KringleCore"
)

docc=$(command -v docc || true)
if [ -z "$docc" ]; then
    # Not on the PATH: look next to the swift driver (xcrun does not exist on Linux).
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
if [ ! -x "$docc" ]; then
    echo "docs.sh: docc not found (looked on the PATH and next to swift)" >&2
    exit 1
fi

output=.build/docs
graphs=$output/symbol-graphs
rm -rf "$output"
mkdir -p "$graphs"

echo "== building (tests included, for dump-symbol-graph)"
swift build --build-tests

failed=()

# The catalogs' code blocks (```swift) must compile against the modules just built. They go
# into one file, module by module, KringleCore's getting-started article first, so that later
# examples may use what it declares (`CatEndpoint`, `Cat`, `Meal`, `client`) as their
# readers do. `#sourceLocation` points any error at the article's own line.
echo "== type-checking the catalogs' code"
bin=$(swift build --show-bin-path)
snippets=$output/catalog-code.swift
{
    printf 'import Foundation\n#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n'
    for module in KringleCore KringleURLSession Kringle KringleTesting KringlePromise; do
        catalog=Sources/$module/$module.docc
        { [ -f "$catalog/GettingStarted.md" ] && echo "$catalog/GettingStarted.md"
          find "$catalog" -name '*.md' ! -name GettingStarted.md | sort; } |
        while read -r article; do
            awk -v article="$article" '
                /^```swift[ \t]*$/ { inside = 1; printf "#sourceLocation(file: \"%s\", line: %d)\n", article, NR + 1; next }
                /^```/ && inside { inside = 0; print "#sourceLocation()"; next }
                inside { print }
            ' "$article"
        done
    done
} >"$snippets"
if ! swiftc -typecheck -swift-version 6 -warnings-as-errors "$snippets" \
    -I "$bin/Modules" \
    -Xcc -fmodule-map-file="$bin/CCurlShim.build/module.modulemap" -Xcc -I -Xcc Sources/CCurlShim/include; then
    echo "docs.sh: the code in the catalogs does not compile (see above)" >&2
    failed+=("code in the catalogs")
fi

echo "== extracting symbol graphs"
# Graphs of an earlier run would otherwise linger (say, of an extension since removed).
rm -rf "$(dirname "$(swift build --show-bin-path)")/symbolgraph"
dump_log=$output/dump-symbol-graph.log
if ! swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols \
    >"$dump_log" 2>&1; then
    cat "$dump_log" >&2
    echo "docs.sh: swift package dump-symbol-graph failed" >&2
    exit 1
fi
dump_dir=$(sed -n 's/^Files written to //p' "$dump_log" | tail -n 1)
if [ ! -d "$dump_dir" ]; then
    cat "$dump_log" >&2
    echo "docs.sh: cannot tell where dump-symbol-graph wrote the graphs" >&2
    exit 1
fi

for module in "${modules[@]}"; do
    echo "== $module"
    mkdir -p "$graphs/$module"
    # The module's own graph and its extensions of other modules' types, nothing else.
    cp "$dump_dir/$module.symbols.json" "$graphs/$module/"
    find "$dump_dir" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$graphs/$module/" \;

    dependency_options=()
    missing=()
    for dependency in ${dependencies[$module]}; do
        dependency_options+=(--dependency "$output/$dependency.doccarchive")
        [ -d "$output/$dependency.doccarchive" ] || missing+=("$dependency")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        # docc writes no archive when it fails, and without it every link into that module
        # would be reported here too.
        echo "skipped: it links into ${missing[*]}, which failed" >&2
        failed+=("$module")
        continue
    fi

    log=$output/$module.log
    status=0
    "$docc" convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "$module" \
        --enable-experimental-external-link-support \
        "${dependency_options[@]}" \
        --warnings-as-errors \
        --output-path "$output/$module.doccarchive" >"$log" 2>&1 || status=$?
    # --warnings-as-errors turns every warning into an error and a non-zero status; the grep
    # is a second guard, should a docc version print a warning without failing.
    if [ $status -ne 0 ] || grep -qE "(^|[^a-z])(warning|error):" "$log"; then
        cat "$log" >&2
        failed+=("$module")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "docs.sh: docc reported problems in: ${failed[*]} (see above)" >&2
    exit 1
fi

echo
echo "Documentation archives:"
for module in "${modules[@]}"; do
    echo "  $(pwd)/$output/$module.doccarchive"
done
