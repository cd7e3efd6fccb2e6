import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// One `checkPublicSuffix(domain, registrableDomain)` line of the official test file.
struct PublicSuffixCheck: Sendable, CustomTestStringConvertible {
    let domain: String?
    let expected: String?

    var testDescription: String { "checkPublicSuffix(\(domain ?? "null"), \(expected ?? "null"))" }

    /// Every check of `Fixtures/test_psl.txt` (a copy of the PSL project's
    /// `test_psl.txt`). Commented-out checks are skipped, as in the original.
    static let all: [PublicSuffixCheck] = {
        let url = TestSupport.fixtures.appendingPathComponent("test_psl.txt")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.hasPrefix("checkPublicSuffix("), line.hasSuffix(");") else { return nil }
            let arguments = line.dropFirst("checkPublicSuffix(".count).dropLast(2)
            let parts = arguments.split(separator: ",", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2 else { return nil }
            func literal(_ text: String) -> String? {
                text == "null" ? nil : String(text.dropFirst().dropLast())  // strip the quotes
            }
            return PublicSuffixCheck(domain: literal(parts[0]), expected: literal(parts[1]))
        }
    }()

    /// The registrable domain Kringle computes (a `null` domain gives `nil`).
    var actual: String? {
        domain.flatMap { PublicSuffixList.shared.registrableDomain(of: $0) }
    }
}

/// The Public Suffix List and its algorithm (RFC 6265 §5.3 step 5 relies on it).
@Suite("Public suffixes (RFC 6265 §5.3 step 5)")
struct PublicSuffixListTests {
    @Test("test_psl.txt check", arguments: PublicSuffixCheck.all)
    func officialCheck(_ check: PublicSuffixCheck) {
        #expect(check.actual == check.expected)
    }

    @Test("test_psl.txt: every check passes")
    func allOfficialChecksPass() {
        let checks = PublicSuffixCheck.all
        let failures = checks.filter { $0.actual != $0.expected }
        print("test_psl.txt: \(checks.count - failures.count)/\(checks.count) checks passed")
        #expect(checks.count == 78)
        #expect(failures.isEmpty, "failing: \(failures.map(\.testDescription))")
    }

    @Test(
        "public suffixes",
        arguments: [
            ("com", true), ("co.uk", true), ("github.io", true), ("uk", true), ("localhost", true),
            ("test.ck", true), ("www.ck", false), ("a.kawasaki.jp", true), ("kawasaki.jp", false),
            ("city.kawasaki.jp", false),
            ("example.com", false), ("example.co.uk", false), ("user.github.io", false),
            ("xn--55qx5d.cn", true), ("公司.cn", true), ("", false), (".com", false),
        ])
    func isPublicSuffix(domain: String, expected: Bool) {
        #expect(PublicSuffixList.shared.isPublicSuffix(domain) == expected)
    }

    @Test(
        "public suffix of",
        arguments: [
            ("www.example.co.uk", "co.uk" as String?), ("a.b.c.mm", "c.mm"), ("www.ck", "ck"),
            ("example.unlisted", "unlisted"), ("..com", nil),
        ])
    func publicSuffix(domain: String, expected: String?) {
        #expect(PublicSuffixList.shared.publicSuffix(of: domain) == expected)
    }

    @Test("a small list follows the same algorithm")
    func customRules() {
        let list = PublicSuffixList(rules: "// comment\ncom\n*.ck\n!www.ck\n\nco.uk\n")
        #expect(list.registrableDomain(of: "a.b.example.com") == "example.com")
        #expect(list.registrableDomain(of: "x.test.ck") == "x.test.ck")
        #expect(list.registrableDomain(of: "www.ck") == "www.ck")
        #expect(list.registrableDomain(of: "foo.bar.co.uk") == "bar.co.uk")
        #expect(list.registrableDomain(of: "foo.example") == "foo.example")  // implicit "*"
    }

    @Test(
        "RFC 3492 punycode",
        arguments: [
            ("bücher", "bcher-kva"), ("münchen", "mnchen-3ya"), ("ü", "tda"),
            ("食狮", "85x722f"), ("公司", "55qx5d"), ("中国", "fiqs8s"),
            ("3年B組金八先生", "3B-ww4c5e180e575a65lsy2b"),
            ("ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"),
            ("他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"),
            ("Pročprostěnemluvíčesky", "Proprostnemluvesky-uyb24dma41a"),
        ])
    func punycode(input: String, expected: String) {
        #expect(Punycode.encode(input) == expected)
    }

    @Test("punycode host conversion lowercases and prefixes xn--")
    func punycodeHost() {
        #expect(Punycode.toASCII(host: "WWW.食狮.公司.CN") == "www.xn--85x722f.xn--55qx5d.cn")
        #expect(Punycode.toASCII(host: "Example.COM") == "example.com")
    }
}
