import Foundation
@_spi(KringleInternals) import KringlePromise

/// Paces the requests a client sends to each host, and holds them all while a host says it
/// is overloaded.
///
/// Set on ``NetworkClient/Configuration-swift.struct/throttle``; off by default. With it:
/// - **The host's own limits** (``followsServerLimits``, on by default): a `429` or `503`
///   with `Retry-After`, or `RateLimit` fields saying no quota remains
///   (draft-ietf-httpapi-ratelimit-headers), pause every request to that host until the time
///   it names, not only the call that got the answer; a `RateLimit-Policy` (`q` requests per
///   `w` seconds) paces the host's requests evenly at that rate. Until a host has answered
///   once, its first request goes alone and the others wait for its answer, so that a burst
///   of calls to a host whose limits are not known yet does not overrun them.
/// - **A rate of your own** (``rate``): at most so many requests per interval to each host,
///   with bursts up to ``Rate/burst``.
///
/// A call held here keeps its deadline and its cancellation: one whose deadline would pass
/// before its turn fails at once with ``KringleError/throttled(host:wait:)``, and cancelling
/// it frees its turn. Each pause is logged
/// (``KringleLogEvent/hostPaused(host:seconds:statusCode:)``). Hosts are told apart by name
/// and port (`api.example.com`, `127.0.0.1:8080`).
///
/// ```swift
/// var configuration = NetworkClient.Configuration()
/// configuration.throttle = HostThrottle()                                   // the server's limits
/// configuration.throttle = HostThrottle(rate: .init(requests: 10, per: 1))  // and 10 per second
/// ```
///
/// A class: every copy of a configuration that holds it, and every client given it, share
/// its state, so that clients calling one API together keep to one pace.
public final class HostThrottle: Sendable {
    /// A pace of requests per host: at most ``requests`` per ``interval`` seconds, evenly,
    /// with up to ``burst`` at once after a quiet spell (a token bucket of that size).
    public struct Rate: Sendable, Hashable {
        /// Requests per interval.
        public var requests: Int
        /// The interval, in seconds.
        public var interval: TimeInterval
        /// Requests that may go at once after a quiet spell; 1 spaces them evenly.
        public var burst: Int

        /// `requests` per `interval` seconds, with bursts of up to `burst`.
        public init(requests: Int, per interval: TimeInterval, burst: Int = 1) {
            self.requests = requests
            self.interval = interval
            self.burst = burst
        }

        /// Seconds between requests; zero for a rate that sets no limit.
        var spacing: TimeInterval {
            requests > 0 && interval > 0 ? interval / Double(requests) : 0
        }
    }

    /// Your own pace per host; `nil` (the default) leaves pacing to the hosts' limits.
    public let rate: Rate?
    /// Whether the hosts' `429` and `503` answers with `Retry-After`, and their `RateLimit`
    /// and `RateLimit-Policy` fields, pause and pace their requests.
    public let followsServerLimits: Bool
    /// The longest pause a host's answer may impose, in seconds: a `Retry-After` of a day
    /// holds requests this long at most.
    public let maximumPause: TimeInterval

    /// Hosts kept before the quietest is forgotten: a client that calls ever new hosts
    /// keeps bounded memory.
    static let maximumHosts = 1024

    let hosts = Locked<[String: HostPace]>([:])

    /// A throttle that follows the hosts' limits, and paces each host at `rate` if given.
    ///
    /// - Parameters:
    ///   - rate: Your own pace per host; none by default.
    ///   - followsServerLimits: Whether hosts' answers pause and pace their requests; yes by
    ///     default.
    ///   - maximumPause: The longest pause a host's answer may impose; 60 s by default.
    public init(rate: Rate? = nil, followsServerLimits: Bool = true, maximumPause: TimeInterval = 60) {
        self.rate = rate
        self.followsServerLimits = followsServerLimits
        self.maximumPause = max(0, maximumPause)
    }
}
