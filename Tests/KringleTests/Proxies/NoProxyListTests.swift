import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// The no-proxy rules `CurlTransport.Proxy` documents, table by table.
@Suite(.generousTimeLimit) struct NoProxyListTests {
    struct Case: Sendable, CustomStringConvertible {
        let list: String
        let host: String
        let port: Int
        let direct: Bool
        var description: String { "\(list) vs \(host):\(port) → \(direct ? "direct" : "proxy")" }

        init(_ list: String, _ host: String, _ direct: Bool) {
            self.init(list, host, 80, direct)
        }

        init(_ list: String, _ host: String, _ port: Int, _ direct: Bool) {
            self.list = list
            self.host = host
            self.port = port
            self.direct = direct
        }
    }

    static let cases: [Case] = [
        // `*` alone
        Case("*", "anything.example", true),
        Case("a.example, *", "b.example", true),
        // Domains: the name and every name under it, on a label boundary
        Case("example.com", "example.com", true),
        Case("example.com", "api.example.com", true),
        Case("example.com", "a.b.example.com", true),
        Case("example.com", "notexample.com", false),
        Case("example.com", "example.com.evil", false),
        Case(".example.com", "example.com", true),
        Case(".example.com", "api.example.com", true),
        Case("*.example.com", "api.example.com", true),
        Case("*.example.com", "example.com", true),
        Case("EXAMPLE.com", "Api.Example.COM", true),
        Case("example.com", "example.com.", true),
        Case("example.com.", "example.com", true),
        // Separators: commas, white space, both
        Case("a.example,b.example", "b.example", true),
        Case("a.example b.example", "b.example", true),
        Case(" a.example ,\tb.example ", "b.example", true),
        Case("a.example,,", "c.example", false),
        // Ports
        Case("example.com:8443", "example.com", 8443, true),
        Case("example.com:8443", "example.com", 443, false),
        Case(".example.com:8080", "api.example.com", 8080, true),
        Case("10.0.0.1:80", "10.0.0.1", 80, true),
        Case("10.0.0.1:80", "10.0.0.1", 8080, false),
        Case("[::1]:8080", "::1", 8080, true),
        Case("[::1]:8080", "[::1]", 9090, false),
        Case("example.com:notaport", "example.com", false),
        Case("example.com:0", "example.com", false),
        // IPv4 addresses and ranges
        Case("127.0.0.1", "127.0.0.1", true),
        Case("127.0.0.1", "127.0.0.2", false),
        Case("10.0.0.0/8", "10.200.3.4", true),
        Case("10.0.0.0/8", "11.0.0.1", false),
        Case("192.168.1.0/24", "192.168.1.77", true),
        Case("192.168.1.0/24", "192.168.2.1", false),
        Case("172.16.0.0/12", "172.31.255.255", true),
        Case("172.16.0.0/12", "172.32.0.0", false),
        Case("0.0.0.0/0", "8.8.8.8", true),
        Case("10.0.0.0/33", "10.0.0.1", false),
        // IPv6 addresses and ranges, with or without brackets
        Case("::1", "::1", true),
        Case("[::1]", "[::1]", true),
        Case("::1", "::2", false),
        Case("fd00::/8", "fd12:3456::1", true),
        Case("fd00::/8", "fe80::1", false),
        Case("[fe80::/10]", "[fe80::abcd]", true),
        Case("2001:db8::/32", "2001:db8:ffff::1", true),
        // Addresses and names never match each other (nothing is looked up)
        Case("127.0.0.1", "localhost", false),
        Case("localhost", "127.0.0.1", false),
        Case("0.1", "127.0.0.1", false),
        Case("10.0.0.0/8", "ten.example", false),
        Case("::1", "127.0.0.1", false),
        // Entries that mean nothing
        Case("", "example.com", false),
        Case(".", "example.com", false),
        Case("exa*mple.com", "example.com", false),
    ]

    @Test(arguments: cases)
    func matching(_ testCase: Case) {
        #expect(NoProxyList(testCase.list).matches(host: testCase.host, port: testCase.port) == testCase.direct)
    }

    @Test func anArrayReadsLikeAList() {
        let fromArray = NoProxyList(["localhost", ".internal, 10.0.0.0/8", "example.com:8080"])
        let fromText = NoProxyList("localhost,.internal,10.0.0.0/8,example.com:8080")
        #expect(fromArray == fromText)
        #expect(fromArray.entries.count == 4)
    }

    /// The scheme's default port counts for an entry with a port.
    @Test func theDefaultPortOfTheSchemeCounts() throws {
        let routes = ProxyRoutes(.url("http://p:3128", noProxy: ["secure.example:443", "plain.example:80"]))
        let https = try #require(URL(string: "https://secure.example/"))
        let plain = try #require(URL(string: "http://plain.example/"))
        let otherPort = try #require(URL(string: "https://secure.example:8443/"))
        #expect(routes.decision(for: https, isHTTPS: true) == .route(.direct))
        #expect(routes.decision(for: plain, isHTTPS: false) == .route(.direct))
        #expect(routes.decision(for: otherPort, isHTTPS: true) != .route(.direct))
    }
}
