import Foundation

extension HAR {
    /// One exchange: a request and its response, when it started and where its time went
    /// (HAR 1.2 `entries`).
    public struct Entry: Sendable, Hashable, Codable, HARObject {
        /// The ``Page/id`` of the page the request belongs to, in a browser's export.
        public var pageref: String?
        /// When the request started (ISO 8601 with milliseconds and a time zone).
        public var startedDateTime: String
        /// The whole exchange in milliseconds: the sum of ``timings``' known parts.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response.
        public var response: Response
        /// The browser's cache state, as read (Kringle writes `{}`).
        public var cache: HARValue
        /// Where the time went.
        public var timings: Timings
        /// The IP address of the server.
        public var serverIPAddress: String?
        /// The connection the exchange used (Kringle writes the server's port).
        public var connection: String?
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Entry>(
            blank: Entry(
                startedDateTime: "", time: 0, request: Request(method: "", url: ""), response: Response(status: 0)),
            [
                .optional("pageref", \.pageref),
                .field("startedDateTime", \.startedDateTime, or: ""),
                .field("time", \.time, or: 0),
                .required("request", \.request),
                .required("response", \.response),
                .field("cache", \.cache, or: .object([:])),
                .field("timings", \.timings, or: Timings()),
                .optional("serverIPAddress", \.serverIPAddress),
                .optional("connection", \.connection),
                .optional("comment", \.comment),
            ])

        /// An entry.
        public init(
            startedDateTime: String, time: Double, request: Request, response: Response,
            timings: Timings = Timings(), serverIPAddress: String? = nil, connection: String? = nil,
            pageref: String? = nil, comment: String? = nil, custom: [String: HARValue] = [:]
        ) {
            self.pageref = pageref
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            cache = .object([:])
            self.timings = timings
            self.serverIPAddress = serverIPAddress
            self.connection = connection
            self.comment = comment
            self.custom = custom
        }

        /// ``startedDateTime`` as a date, when it is valid ISO 8601.
        public var startedDate: Date? {
            HAR.date(from: startedDateTime)
        }
    }

    /// A request as sent (HAR 1.2 `request`).
    public struct Request: Sendable, Hashable, Codable, HARObject {
        /// The method, such as `GET`.
        public var method: String
        /// The absolute URL, fragment removed.
        public var url: String
        /// The version of HTTP, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies sent (from the `Cookie` header).
        public var cookies: [Cookie]
        /// The header fields, in order.
        public var headers: [NameValue]
        /// The query's name-value pairs, in order.
        public var queryString: [NameValue]
        /// The body, if any.
        public var postData: PostData?
        /// Bytes of the head, `-1` when unknown.
        public var headersSize: Int
        /// Bytes of the body, `-1` when unknown.
        public var bodySize: Int
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Request>(
            blank: Request(method: "", url: ""),
            [
                .field("method", \.method, or: "GET"),
                .field("url", \.url, or: ""),
                .field("httpVersion", \.httpVersion, or: ""),
                .field("cookies", \.cookies, or: []),
                .field("headers", \.headers, or: []),
                .field("queryString", \.queryString, or: []),
                .optional("postData", \.postData),
                .field("headersSize", \.headersSize, or: -1),
                .field("bodySize", \.bodySize, or: -1),
                .optional("comment", \.comment),
            ])

        /// A request.
        public init(
            method: String, url: String, httpVersion: String = "HTTP/1.1", cookies: [Cookie] = [],
            headers: [NameValue] = [], queryString: [NameValue] = [], postData: PostData? = nil,
            headersSize: Int = -1, bodySize: Int = -1, comment: String? = nil, custom: [String: HARValue] = [:]
        ) {
            self.method = method
            self.url = url
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.queryString = queryString
            self.postData = postData
            self.headersSize = headersSize
            self.bodySize = bodySize
            self.comment = comment
            self.custom = custom
        }
    }

    /// A response as received (HAR 1.2 `response`).
    public struct Response: Sendable, Hashable, Codable, HARObject {
        /// The status code; `0` for an exchange that got no response.
        public var status: Int
        /// The reason phrase.
        public var statusText: String
        /// The version of HTTP, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The cookies set (from the `Set-Cookie` headers).
        public var cookies: [Cookie]
        /// The header fields, in order, repeated names kept.
        public var headers: [NameValue]
        /// The body.
        public var content: Content
        /// The `Location` header's target, `""` when there is none.
        public var redirectURL: String
        /// Bytes of the head, `-1` when unknown.
        public var headersSize: Int
        /// Bytes of the body as transferred, `-1` when unknown.
        public var bodySize: Int
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``);
        /// Kringle writes the trailer fields as `_trailers`.
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Response>(
            blank: Response(status: 0),
            [
                .field("status", \.status, or: 0),
                .field("statusText", \.statusText, or: ""),
                .field("httpVersion", \.httpVersion, or: ""),
                .field("cookies", \.cookies, or: []),
                .field("headers", \.headers, or: []),
                .field("content", \.content, or: Content()),
                .field("redirectURL", \.redirectURL, or: ""),
                .field("headersSize", \.headersSize, or: -1),
                .field("bodySize", \.bodySize, or: -1),
                .optional("comment", \.comment),
            ])

        /// A response.
        public init(
            status: Int, statusText: String = "", httpVersion: String = "HTTP/1.1", cookies: [Cookie] = [],
            headers: [NameValue] = [], content: Content = Content(), redirectURL: String = "", headersSize: Int = -1,
            bodySize: Int = -1, comment: String? = nil, custom: [String: HARValue] = [:]
        ) {
            self.status = status
            self.statusText = statusText
            self.httpVersion = httpVersion
            self.cookies = cookies
            self.headers = headers
            self.content = content
            self.redirectURL = redirectURL
            self.headersSize = headersSize
            self.bodySize = bodySize
            self.comment = comment
            self.custom = custom
        }
    }

    /// Where an exchange's time went, in milliseconds, each phase after the one before;
    /// `-1` for a phase that did not apply (HAR 1.2 `timings`). `ssl` is included in
    /// `connect`, as the spec says.
    public struct Timings: Sendable, Hashable, Codable, HARObject {
        /// Waiting for a connection.
        public var blocked: Double
        /// The name lookup.
        public var dns: Double
        /// Making the connection, TLS included.
        public var connect: Double
        /// Sending the request.
        public var send: Double
        /// Waiting for the first byte of the response.
        public var wait: Double
        /// Receiving the response.
        public var receive: Double
        /// The TLS handshake.
        public var ssl: Double
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Timings>(
            blank: Timings(),
            [
                .field("blocked", \.blocked, or: -1),
                .field("dns", \.dns, or: -1),
                .field("connect", \.connect, or: -1),
                .field("send", \.send, or: 0),
                .field("wait", \.wait, or: 0),
                .field("receive", \.receive, or: 0),
                .field("ssl", \.ssl, or: -1),
                .optional("comment", \.comment),
            ])

        /// Timings; the required phases (`send`, `wait`, `receive`) default to 0, the others to -1.
        public init(
            blocked: Double = -1, dns: Double = -1, connect: Double = -1, send: Double = 0, wait: Double = 0,
            receive: Double = 0, ssl: Double = -1, comment: String? = nil, custom: [String: HARValue] = [:]
        ) {
            self.blocked = blocked
            self.dns = dns
            self.connect = connect
            self.send = send
            self.wait = wait
            self.receive = receive
            self.ssl = ssl
            self.comment = comment
            self.custom = custom
        }
    }
}
