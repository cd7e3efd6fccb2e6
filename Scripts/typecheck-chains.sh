#!/usr/bin/env bash
# How long Swift takes to type-check long promise chains written the way users write them:
# multi-statement closures with no type annotations, each link a promise-returning step
# (`then`), a value transform (`map`), a side effect (`tap`), a recovery or a step nested in
# another closure, the whole chain inside a `DispatchQueue.global().async { }` block. Each
# chain is also checked with every closure annotated, the speed the solver reaches when it
# has nothing to infer.
#
# It guards a cliff, not a figure: an overload set the solver cannot split grows the time
# exponentially with the chain's length (12 links once failed after 45 s). A chain over
# --max-seconds (10 by default) fails the script.
#
#   Scripts/typecheck-chains.sh [--max-seconds N] [--keep] [LINKS ...]   (default links: 10 20 50)
#   --keep leaves the generated files in place and prints where they are.
set -euo pipefail
cd "$(dirname "$0")/.."

max_seconds=10
keep=false
lengths=()
while [ $# -gt 0 ]; do
    case "$1" in
        --max-seconds) max_seconds=$2; shift 2 ;;
        --keep) keep=true; shift ;;
        *) lengths+=("$1"); shift ;;
    esac
done
[ ${#lengths[@]} -gt 0 ] || lengths=(10 20 50)

swift build --target Kringle >/dev/null  # and KringleCore, which it re-exports
bin=$(swift build --show-bin-path)
modules="$bin/Modules"
# Kringle imports the C module of its libcurl shim, which a bare swiftc must be shown.
curl_shim=(-Xcc "-fmodule-map-file=$bin/CCurlShim.build/module.modulemap" -Xcc -I -Xcc Sources/CCurlShim/include)
work=$(mktemp -d)
if $keep; then echo "generated chains: $work"; else trap 'rm -rf "$work"' EXIT; fi

# One link of the chain, by position; `$2` is "annotated" for the annotated variant.
# The links come in a cycle whose value types fit together (User → … → User); the chain
# ends with `done`, which takes any value.
link() {
    local i=$1 annotated=$2
    local user="user" userToUser="user" userToVoid="user" void="_" error="error" inner="inner"
    if [ "$annotated" = annotated ]; then
        user="(user: User) -> Void"
        userToUser="(user: User) -> Promise<User>"
        userToVoid="(user: User) -> Promise<Void>"
        void="(_: Void) -> Promise<User>"
        error="(error: any Error) -> User"
        inner="(inner: User) -> Promise<User>"
    fi
    case $((i % 8)) in
        0) cat <<EOF
    .then { $userToUser in
        print("step $i", user.name)
        return client.get(API.user(user.id + 1), as: User.self)
    }
EOF
        ;;
        1) local mapped="user"; [ "$annotated" = annotated ] && mapped="(user: User) -> User"
        cat <<EOF
    .map { $mapped in
        let renamed = user.name.uppercased()
        return User(id: user.id + $i, name: renamed)
    }
EOF
        ;;
        2) cat <<EOF
    .tap { $user in
        let length = user.name.count
        print("link $i", user.id, length)
    }
EOF
        ;;
        3) cat <<EOF
    .then { $userToUser in
        print("nested $i", user.id)
        return client.get(API.user(user.id), as: User.self).then { $inner in
            print(inner.name)
            return client.get(API.user(inner.id + 1), as: User.self)
        }
    }
EOF
        ;;
        4) cat <<EOF
    .recover { $error in
        print("recovering at $i:", error)
        return User(id: 0, name: "fallback")
    }
EOF
        ;;
        5) cat <<EOF
    .then { $userToVoid in
        print("removing", user.id)
        return client.delete(API.user(user.id))
    }
EOF
        ;;
        6) local side="_"; [ "$annotated" = annotated ] && side="(_: Void) -> Void"
        cat <<EOF
    .then { $side in
        let note = "removed at $i"
        print(note)
    }
EOF
        ;;
        7) cat <<EOF
    .then { $void in
        print("starting over at $i")
        return client.get(API.user(1), as: User.self)
    }
EOF
        ;;
    esac
}

chain_file() {
    local links=$1 annotated=$2
    cat <<'EOF'
import Foundation
import Kringle

struct User: Codable, Sendable {
    var id: Int
    var name: String
}

enum API: Endpoint {
    case user(Int)
    var baseURL: URL { URL(string: "http://127.0.0.1:8080")! }
    var path: String {
        switch self {
        case .user(let id): return "/users/\(id)"
        }
    }
}

func seed(client: NetworkClient) {
    client.get(API.user(0)).then { _ in print("🐱") }.catch { error in print("You gotta be kitten me!") }
}

func tour(client: NetworkClient) {
    DispatchQueue.global().async {
        client.get(API.user(1), as: User.self)
EOF
    for ((i = 0; i < links; i++)); do link "$i" "$annotated" | sed 's/^/    /'; done
    cat <<'EOF'
            .done { _ in print("done") }
            .catch { error in print(error) }
    }
}
EOF
}

# Seconds to type-check one file (a time-out counts as the limit's double, and fails).
typecheck_seconds() {
    local file=$1 start end
    start=$(date +%s.%N)
    if ! timeout $((max_seconds * 2)) swiftc -typecheck -swift-version 6 -I "$modules" "${curl_shim[@]}" "$file" >"$file.log" 2>&1; then
        echo "type-check of $file failed:" >&2
        head -20 "$file.log" >&2
        return 1
    fi
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }'
}

status=0
printf '%-8s %-14s %-14s\n' "links" "unannotated" "annotated"
for links in "${lengths[@]}"; do
    chain_file "$links" plain >"$work/chain$links.swift"
    chain_file "$links" annotated >"$work/annotated$links.swift"
    plain=$(typecheck_seconds "$work/chain$links.swift") || { status=1; plain="failed"; }
    annotated=$(typecheck_seconds "$work/annotated$links.swift") || { status=1; annotated="failed"; }
    printf '%-8s %-14s %-14s\n' "$links" "$plain s" "$annotated s"
    if [ "$plain" != failed ] && awk -v t="$plain" -v m="$max_seconds" 'BEGIN { exit !(t > m) }'; then
        echo "typecheck-chains: $links links took $plain s, over the $max_seconds s bound" >&2
        status=1
    fi
done
exit $status
