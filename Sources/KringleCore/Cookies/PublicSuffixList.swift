import Foundation

/// The Public Suffix List (https://publicsuffix.org/list/) and its matching algorithm,
/// used to reject `Domain` attributes that name a public suffix (RFC 6265 §5.3 step 5)
/// and to index the jar by registrable domain.
///
/// The rules ship as generated Swift source (`PublicSuffixList+Data.swift`, made by
/// `Scripts/generate-public-suffix-list.py`), so a deployed binary needs no resource
/// bundle. Both the ICANN and the private sections are used, as browsers do.
struct PublicSuffixList: Sendable {
    /// The list built into Kringle, parsed once on first use.
    static let shared = PublicSuffixList(rules: icannRules + "\n" + privateRules)

    /// Plain rules such as `com` or `co.uk`.
    private let exact: Set<Substring>
    /// Wildcard rules stored without their `*.`: `ck` for `*.ck`.
    private let wildcards: Set<Substring>
    /// Exception rules stored without their `!`: `www.ck` for `!www.ck`.
    private let exceptions: Set<Substring>

    /// Builds a list from rules in the list's format, one per line, ASCII (punycode)
    /// labels. Comment lines (`//`) and blank lines are skipped.
    ///
    /// - Parameter rules: The rule text.
    init(rules: String) {
        var exact = Set<Substring>(), wildcards = Set<Substring>(), exceptions = Set<Substring>()
        for line in rules.split(whereSeparator: \.isNewline) {
            let rule = Substring(line.trimmingCharacters(in: .whitespaces).lowercased())
            if rule.isEmpty || rule.hasPrefix("//") { continue }
            if rule.hasPrefix("!") {
                exceptions.insert(rule.dropFirst())
            } else if rule.hasPrefix("*.") {
                wildcards.insert(rule.dropFirst(2))
            } else {
                exact.insert(rule)
            }
        }
        self.exact = exact
        self.wildcards = wildcards
        self.exceptions = exceptions
    }

    /// The public suffix ("effective TLD") of a domain.
    ///
    /// - Parameter domain: A domain name; Unicode labels and any case are accepted.
    /// - Returns: The public suffix in the input's form (lowercased), or `nil` when the
    ///   input is not a domain name (empty, or with an empty label or leading dot).
    func publicSuffix(of domain: some StringProtocol) -> String? {
        suffix(of: domain, extraLabels: 0)
    }

    /// The registrable domain (eTLD+1): the public suffix plus one more label.
    ///
    /// ```swift
    /// PublicSuffixList.shared.registrableDomain(of: "a.b.example.co.uk") // "example.co.uk"
    /// PublicSuffixList.shared.registrableDomain(of: "co.uk")             // nil
    /// ```
    ///
    /// - Parameter domain: A domain name; Unicode labels and any case are accepted.
    /// - Returns: The registrable domain in the input's form (lowercased), or `nil` when
    ///   the domain is itself a public suffix or not a domain name.
    func registrableDomain(of domain: some StringProtocol) -> String? {
        suffix(of: domain, extraLabels: 1)
    }

    /// Whether the domain is exactly a public suffix (`com`, `co.uk`, `github.io`).
    ///
    /// - Parameter domain: A domain name.
    /// - Returns: `true` when the whole domain is a public suffix.
    func isPublicSuffix(_ domain: some StringProtocol) -> Bool {
        guard let ascii = Self.canonicalASCII(domain), let starts = Self.labelStarts(ascii) else { return false }
        return suffixLabelCount(ascii, starts: starts) == starts.count
    }

    /// The public suffix plus `extraLabels` labels, in the input's (lowercased) form.
    private func suffix(of domain: some StringProtocol, extraLabels: Int) -> String? {
        guard let ascii = Self.canonicalASCII(domain), let starts = Self.labelStarts(ascii) else { return nil }
        let count = suffixLabelCount(ascii, starts: starts) + extraLabels
        guard count <= starts.count else { return nil }
        if domain.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(ascii[starts[starts.count - count]...])
        }
        // Unicode input: answer with the original labels rather than punycode.
        let labels = domain.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        return labels.suffix(count).joined(separator: ".")
    }

    /// The number of labels of a domain's public suffix, by the PSL algorithm:
    /// the longest matching rule wins, an exception rule beats every other rule and
    /// stands for its own suffix minus its leftmost label, and a domain no rule
    /// matches falls under the implicit `*` rule (its last label).
    ///
    /// - Parameters:
    ///   - ascii: The canonical (lowercased ASCII) domain.
    ///   - starts: The start index of each of its labels, left to right.
    /// - Returns: How many trailing labels form the public suffix (at least 1).
    private func suffixLabelCount(_ ascii: String, starts: [String.Index]) -> Int {
        var best = 1  // The implicit "*" rule.
        for (position, start) in starts.enumerated() {
            let candidate = ascii[start...]
            let length = starts.count - position
            if exceptions.contains(candidate) { return length - 1 }
            guard length > best else { continue }
            if exact.contains(candidate) {
                best = length
            } else if length >= 2, wildcards.contains(ascii[starts[position + 1]...]) {
                best = length
            }
        }
        return best
    }

    /// The domain lowercased with punycode labels; no work for canonical ASCII input.
    private static func canonicalASCII(_ domain: some StringProtocol) -> String? {
        if domain.utf8.allSatisfy({ $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }) { return String(domain) }
        return Punycode.toASCII(host: domain)
    }

    /// The start index of every label, or `nil` when a label is empty (an empty
    /// domain, a leading or trailing dot, or two dots in a row).
    private static func labelStarts(_ ascii: String) -> [String.Index]? {
        var starts = [ascii.startIndex]
        var previousWasDot = true
        var index = ascii.utf8.startIndex
        while index != ascii.utf8.endIndex {
            let isDot = ascii.utf8[index] == UInt8(ascii: ".")
            if isDot && previousWasDot { return nil }
            index = ascii.utf8.index(after: index)
            if isDot { starts.append(index) }
            previousWasDot = isDot
        }
        return previousWasDot ? nil : starts
    }
}
