import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    @Test("names are case-insensitive and repeated values keep their order")
    func lookups() {
        var headers = HTTPHeaders([("Set-Cookie", "a=1"), ("Content-Type", "text/plain"), ("set-cookie", "b=2")])
        headers.add(name: "SET-COOKIE", value: "c=3")
        #expect(headers.values(for: "Set-Cookie") == ["a=1", "b=2", "c=3"])
        #expect(headers["set-cookie"] == "a=1")
        #expect(headers["CONTENT-TYPE"] == "text/plain")
        #expect(headers.contains("content-type"))
        #expect(!headers.contains("content-length"))
        #expect(headers["Content-Length"] == nil)
        #expect(headers.values(for: "Content-Length").isEmpty)
        #expect(headers.count == 4)
        #expect(headers.map(\.name) == ["Set-Cookie", "Content-Type", "set-cookie", "SET-COOKIE"])
    }

    @Test("setting replaces every field of a name, nil removes them")
    func setting() {
        var headers: HTTPHeaders = ["Accept": "text/plain", "X-A": "1"]
        headers.add(name: "accept", value: "text/html")
        headers["ACCEPT"] = "application/json"
        #expect(headers.values(for: "Accept") == ["application/json"])
        headers["x-a"] = nil
        #expect(!headers.contains("X-A"))
        headers.remove(name: "accept")
        #expect(headers.isEmpty)
    }

    @Test("setting keeps the field where the first of its name was, in the new spelling")
    func settingKeepsThePlace() {
        var headers = HTTPHeaders([("A", "1"), ("X-Trace", "a"), ("B", "2"), ("x-trace", "b")])
        headers["X-TRACE"] = "c"
        #expect(headers.map(\.name) == ["A", "X-TRACE", "B"])
        #expect(headers.values(for: "x-trace") == ["c"])
        headers["C"] = "3"
        #expect(headers.map(\.name) == ["A", "X-TRACE", "B", "C"])
    }

    @Test("a repeated field reads as its lines' values joined, a missing one as nil")
    func combinedValue() {
        let headers = HTTPHeaders([("Cache-Control", "no-cache"), ("X", "1"), ("cache-control", "max-age=5")])
        #expect(headers.combinedValue(for: "Cache-Control") == "no-cache, max-age=5")
        #expect(headers.combinedValue(for: "x") == "1")
        #expect(headers.combinedValue(for: "Cookie") == nil)
        #expect(
            HTTPHeaders([("Cookie", "a=1"), ("Cookie", "b=2")]).combinedValue(for: "cookie", separator: "; ")
                == "a=1; b=2")
    }
}
