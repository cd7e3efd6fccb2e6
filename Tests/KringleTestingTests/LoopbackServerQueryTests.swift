import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Request-target, path and query parsing", .generousTimeLimit)
struct LoopbackServerQueryTests {
    struct TargetCase: Sendable, CustomTestStringConvertible {
        var target: String
        var path: String
        var query: String?
        var items: [String]  // "name=value", or "name" for a nil value
        var testDescription: String { target }
    }

    @Test(arguments: [
        TargetCase(target: "/", path: "/", query: nil, items: []),
        TargetCase(target: "/search?q=swift", path: "/search", query: "q=swift", items: ["q=swift"]),
        TargetCase(target: "/a%2Fb/c?x=1&x=2", path: "/a%2Fb/c", query: "x=1&x=2", items: ["x=1", "x=2"]),
        TargetCase(target: "/s?q=a%20b&flag&e=", path: "/s", query: "q=a%20b&flag&e=", items: ["q=a b", "flag", "e="]),
        TargetCase(
            target: "/p?plus=a+b&&amp=%26", path: "/p", query: "plus=a+b&&amp=%26", items: ["plus=a+b", "amp=&"]),
        TargetCase(target: "/empty?", path: "/empty", query: "", items: []),
        TargetCase(target: "/q?a=1?b=2", path: "/q", query: "a=1?b=2", items: ["a=1?b=2"]),
        TargetCase(target: "/bad?x=%zz", path: "/bad", query: "x=%zz", items: ["x=%zz"]),
        TargetCase(target: "http://example.com/abs?k=v", path: "/abs", query: "k=v", items: ["k=v"]),
        TargetCase(target: "http://example.com", path: "/", query: nil, items: []),
        TargetCase(target: "*", path: "*", query: nil, items: []),
    ])
    func splitsTargets(_ testCase: TargetCase) {
        let request = LoopbackServer.Request(target: testCase.target)
        #expect(request.path == testCase.path)
        #expect(request.query == testCase.query)
        let items = request.queryItems.map { item in item.value.map { "\(item.name)=\($0)" } ?? item.name }
        #expect(items == testCase.items)
    }

    @Test func serverPassesTheTargetAsSent() async throws {
        let seen = Recorder<LoopbackServer.Request>()
        let server = try LoopbackServer { request in
            seen.append(request)
            return .text("ok")
        }
        defer { server.shutdown() }
        _ = try await fetch(server.url("/files/a%20b?name=J%C3%BCrgen&tag=x&tag=y"))
        let request = try #require(seen.elements.first)
        #expect(request.target == "/files/a%20b?name=J%C3%BCrgen&tag=x&tag=y")
        #expect(request.path == "/files/a%20b")
        #expect(request.query == "name=J%C3%BCrgen&tag=x&tag=y")
        #expect(
            request.queryItems == [
                URLQueryItem(name: "name", value: "Jürgen"),
                URLQueryItem(name: "tag", value: "x"),
                URLQueryItem(name: "tag", value: "y"),
            ])
    }
}
