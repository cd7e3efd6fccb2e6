import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that limits a whole exchange to a given time itself, to the millisecond, and
/// then rejects with ``KringleError/timedOut``: on the real clock the client sets no timer of
/// its own for such a transport, which saves a promise, a timer and their bookkeeping on
/// every request.
///
/// Internal: only ``CurlTransport`` makes that promise. (URLSession on Linux rounds time
/// limits to whole seconds, so `URLSessionTransport` relies on the client's timer.)
protocol TimeLimitedSending: Transport {
    /// ``Transport/send(_:)``, the whole exchange limited to `seconds` (positive and finite),
    /// whatever the request's `timeoutInterval` says.
    func send(_ request: URLRequest, timeLimit seconds: TimeInterval) -> Promise<HTTPResponse>
}
