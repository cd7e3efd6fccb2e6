import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// RFC 6265 §5.1.2 canonicalized host names and §5.1.3 domain matching.
@Suite("RFC 6265 §5.1.2-§5.1.3 hosts and domain-match")
struct DomainMatchingTests {
    @Test(
        "§5.1.3 domain-match",
        arguments: [
            ("example.com", "example.com", true),
            ("www.example.com", "example.com", true),
            ("a.b.example.com", "b.example.com", true),
            ("a.b.example.com", "example.com", true),
            ("wwwexample.com", "example.com", false),
            ("example.com", "www.example.com", false),
            ("example.com", "com.", false),
            ("example.com", "", false),
            ("192.168.0.1", "192.168.0.1", true),  // identical strings
            ("192.168.0.1", "168.0.1", false),  // IP addresses never suffix-match
            ("::1", ":1", false),
        ])
    func domainMatch(host: String, domain: String, expected: Bool) {
        #expect(DomainMatching.domainMatches(host, domain) == expected)
    }

    @Test(
        "§5.1.2 canonicalized host",
        arguments: [
            ("Example.COM", "example.com" as String?),
            ("example.com.", "example.com"),
            ("[::1]", "::1"),
            ("[FE80::1]", "fe80::1"),
            ("食狮.com.cn", "xn--85x722f.com.cn"),
            ("BÜCHER.example", "xn--bcher-kva.example"),
            ("", nil),
            (".", nil),
        ])
    func canonicalHost(host: String, expected: String?) {
        #expect(DomainMatching.canonicalHost(host) == expected)
    }

    @Test(
        "IP address literals",
        arguments: [
            ("127.0.0.1", true), ("255.255.255.255", true), ("::1", true), ("fe80::1%en0", true),
            ("256.1.1.1", false), ("1.2.3", false), ("1.2.3.4.5", false), ("example.com", false),
            ("1.2.3.a", false), ("123.example", false),
        ])
    func ipAddresses(host: String, expected: Bool) {
        #expect(DomainMatching.isIPAddress(host) == expected)
    }
}
