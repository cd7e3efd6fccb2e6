import Foundation

extension NetworkClient {
    /// How a ``NetworkClient`` builds, sends and judges requests.
    ///
    /// ```swift
    /// var configuration = NetworkClient.Configuration()
    /// configuration.defaultHeaders["User-Agent"] = "CatApp/1.0"
    /// configuration.timeout = 10
    /// configuration.cookieJar = try CookieJar(fileURL: cookiesFile)
    /// let client = NetworkClient(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// Headers sent with every request; an endpoint's own headers win over them.
        public var defaultHeaders: [String: String] = ["Accept": "application/json"]
        /// Query items put before every endpoint's own.
        public var defaultQueryItems: [URLQueryItem] = []
        /// Decodes response bodies.
        public var decoder = JSONDecoder()
        /// Encodes `Encodable` request bodies.
        public var encoder = JSONEncoder()
        /// Status codes that count as success; others reject with
        /// ``KringleError/unacceptableStatusCode(_:_:)``.
        public var acceptableStatusCodes: Range<Int> = 200..<300
        /// How many redirects one request may follow; one more rejects with
        /// ``KringleError/tooManyRedirects(_:)``.
        public var maximumRedirects = 10
        /// Seconds one request may take (each redirect hop anew), with sub-second
        /// precision; then it is cancelled and rejects with ``KringleError/timedOut``.
        public var timeout: TimeInterval = 60
        /// Stores cookies from every response (redirect hops included) and sends them with
        /// every request; `nil` turns cookies off. An in-memory jar by default.
        public var cookieJar: CookieJar? = CookieJar()

        /// The default configuration.
        public init() {}
    }
}
