import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// RFC 6265 §5.1.4: default-path and path-match.
@Suite("RFC 6265 §5.1.4 paths")
struct PathMatchingTests {
    @Test(
        "§5.1.4 default-path",
        arguments: [
            ("", "/"), ("/", "/"), ("/a", "/"), ("/a/", "/a"), ("/a/b", "/a"), ("/a/b/c", "/a/b"),
            ("/a/b/", "/a/b"), ("a/b", "/"), ("//", "/"), ("/cookie-parser", "/"),
            ("/f%6Fo/bar", "/f%6Fo"),
        ])
    func defaultPath(uriPath: String, expected: String) {
        #expect(PathMatching.defaultPath(uriPath) == expected)
    }

    @Test(
        "§5.1.4 path-match",
        arguments: [
            ("/", "/", true), ("/foo", "/", true), ("/foo", "/foo", true), ("/foo/", "/foo", true),
            ("/foo/bar", "/foo", true), ("/foo/bar", "/foo/", true), ("/foo//bar", "/foo/", true),
            ("/foobar", "/foo", false), ("/foo", "/foo/", false), ("/fo", "/foo", false),
            ("/Foo", "/foo", false),  // case-sensitive
            ("/f%6Fo", "/foo", false),  // no percent-decoding
            ("/", "/foo", false),
        ])
    func pathMatch(requestPath: String, cookiePath: String, expected: Bool) {
        #expect(PathMatching.pathMatches(requestPath, cookiePath) == expected)
    }
}
