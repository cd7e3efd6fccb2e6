import Foundation

/// Why the client did not start a retry an interceptor asked for, as
/// ``KringleLogEvent/retryDenied(method:url:attempt:reason:denial:)`` reports it. The call
/// fails with the failed attempt's error.
public enum RetryDenial: Sendable, Hashable, CustomStringConvertible {
    /// The retry, after its wait, could not start before the call's deadline (its
    /// ``NetworkClient/Configuration-swift.struct/timeout``, the endpoint's or the call's
    /// own): `delay` seconds asked for, `timeLeft` seconds left.
    case deadline(delay: TimeInterval, timeLeft: TimeInterval)
    /// The client's ``RetryBudget`` has no retry left for the host: too many of its recent
    /// requests were retries.
    case budget(host: String)

    /// The reason, for a person.
    public var description: String {
        switch self {
        case .deadline(let delay, let timeLeft):
            return String(format: "a retry in %.2f s would pass the call's deadline, %.2f s away", delay, timeLeft)
        case .budget(let host):
            return "the retry budget for \(host) is spent"
        }
    }
}
