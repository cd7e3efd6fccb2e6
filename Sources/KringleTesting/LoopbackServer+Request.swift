import Foundation

extension LoopbackServer {
    /// One HTTP request as the server received it, passed to the handler.
    ///
    /// Everything is kept as sent on the wire: the path stays percent-encoded, header names
    /// keep their case and order, and repeated header fields stay separate. Only
    /// ``queryItems`` decodes.
    ///
    /// ```swift
    /// let server = try LoopbackServer { request in
    ///     guard request.method == "POST", request.path == "/users" else { return .status(404) }
    ///     let token = request.header("authorization")        // case-insensitive
    ///     let page = request.queryItems.first { $0.name == "page" }?.value
    ///     return .json(#"{"received": \#(request.body.count)}"#, status: 201)
    /// }
    /// ```
    public struct Request: Sendable {
        /// The method token exactly as sent, such as `"GET"` (methods are case-sensitive,
        /// RFC 9110 §9.1).
        public let method: String

        /// The raw request-target from the request line (RFC 9112 §3.2), such as
        /// `"/search?q=a%20b"`, an absolute URL sent to proxies, or `"*"`.
        public let target: String

        /// The path of ``target``, still percent-encoded and without the query, such as
        /// `"/files/a%2Fb"`. `"*"` for an asterisk-form target; the whole target for the
        /// authority form used by CONNECT.
        public let path: String

        /// The raw text after the first `?` of ``target``, or `nil` when there is no `?`.
        public let query: String?

        /// Header fields in the order received; repeated names appear once per field line.
        ///
        /// Names keep the case the client used; use ``header(_:)`` or ``headers(named:)`` to
        /// look them up case-insensitively.
        public let headers: [(name: String, value: String)]

        /// The request content, with any chunked transfer coding already removed.
        public let body: Data

        /// The protocol version from the request line, such as `"HTTP/1.1"`.
        public let httpVersion: String

        /// Identifies the connection the request arrived on: 1 for the server's first accepted
        /// connection, 2 for the next, and so on. Equal IDs mean the client reused a connection.
        public let connectionID: Int

        /// Creates a request, for calling a handler directly in a unit test.
        ///
        /// ``path`` and ``query`` are derived from `target` the same way the server does.
        ///
        /// ```swift
        /// let response = handler(.init(method: "GET", target: "/items?limit=2"))
        /// ```
        public init(
            method: String = "GET",
            target: String = "/",
            headers: [(name: String, value: String)] = [],
            body: Data = Data(),
            httpVersion: String = "HTTP/1.1",
            connectionID: Int = 0
        ) {
            self.method = method
            self.target = target
            (path, query) = Self.split(target: target)
            self.headers = headers
            self.body = body
            self.httpVersion = httpVersion
            self.connectionID = connectionID
        }

        /// The query decoded into name/value pairs, in order.
        ///
        /// Percent-escapes are decoded; `+` stays a plus sign, as in `URLComponents` (RFC 3986
        /// gives it no special meaning). A pair without `=` has a `nil` value.
        ///
        /// ```swift
        /// // target "/s?q=a%20b&flag&x=1&x=2"
        /// request.queryItems  // [q: "a b", flag: nil, x: "1", x: "2"]
        /// ```
        public var queryItems: [URLQueryItem] {
            guard let query else { return [] }
            return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = Self.percentDecoded(parts[0])
                let value = parts.count > 1 ? Self.percentDecoded(parts[1]) : nil
                return URLQueryItem(name: name, value: value)
            }
        }

        /// The body decoded as UTF-8, with invalid bytes replaced; handy in assertions.
        public var bodyText: String {
            String(decoding: body, as: UTF8.self)
        }

        /// The value of the first header field called `name`, compared case-insensitively
        /// (field names are case-insensitive, RFC 9110 §5.1), or `nil`.
        ///
        /// ```swift
        /// request.header("content-type")  // "application/json"
        /// ```
        public func header(_ name: String) -> String? {
            headers.first { Self.namesMatch($0.name, name) }?.value
        }

        /// The values of every header field called `name`, in the order received.
        ///
        /// ```swift
        /// request.headers(named: "Cookie")  // ["a=1", "b=2"] when sent on two lines
        /// ```
        public func headers(named name: String) -> [String] {
            headers.filter { Self.namesMatch($0.name, name) }.map(\.value)
        }

        /// Splits a request-target into its encoded path and raw query (RFC 9112 §3.2).
        static func split(target: String) -> (path: String, query: String?) {
            var pathAndQuery = Substring(target)
            if target.hasPrefix("/") || target == "*" {
                // origin-form or asterisk-form: the target already starts at the path.
            } else if let schemeEnd = target.range(of: "://") {
                // absolute-form (§3.2.2): drop "scheme://authority".
                let afterAuthority = target[schemeEnd.upperBound...]
                let pathStart = afterAuthority.firstIndex { $0 == "/" || $0 == "?" } ?? afterAuthority.endIndex
                pathAndQuery = afterAuthority[pathStart...]
            } else {
                return (target, nil)  // authority-form (§3.2.3), only used by CONNECT
            }
            let questionMark = pathAndQuery.firstIndex(of: "?")
            var path = String(pathAndQuery[..<(questionMark ?? pathAndQuery.endIndex)])
            if path.isEmpty { path = "/" }  // an absolute-form target may omit the path
            let query = questionMark.map { String(pathAndQuery[pathAndQuery.index(after: $0)...]) }
            return (path, query)
        }

        private static func percentDecoded(_ text: Substring) -> String {
            let raw = String(text)
            return raw.removingPercentEncoding ?? raw  // malformed escapes stay as sent
        }

        private static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
            lhs.utf8.count == rhs.utf8.count && lhs.lowercased() == rhs.lowercased()
        }
    }
}
