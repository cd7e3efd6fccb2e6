import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Transport``: URLSession, set up the way Kringle needs it.
///
/// It has its own `URLSession` (never `.shared`) whose delegate refuses redirects, so every
/// hop reaches the client; URLSession's cookie handling is fully off (the client's
/// ``CookieJar`` does it); there is no URL cache.
///
/// On Linux, FoundationNetworking folds repeated response headers into one comma-joined
/// value. The adapter splits a folded `Set-Cookie` back into its cookies, keeping
/// `Expires=Wed, 21 Oct 2015 …` dates whole. One case cannot be told apart: a single
/// header `Set-Cookie: a=b, c=d` arrives exactly like two headers `a=b` and `c=d`, and is
/// read as two cookies. `KringleCurl`'s `CurlTransport` keeps every header line as sent.
/// Other repeated headers stay folded into one comma-joined value (RFC 9110 §5.3 allows
/// it), and header order across different names is not kept. A 401 that carries a
/// `WWW-Authenticate` challenge is returned as a response (authentication is the client's
/// business), but FoundationNetworking on Linux does not deliver its body.
///
/// ```swift
/// let client = NetworkClient(transport: URLSessionTransport())
/// ```
public final class URLSessionTransport: Transport {
    private let session: URLSession
    private let delegate: URLSessionTransportDelegate

    /// Creates a transport with its own session.
    ///
    /// - Parameter configuration: A base configuration (ephemeral by default); cookie and
    ///   cache settings are overridden as described above.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        let configuration = configuration
        // On Linux anything less than all three still stores or sends cookies.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // One serial delegate queue: a concurrent one delivers data callbacks of one task at
        // once, and serialising cancellation with completion on it keeps `cancel()` away from
        // finished tasks.
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "kringle.urlsession-delegate"
        delegate = URLSessionTransportDelegate(queue: delegateQueue)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    deinit {
        // The session holds its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    public func send(_ request: URLRequest) -> Promise<HTTPResponse> {
        var request = request
        // URLSession on Linux rounds timeouts below a second down (0.5 s fails at once) and
        // ignores the resource timeout; the client keeps a precise timeout of its own, so give
        // URLSession a looser one that never fires first.
        request.timeoutInterval = request.timeoutInterval.rounded(.up) + 1
        let task = session.dataTask(with: request)
        let promise = delegate.register(task)
        let delegate = delegate
        promise.onCancel { delegate.cancel(task) }
        task.resume()
        return promise
    }
}
