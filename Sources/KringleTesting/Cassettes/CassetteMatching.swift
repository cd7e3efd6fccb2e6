import Foundation

/// How ``ReplayTransport`` picks the recorded entry that answers a request.
///
/// By default an entry answers a request with the same method and URL (scheme, host, port,
/// path, and the same query items in any order), each entry once, in any order; the port of
/// a loopback host (`127.0.0.1`, `::1`, `localhost`) is not compared, since a test server
/// there gets a new one every run (``ignoresLoopbackPorts``). Among
/// entries that match, the first recorded that has not been used wins, so a request made
/// twice (a retry, a poll) gets the answers in the order they were recorded.
///
/// ```swift
/// var matching = CassetteMatching()
/// matching.headers = ["Accept"]     // the Accept values must be equal too
/// matching.body = true              // and the bodies (JSON ones as values, in any key order)
/// matching.order = .recorded        // and requests come in the order recorded
/// ```
public struct CassetteMatching: Sendable, Hashable {
    /// Whether requests must come in the order they were recorded.
    public enum Order: Sendable, Hashable {
        /// Any order: the first matching entry answers.
        case any
        /// The recorded order: only the next entry not yet used may answer. Entries are
        /// recorded as exchanges finish, so a stream's entry comes after the calls made
        /// while it was open.
        case recorded
    }

    /// How often an entry may answer.
    public enum Reuse: Sendable, Hashable {
        /// Once: a second identical request needs a second entry.
        case once
        /// Any number of times; an entry not used yet is still preferred.
        case repeatable
    }

    /// Header names (case-insensitive) whose values must be equal, after redaction: a
    /// redacted header matches on its presence only.
    public var headers: Set<String>
    /// Whether the bodies must be equal, after the body redaction: byte for byte, except that
    /// two JSON bodies are equal when their JSON values are.
    ///
    /// A body is compared as JSON when the recorded and the asked request are both of a JSON
    /// media type (`application/json`, or any `+json` type such as
    /// `application/merge-patch+json`, RFC 6839 §3.1) and both bodies parse: the members of an
    /// object may come in any order, white space does not count, and numbers are compared by
    /// value (`3` equals `3.0`), as vcrpy's and Ruby VCR's `body_as_json` matchers compare
    /// them. A client's `JSONEncoder` writes an object's members in an order that can change
    /// from one process to the next, so a recorded JSON body would otherwise not match itself
    /// in a later run. The order of an array's elements still counts.
    public var body: Bool
    /// Whether the scheme, host and port are compared: `false` lets a cassette recorded
    /// against one host answer requests to another (a staging server's, say).
    public var comparesOrigin: Bool
    /// Whether the port is left out when both the recorded and the asked host are loopback
    /// (`127.0.0.0/8`, `::1`, `localhost`): a cassette recorded against a `LoopbackServer`,
    /// which gets a port the system picks, then answers in a later run. `true` by default.
    public var ignoresLoopbackPorts: Bool
    /// Whether requests must come in the recorded order.
    public var order: Order
    /// How often an entry may answer.
    public var reuse: Reuse

    /// Matching by method and URL, plus what is given.
    public init(
        headers: Set<String> = [], body: Bool = false, comparesOrigin: Bool = true, ignoresLoopbackPorts: Bool = true,
        order: Order = .any, reuse: Reuse = .once
    ) {
        self.headers = headers
        self.body = body
        self.comparesOrigin = comparesOrigin
        self.ignoresLoopbackPorts = ignoresLoopbackPorts
        self.order = order
        self.reuse = reuse
    }

    /// Method and URL, any order, each entry once.
    public static let `default` = CassetteMatching()
}

extension CassetteMatching {
    /// Why `entry` does not answer `request`: empty when it does. Each reason names what
    /// differs, recorded value first.
    func differences(_ request: CassetteRequest, _ entry: HAR.Entry) -> [String] {
        var reasons: [String] = []
        if entry.request.method.uppercased() != request.method.uppercased() {
            reasons.append("method \(entry.request.method) ≠ \(request.method)")
        }
        let recorded = URLComponents(string: entry.request.url)
        let asked = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        if comparesOrigin {
            let withPorts = !(ignoresLoopbackPorts && Self.isLoopback(recorded) && Self.isLoopback(asked))
            let origin = Self.origin(of: recorded, withPort: withPorts)
            let askedOrigin = Self.origin(of: asked, withPort: withPorts)
            if origin != askedOrigin { reasons.append("origin \(origin) ≠ \(askedOrigin)") }
        }
        let path = Self.path(of: recorded)
        let askedPath = Self.path(of: asked)
        if path != askedPath { reasons.append("path \(path) ≠ \(askedPath)") }
        reasons += Self.queryDifferences(Self.query(of: recorded), Self.query(of: asked))
        for name in headers.sorted() {
            let recordedValues = entry.request.headers.filter { $0.name.equalsIgnoringCase(name) }.map(\.value)
            let askedValues = request.headers.filter { $0.name.equalsIgnoringCase(name) }.map(\.value)
            if recordedValues != askedValues {
                reasons.append("header \(name): \(Self.list(recordedValues)) ≠ \(Self.list(askedValues))")
            }
        }
        if body {
            let recordedBody = (try? entry.request.postData?.body()) ?? Data()
            if !Self.bodiesMatch(recordedBody, of: entry.request, request.body, of: request) {
                reasons.append("body differs (\(recordedBody.count) bytes recorded, \(request.body.count) sent)")
            }
        }
        return reasons
    }

    /// Whether the bodies are equal: the same bytes, or the same JSON value when both
    /// requests say they are JSON (see ``body``).
    private static func bodiesMatch(
        _ recordedBody: Data, of recorded: HAR.Request, _ askedBody: Data, of asked: CassetteRequest
    ) -> Bool {
        if recordedBody == askedBody { return true }
        let recordedType =
            recorded.postData?.mimeType ?? recorded.headers.last { $0.name.equalsIgnoringCase("Content-Type") }?.value
        let askedType = asked.headers.last { $0.name.equalsIgnoringCase("Content-Type") }?.value
        guard isJSON(recordedType), isJSON(askedType), let recordedValue = jsonValue(recordedBody),
            let askedValue = jsonValue(askedBody)
        else { return false }
        // `HARValue` holds an object's members in a dictionary: their order does not count.
        return recordedValue == askedValue
    }

    /// Whether `contentType` names JSON: `application/json` (RFC 8259 §11), or a type with
    /// the `+json` structured syntax suffix (RFC 6839 §3.1); parameters are ignored.
    private static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
        return mediaType == "application/json" || (mediaType.contains("/") && mediaType.hasSuffix("+json"))
    }

    /// `data` read as one JSON value, or `nil` when it is not JSON.
    private static func jsonValue(_ data: Data) -> HARValue? {
        try? JSONDecoder().decode(HARValue.self, from: data)
    }

    private static func origin(of components: URLComponents?, withPort: Bool) -> String {
        guard let components else { return "(no URL)" }
        let scheme = components.scheme?.lowercased() ?? ""
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let port = withPort ? components.port ?? defaultPort : nil
        return "\(scheme)://\(components.host?.lowercased() ?? "")" + (port.map { ":\($0)" } ?? "")
    }

    /// Whether the URL's host is this machine: `localhost` or a loopback address (RFC 6890:
    /// all of `127.0.0.0/8`, and `::1`).
    private static func isLoopback(_ components: URLComponents?) -> Bool {
        guard let host = components?.host?.lowercased() else { return false }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// The path as sent (percent-encoded), `/` for an empty one (RFC 9110 §4.2.3).
    private static func path(of components: URLComponents?) -> String {
        let path = components?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// The query items, decoded, sorted: the order of items does not matter.
    private static func query(of components: URLComponents?) -> [String] {
        (components?.queryItems ?? []).map { "\($0.name)=\($0.value ?? "")" }.sorted()
    }

    private static func queryDifferences(_ recorded: [String], _ asked: [String]) -> [String] {
        guard recorded != asked else { return [] }
        var missing = recorded
        var extra: [String] = []
        for item in asked {
            if let index = missing.firstIndex(of: item) {
                missing.remove(at: index)
            } else {
                extra.append(item)
            }
        }
        var reasons: [String] = []
        if !missing.isEmpty { reasons.append("query lacks \(missing.joined(separator: "&"))") }
        if !extra.isEmpty { reasons.append("query has \(extra.joined(separator: "&")) not recorded") }
        return reasons
    }

    private static func list(_ values: [String]) -> String {
        values.isEmpty ? "(none)" : values.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

extension String {
    fileprivate func equalsIgnoringCase(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
