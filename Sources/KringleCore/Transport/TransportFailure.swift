import Foundation

/// A transport's error that can tell whether the request surely did not complete
/// (refused, unresolved, timed out before an answer…), so that a retry cannot apply it twice.
///
/// ``RetryPolicy`` retries such failures. `URLError` is judged by its code; adapters
/// conform their own error types (as ``CurlError`` does).
public protocol TransportFailure: Error {
    /// Whether the request never completed, so sending it again is safe for an
    /// idempotent method.
    var requestNeverCompleted: Bool { get }
}

extension URLError: TransportFailure {
    /// Whether the code says the request never completed: a time-out, a lost or refused
    /// connection, a host that did not resolve, no network, a failed TLS handshake, or a
    /// connection that closed without an answer (`badServerResponse`, which is how
    /// FoundationNetworking reports libcurl's "Empty reply from server", the
    /// `CURLE_GOT_NOTHING` that ``CurlError`` counts too).
    public var requestNeverCompleted: Bool {
        switch code {
        case .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost,
            .dnsLookupFailed, .notConnectedToInternet, .secureConnectionFailed, .badServerResponse:
            return true
        default:
            return false
        }
    }
}
