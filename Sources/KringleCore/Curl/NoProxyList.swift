import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hosts a transport reaches without its proxy, with the rules ``CurlTransport/Proxy``
/// documents: `*`, domains (with or without a leading `.` or `*.`, each covering the names
/// under it), IP addresses and CIDR ranges, each optionally limited to one port.
///
/// Matched by Kringle rather than handed to libcurl as `CURLOPT_NOPROXY`, so that ports
/// count and CIDR ranges work on libcurls older than 7.86 too.
struct NoProxyList: Sendable, Hashable {
    enum Entry: Sendable, Hashable {
        /// `*`: every host.
        case everything
        /// A lower-cased name without leading or trailing dots: itself and every name under it.
        case domain(String, port: Int?)
        /// An address range: its bytes (4 or 16) and how many leading bits must match.
        case addresses([UInt8], prefixLength: Int, port: Int?)
    }

    let entries: [Entry]

    var isEmpty: Bool { entries.isEmpty }

    /// Reads entries separated by commas or white space (`no_proxy`'s form); an entry that
    /// means nothing (an empty one, a bad port or prefix) is skipped, as curl skips it.
    init(_ text: String) {
        self.init(text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init))
    }

    /// Reads each of `entries` as one entry (or several, if it holds commas or white space).
    init(_ entries: [String]) {
        self.entries = entries.flatMap { item in
            item.split(whereSeparator: { $0 == "," || $0.isWhitespace }).compactMap { Self.entry(String($0)) }
        }
    }

    /// Whether a URL whose host is `host` (a name, or an address with or without brackets)
    /// on `port` goes direct.
    func matches(host: String, port: Int) -> Bool {
        guard !entries.isEmpty else { return false }
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }  // `example.com.` is example.com
        let address = Self.addressBytes(name)
        for entry in entries {
            switch entry {
            case .everything:
                return true
            case .domain(let domain, let entryPort):
                guard address == nil, entryPort == nil || entryPort == port else { continue }
                if name == domain || (name.hasSuffix(domain) && name.dropLast(domain.count).hasSuffix(".")) {
                    return true
                }
            case .addresses(let network, let prefixLength, let entryPort):
                guard let address, entryPort == nil || entryPort == port else { continue }
                if Self.address(address, isIn: network, prefixLength: prefixLength) { return true }
            }
        }
        return false
    }

    /// One entry, or `nil` when it means nothing.
    private static func entry(_ raw: String) -> Entry? {
        var text = raw.lowercased()
        if text == "*" { return .everything }
        var port: Int?
        if text.hasPrefix("[") {
            // `[::1]` or `[::1]:8080`, a range inside the brackets allowed (`[fd00::/8]`).
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()), (1...65535).contains(number) else {
                    return nil
                }
                port = number
            }
            text = String(text[text.index(after: text.startIndex)..<close])
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            // One colon: `host:port` (an IPv6 address has two or more).
            guard let number = Int(text[text.index(after: colon)...]), (1...65535).contains(number) else {
                return nil
            }
            port = number
            text = String(text[..<colon])
        }
        if let slash = text.firstIndex(of: "/") {
            guard let bytes = addressBytes(String(text[..<slash])),
                let length = Int(text[text.index(after: slash)...]), (0...bytes.count * 8).contains(length)
            else { return nil }
            return .addresses(bytes, prefixLength: length, port: port)
        }
        if let bytes = addressBytes(text) {
            return .addresses(bytes, prefixLength: bytes.count * 8, port: port)
        }
        if text.hasPrefix("*.") { text.removeFirst(2) }
        while text.hasPrefix(".") { text.removeFirst() }
        while text.hasSuffix(".") { text.removeLast() }
        guard !text.isEmpty, !text.contains("*") else { return nil }
        return .domain(text, port: port)
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) address written as one, or `nil` for a name.
    private static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// Whether the first `prefixLength` bits of `address` are those of `network` (same family).
    private static func address(_ address: [UInt8], isIn network: [UInt8], prefixLength: Int) -> Bool {
        guard address.count == network.count else { return false }
        var bits = prefixLength
        for index in address.indices where bits > 0 {
            let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if address[index] & mask != network[index] & mask { return false }
            bits -= 8
        }
        return true
    }
}
