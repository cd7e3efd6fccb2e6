import Foundation

extension CurlTransport {
    /// An address to connect to for a host and port, whatever DNS says: curl's `--resolve`
    /// (`CURLOPT_RESOLVE`).
    ///
    /// For tests against a server that must be reached by its real name (TLS checks the
    /// certificate against the URL's host), for blue/green switches and split-horizon
    /// DNS. The URL, the `Host` field, TLS's server name, cookies and the cache still see
    /// the host name; only the address the connection goes to changes.
    ///
    /// ```swift
    /// var configuration = CurlTransport.Configuration()
    /// configuration.dnsOverrides = [DNSOverride(host: "api.example.com", port: 443, addresses: ["10.0.0.7"])]
    /// ```
    public struct DNSOverride: Sendable, Hashable {
        /// The host name as URLs spell it (compared without regard to case).
        public var host: String
        /// The port of the URLs it applies to (443 for `https://api.example.com/`).
        public var port: Int
        /// The addresses to try, in order: IPv4 (`10.0.0.7`) or IPv6 (`::1`, with or
        /// without brackets).
        public var addresses: [String]

        /// An override of `host`'s addresses for URLs on `port`.
        public init(host: String, port: Int, addresses: [String]) {
            self.host = host
            self.port = port
            self.addresses = addresses
        }

        /// The `host:port:address[,address]` entry curl takes, or why there is none: a
        /// malformed override is refused before anything is sent, never passed to curl to
        /// be ignored.
        func curlEntry() throws(KringleError) -> String {
            let forbidden = host.contains { $0 == ":" || $0 == "," || $0.isWhitespace || $0 == "[" || $0 == "]" }
            guard !host.isEmpty, !forbidden else {
                throw .invalidRequest("DNSOverride: \"\(host)\" is not a host name.")
            }
            guard (1...65_535).contains(port) else {
                throw .invalidRequest("DNSOverride for \(host): port \(port) is outside 1...65535.")
            }
            guard !addresses.isEmpty else {
                throw .invalidRequest("DNSOverride for \(host):\(port) names no address.")
            }
            let listed = try addresses.map { address throws(KringleError) -> String in
                let bare =
                    address.hasPrefix("[") && address.hasSuffix("]") ? String(address.dropFirst().dropLast()) : address
                guard let kind = IPAddressKind(bare) else {
                    throw .invalidRequest("DNSOverride for \(host):\(port): \"\(address)\" is not an IP address.")
                }
                // curl reads IPv6 addresses in brackets, as URLs write them.
                return kind == .v6 ? "[\(bare)]" : bare
            }
            return "\(host):\(port):\(listed.joined(separator: ","))"
        }
    }

    /// Which IP versions a transport connects over (`CURLOPT_IPRESOLVE`).
    public enum IPVersion: Sendable, Hashable {
        /// Both, as DNS answers: libcurl tries IPv6 and IPv4 side by side and keeps the
        /// first connection made ("happy eyeballs", RFC 8305).
        case any
        /// IPv4 addresses only: for networks whose IPv6 route is broken or slow.
        case v4
        /// IPv6 addresses only.
        case v6
    }
}
