#!/usr/bin/env python3
"""Checks that every Swift file says what it holds (STYLE.md: one concept per file).

A file `Foo.swift` must declare the type `Foo` (or extend it); a file `Foo+Facet.swift` must
declare or extend `Foo`. A type nested in its namespace counts: `extension NetworkClient {
final class Hop }` in `Hop.swift`, `extension NetworkClient.Attempt` in `Attempt+Facet.swift`. Besides that one main type a file may keep private helpers
(`private`/`fileprivate` types, functions and constants), but no other type, free function or
global that the rest of the module can see: that would be a second concept under the first
one's name.

    Scripts/check-file-names.py [DIR ...]

With no DIR it checks the library targets and the ChildProcess helper target. It prints one
line per violation (`path: reason`) and exits 1 if there is any.

It reads the files as formatted by swift-format (.swift-format): a top-level declaration starts
at column 0, a nested one is indented, and `#if` blocks are not indented.
"""

import os
import re
import sys

DEFAULT_DIRS = [
    "Sources/Kringle",
    "Sources/KringleCore",
    "Sources/KringleURLSession",
    "Sources/KringlePromise",
    "Sources/KringleTesting",
    "Tests/ChildProcess",
]

# Generated from the public suffix list (Scripts/generate-public-suffix-list.py).
SKIPPED = {"Sources/KringleCore/Cookies/PublicSuffixList+Data.swift"}

ATTRIBUTE = r"@\w+(?:\([^)]*\))?\s+"
MODIFIER = (
    r"(?:public|package|internal|private|fileprivate|open|final|indirect|nonisolated(?:\(unsafe\))?|"
    r"static|mutating|nonmutating|override|convenience|required|lazy|weak|unowned|"
    r"(?:private|fileprivate|internal|package|public)\(set\))\s+"
)
DECLARATION = re.compile(
    rf"^(?P<prefix>(?:{ATTRIBUTE})*(?:{MODIFIER})*)"
    r"(?P<kind>struct|class|enum|protocol|actor|extension|typealias|func|var|let)\s+"
    r"(?P<name>`?[A-Za-z_][\w.]*`?)"
)
TYPE_KINDS = {"struct", "class", "enum", "protocol", "actor", "typealias"}


NESTED_TYPE = re.compile(rf"^    (?:{ATTRIBUTE})*(?:{MODIFIER})*(?:struct|class|enum|protocol|actor)\s+(\w+)")


def nested_types(path):
    """The names of the types declared one level down (in an extension of a namespace)."""
    with open(path, encoding="utf-8") as file:
        return {match.group(1) for match in map(NESTED_TYPE.match, file) if match}


def declarations(path):
    """The top-level declarations of a file: (line number, kind, name, is private)."""
    found = []
    in_block_comment = False
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            if in_block_comment:
                in_block_comment = "*/" not in line
                continue
            if line.startswith("/*"):
                in_block_comment = "*/" not in line
                continue
            match = DECLARATION.match(line)
            if not match:
                continue
            prefix = match.group("prefix")
            private = re.search(r"\b(?:private|fileprivate)\b(?!\(set\))", prefix) is not None
            found.append((number, match.group("kind"), match.group("name").strip("`"), private))
    return found


def violations(path):
    stem = os.path.basename(path)[: -len(".swift")]
    expected = stem.split("+", 1)[0]
    problems = []
    decls = declarations(path)
    main = [d for d in decls if d[1] != "func" and d[1] not in ("var", "let")
            and expected in (d[2].split(".")[0].split("<")[0], d[2].split(".")[-1].split("<")[0])]
    if not main and expected in nested_types(path):
        main = [(0, "nested", expected, False)]
    if not main:
        named = ", ".join(f"{kind} {name}" for _, kind, name, _ in decls) or "nothing"
        problems.append((expected, f"declares no type or extension named {expected} (it holds: {named})"))
        return problems
    for number, kind, name, private in decls:
        if private:
            continue
        if kind in TYPE_KINDS and name != expected:
            problems.append((name, f"{number}: a second type, {kind} {name}, besides {expected}"))
        elif kind in ("func", "var", "let"):
            problems.append((name, f"{number}: a {kind} {name} outside any type"))
    return problems


def main(arguments):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    os.chdir(root)
    failed = False
    for directory in arguments or DEFAULT_DIRS:
        for folder, _, files in sorted(os.walk(directory)):
            for name in sorted(files):
                path = os.path.join(folder, name)
                if not name.endswith(".swift") or path in SKIPPED:
                    continue
                for _, problem in violations(path):
                    print(f"{path}: {problem}")
                    failed = True
    if failed:
        print("check-file-names: a file must hold the type it is named after (STYLE.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
