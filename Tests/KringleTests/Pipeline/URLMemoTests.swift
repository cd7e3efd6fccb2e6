import Foundation
import Kringle
import Testing

@testable import KringleCore

@Suite("URL memo")
struct URLMemoTests {
    /// Counts the builds it is asked for.
    final class Builds: @unchecked Sendable {
        // Only touched by the test's own thread.
        var count = 0

        func url(_ text: String) -> URL {
            count += 1
            return URL(string: text)!
        }
    }

    private func key(base: String = "https://h.example", path: String, query: [URLQueryItem] = []) -> URLMemo.Key {
        URLMemo.Key(base: base, path: path, queryItems: query)
    }

    @Test("a key seen before is not built again, and gives the URL first built")
    func remembers() {
        let memo = URLMemo(capacity: 8)
        let builds = Builds()
        let first = memo.url(for: key(path: "/cats")) { builds.url("https://h.example/cats") }
        let second = memo.url(for: key(path: "/cats")) { builds.url("https://h.example/other") }
        #expect(builds.count == 1)
        #expect(first.absoluteString == "https://h.example/cats")
        #expect(second == first)
    }

    @Test("keys that differ in base, path or query items are built each")
    func distinguishes() {
        let memo = URLMemo(capacity: 8)
        let builds = Builds()
        let keys = [
            key(path: "/cats"), key(base: "https://other.example", path: "/cats"), key(path: "/dogs"),
            key(path: "/cats", query: [URLQueryItem(name: "q", value: "1")]),
            key(path: "/cats", query: [URLQueryItem(name: "q", value: "2")]),
            key(path: "/cats", query: [URLQueryItem(name: "q", value: nil)]),
        ]
        let urls = keys.enumerated().map { index, key in
            memo.url(for: key) { builds.url("https://h.example/\(index)") }
        }
        #expect(builds.count == keys.count)
        #expect(Set(urls).count == keys.count)
        #expect(memo.count == keys.count)
    }

    @Test("a build that fails is not remembered: the next call builds again")
    func failureIsNotRemembered() {
        let memo = URLMemo(capacity: 8)
        let builds = Builds()
        #expect(throws: KringleError.self) {
            try memo.url(for: key(path: "/..")) { () throws -> URL in
                _ = builds.url("https://h.example/")
                throw KringleError.invalidRequest("dot segment")
            }
        }
        let url = memo.url(for: key(path: "/..")) { builds.url("https://h.example/built") }
        #expect(builds.count == 2)
        #expect(url.absoluteString == "https://h.example/built")
    }

    @Test("it never holds more than its capacity, and stays right when it starts afresh")
    func bounded() {
        let memo = URLMemo(capacity: 4)
        let builds = Builds()
        for round in 0..<3 {
            for index in 0..<10 {
                let url = memo.url(for: key(path: "/\(index)")) { builds.url("https://h.example/\(index)") }
                #expect(url.absoluteString == "https://h.example/\(index)", "round \(round)")
                #expect(memo.count <= 4)
            }
        }
        #expect(builds.count == 30)
    }

    @Test("the client's URLs come out of the memo equal to a fresh build")
    func clientURLs() throws {
        let base = URL(string: "https://h.example/api/")!
        let first = try URLAssembly.url(
            base: base, path: "/memo test/é", queryItems: [URLQueryItem(name: "a", value: "b c")])
        let again = try URLAssembly.url(
            base: base, path: "/memo test/é", queryItems: [URLQueryItem(name: "a", value: "b c")])
        #expect(first.absoluteString == "https://h.example/api/memo%20test/%C3%A9?a=b%20c")
        #expect(again == first)
    }
}
