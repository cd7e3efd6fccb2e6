import Foundation

/// What a ``RequestInterceptor`` wants done with a failed attempt.
public enum RetryDecision: Sendable, Hashable {
    /// Fail the call with the attempt's error.
    case doNotRetry
    /// Send the request again now.
    case retry
    /// Send the request again after this many seconds.
    case retryAfter(TimeInterval)
}
