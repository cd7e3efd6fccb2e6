import Foundation

/// A transport that takes the client's bounds for an exchange itself: it holds the response
/// within ``ResponseLimits`` while the body arrives, and, when ``enforcesTimeLimits``, ends
/// the whole exchange at the attempt's ``Deadline``, to the millisecond, rejecting with
/// ``KringleError/timedOut(_:)`` (on the system clock the client then sets no timer of its
/// own, which saves a promise, a timer and their bookkeeping on every request).
///
/// Kringle's own: both of its transports conform (`package`, for the URLSession adapter's
/// module). The client checks a response from any
/// other transport against the limits once it has arrived.
package protocol ClientSending: Transport {
    /// Whether ``send(_:deadline:connectTimeout:limits:)`` enforces its deadline. (URLSession
    /// on Linux rounds time limits to whole seconds, so `URLSessionTransport` relies on the
    /// client's timer.)
    var enforcesTimeLimits: Bool { get }

    /// ``Transport/send(_:)``, the response held within `limits` and, when the transport
    /// ``enforcesTimeLimits``, the whole exchange ended at `deadline` (a point on the
    /// ``/KringlePromise/SystemClock``; `nil` for no limit), whatever the request's
    /// ``HTTPRequest/timeout`` says. `connectTimeout`, when given, bounds getting a connection
    /// ready, rejecting with `KringleError.timedOut(.connect)`, where the transport can (see
    /// ``ignoredSettings(of:)``).
    func send(
        _ request: ValidatedRequest, deadline: Deadline?, connectTimeout: TimeInterval?, limits: ResponseLimits
    ) -> Promise<HTTPResponse>

    /// The settings of `configuration` this transport cannot honour: the client reports them
    /// once through its logger, when it is made, and goes on without them (see the table in
    /// ``NetworkClient/Configuration-swift.struct``).
    func ignoredSettings(of configuration: NetworkClient.Configuration) -> [IgnoredSetting]
}
