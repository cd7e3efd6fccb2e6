import Foundation
@_spi(KringleInternals) import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The `URLRequest` that sends `request` through `URLSession`.
    ///
    /// Repeated fields become one, their values joined with commas (RFC 9110 §5.3), as
    /// `URLRequest` keeps one value per name; a ``/KringleCore/CachePolicy`` other than
    /// ``/KringleCore/CachePolicy/useProtocol`` becomes the nearest `URLRequest.CachePolicy`;
    /// no time limit becomes a week's (FoundationNetworking hands libcurl the limit in whole
    /// milliseconds, and an infinite one would not convert).
    public init(_ request: HTTPRequest) {
        self.init(url: request.url)
        if request.method != .get { httpMethod = request.method.rawValue }
        // Set, not passed to the initialiser: on Linux only the setter marks the timeout as
        // chosen, and a URLSession otherwise applies its own `timeoutIntervalForRequest`.
        timeoutInterval = request.timeout > 0 && request.timeout < Self.noLimit ? request.timeout : Self.noLimit
        switch request.cachePolicy {
        case .useProtocol: break
        case .reload: cachePolicy = .reloadIgnoringLocalCacheData
        case .returnCacheElseLoad: cachePolicy = .returnCacheDataElseLoad
        case .cacheOnly: cachePolicy = .returnCacheDataDontLoad
        }
        httpBody = request.body
        for field in request.headers {
            addValue(field.value, forHTTPHeaderField: field.name)
        }
    }
}

extension URLRequest {
    /// The time limit that stands for none: a week, as good as no limit for one request.
    static let noLimit: TimeInterval = 7 * 24 * 3600
}

extension HTTPRequest {
    /// The request a `URLRequest` describes, for code that builds `URLRequest`s.
    ///
    /// - Throws: ``/KringleCore/KringleError/invalidRequest(_:)`` when it has no URL, or a body stream
    ///   (`httpBodyStream`), which an `HTTPRequest` cannot hold: stream a body with
    ///   ``/KringleCore/NetworkClient/upload(_:to:method:as:progress:)`` instead.
    public init(_ request: URLRequest) throws {
        guard let url = request.url else { throw KringleError.invalidRequest("The request has no URL.") }
        guard request.httpBodyStream == nil else {
            throw KringleError.invalidRequest("An HTTPRequest takes a body from httpBody only, not httpBodyStream.")
        }
        // In the byte order of their names, as the client sets its dictionaries' fields: a
        // dictionary's own order changes from process to process.
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        self.init(
            url: url, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"),
            headers: HTTPHeaders(fields.map { ($0.key, $0.value) }), body: request.httpBody,
            timeout: request.timeoutInterval, cachePolicy: CachePolicy(request.cachePolicy))
    }
}

extension CachePolicy {
    /// The policy a `URLRequest.CachePolicy` stands for.
    init(_ policy: URLRequest.CachePolicy) {
        switch policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData: self = .reload
        case .returnCacheDataElseLoad: self = .returnCacheElseLoad
        case .returnCacheDataDontLoad: self = .cacheOnly
        default: self = .useProtocol
        }
    }
}
