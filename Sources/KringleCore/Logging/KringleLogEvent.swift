import Foundation

/// Something a ``NetworkClient`` did.
///
/// Every URL, header list and error in an event is ``Redacted`` by the client's
/// ``NetworkClient/Configuration-swift.struct/redaction``; read it with `.value`. The rest
/// holds no secret the redaction covers: methods, status codes, sizes, times, and the
/// ``TransferMetrics`` of a response, which carry no URL or header (only the server's
/// address and port, as the URL's host shows it).
public enum KringleLogEvent: Sendable, CustomStringConvertible {
    /// A request (one attempt, one redirect hop) went to the transport.
    case requestSent(method: String, url: Redacted<URL>, headers: Redacted<HTTPHeaders>)
    /// A response arrived for it, with what the transport measured of the exchange (see
    /// ``TransferMetrics``).
    case responseReceived(
        method: String, url: Redacted<URL>, statusCode: Int, duration: TimeInterval, bodySize: Int,
        headers: Redacted<HTTPHeaders>, metrics: TransferMetrics?)
    /// The client's ``HTTPCache`` answered a request (one redirect hop), without the
    /// network (`hit`), after a `304 Not Modified` (`revalidated`), or stale because
    /// revalidating failed (`staleOnError`).
    case cacheAnswered(method: String, url: Redacted<URL>, statusCode: Int, cacheStatus: CacheStatus)
    /// An attempt failed and will be retried after `delay` seconds.
    case retry(method: String, url: Redacted<URL>, attempt: Int, reason: Redacted<any Error>, delay: TimeInterval)
    /// An interceptor asked for a retry after attempt `attempt` failed, and the client did
    /// not start it (see ``RetryDenial``): the call fails with `reason`, the attempt's error.
    case retryDenied(method: String, url: Redacted<URL>, attempt: Int, reason: Redacted<any Error>, denial: RetryDenial)
    /// The host answered that it is overloaded (`statusCode` with `Retry-After`, or
    /// `RateLimit` fields saying no quota remains), and the client's ``HostThrottle`` holds
    /// every request to it for `seconds`.
    case hostPaused(host: String, seconds: TimeInterval, statusCode: Int)
    /// A call failed for good (cancellation included).
    case failure(method: String, url: Redacted<URL>, error: Redacted<any Error>)
    /// The request (one attempt, one redirect hop) that just got its response had a body
    /// compressed as its endpoint asked (``Endpoint/compression``): how big it was and how
    /// big it went out. Logged with the response, since a body compressed as it streams has
    /// a size only once it has been sent.
    case requestBodyCompressed(method: String, url: Redacted<URL>, sizes: CompressedBodySizes)
    /// A setting of the client's configuration that its transport cannot honour, such as
    /// `connectTimeout` on `URLSessionTransport` (see the table in
    /// ``NetworkClient/Configuration-swift.struct``): reported once, as the client is made.
    /// The client works on without it; `reason` says why, and what bounds the request instead.
    case settingIgnored(setting: String, transport: String, reason: String)

    /// The event on one line, such as
    /// `← 200 GET https://cats.example/cuddle (12.3 ms, 42 bytes, HTTP/2)`: for a response the
    /// time is the client's from sending to the response, and the version is the transport's
    /// when it knows it; `⊙ 200 GET https://cats.example/cuddle (cache: hit)` for an answer
    /// from the cache; `! connectTimeout is ignored by URLSessionTransport: …` for a setting
    /// the transport cannot honour.
    public var description: String {
        switch self {
        case .requestSent(let method, let url, let headers):
            let shown = headers.value.fields.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
            return "→ \(method) \(url)" + (shown.isEmpty ? "" : " [\(shown)]")
        case .responseReceived(let method, let url, let status, let duration, let size, _, let metrics):
            let version = metrics?.httpVersion.map { ", \($0)" } ?? ""
            return String(
                format: "← %d %@ %@ (%.1f ms, %d bytes%@)", status, method, url.description, duration * 1000, size,
                version)
        case .cacheAnswered(let method, let url, let status, let cacheStatus):
            return "⊙ \(status) \(method) \(url) (cache: \(cacheStatus))"
        case .retry(let method, let url, let attempt, let reason, let delay):
            return String(
                format: "↻ %@ %@ attempt %d failed (%@); retrying in %.2f s", method, url.description, attempt,
                reason.description, delay)
        case .retryDenied(let method, let url, let attempt, let reason, let denial):
            return "↻ \(method) \(url) attempt \(attempt) failed (\(reason)); not retried: \(denial)"
        case .hostPaused(let host, let seconds, let status):
            return String(format: "‖ %@ paused for %.2f s after a %d", host, seconds, status)
        case .failure(let method, let url, let error):
            return "✗ \(method) \(url) failed: \(error)"
        case .requestBodyCompressed(let method, let url, let sizes):
            return "⇣ \(method) \(url) body \(sizes)"
        case .settingIgnored(let setting, let transport, let reason):
            return "! \(setting) is ignored by \(transport): \(reason)"
        }
    }
}
