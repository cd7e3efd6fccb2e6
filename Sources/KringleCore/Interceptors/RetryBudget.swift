import Foundation
@_spi(KringleInternals) import KringlePromise

/// A cap on retries across calls, per host: over a sliding window, the retries sent to a
/// host may number at most ``ratio`` of the first attempts sent to it, plus
/// ``minimumRetries``.
///
/// Retries that each call makes on its own multiply the load on a server that is already
/// failing: with `maxRetryCount = 3`, an outage quadruples it. A budget bounds the extra
/// load at 20% by default (the figure of Finagle's and reqwest's budgets, and of gRPC's
/// retry throttling), while the floor lets a script that sends a request now and then still
/// retry it. A retry the budget denies is not sent: the call fails with the attempt's error,
/// and the client's logger says why
/// (``KringleLogEvent/retryDenied(method:url:attempt:reason:denial:)`` with
/// ``RetryDenial/budget(host:)``).
///
/// Per host rather than per client: an outage is usually one host's, and a client that
/// calls several APIs keeps its retries for the healthy ones. The budget is a class, shared
/// by every copy of the configuration that holds it (clients made with `newClient`
/// included); give several clients the same one to cap their retries together.
///
/// ```swift
/// var configuration = NetworkClient.Configuration()
/// configuration.interceptors = [RetryPolicy()]
/// configuration.retryBudget = RetryBudget(ratio: 0.1)   // or nil: no cap across calls
/// ```
///
/// Only clients with interceptors retry, so only they count their requests here. A retry
/// after a `401` or `407` (an ``AuthenticationInterceptor`` sending fresh credentials) is
/// never denied: the server asked for it.
public final class RetryBudget: Sendable {
    /// Retries allowed per first attempt over the window: 0.2 lets 1,000 calls make 200
    /// retries between them.
    public let ratio: Double
    /// Retries allowed over the window whatever the first attempts.
    public let minimumRetries: Int
    /// The seconds over which attempts are counted.
    public let window: TimeInterval

    /// The window is kept as this many slices: an attempt leaves the count when its slice
    /// does, so the window slides in steps of a tenth.
    private static let slices = 10
    /// Hosts kept before the quietest are forgotten: a client that calls ever new hosts
    /// keeps bounded memory.
    private static let maximumHosts = 1024

    private let hosts = Locked<[String: Counts]>([:])

    /// A budget of `ratio` retries per first attempt, plus `minimumRetries`, over the last
    /// `window` seconds, per host.
    ///
    /// - Parameters:
    ///   - ratio: Retries per first attempt; 0.2 by default. Zero or less allows only the
    ///     minimum.
    ///   - minimumRetries: Retries always allowed over the window; 10 by default.
    ///   - window: Seconds over which attempts count; 10 by default.
    public init(ratio: Double = 0.2, minimumRetries: Int = 10, window: TimeInterval = 10) {
        self.ratio = max(0, ratio)
        self.minimumRetries = max(0, minimumRetries)
        self.window = window > 0 ? window : 10
    }

    /// Counts a first attempt to `host` at `now` (the client's clock, in nanoseconds).
    func recordFirstAttempt(to host: String, now: UInt64) {
        hosts.withLock { hosts in
            hosts[host, default: Counts()].add(first: 1, retries: 0, slice: slice(of: now))
            if hosts.count > Self.maximumHosts { Self.forgetQuietest(&hosts) }
        }
    }

    /// Whether a retry to `host` may go at `now`; one that may is counted.
    func withdrawRetry(to host: String, now: UInt64) -> Bool {
        let slice = slice(of: now)
        return hosts.withLock { hosts in
            var counts = hosts[host, default: Counts()]
            counts.forget(before: slice - Int64(Self.slices) + 1)
            let allowed = Double(counts.retries + 1) <= Double(minimumRetries) + ratio * Double(counts.firsts)
            if allowed { counts.add(first: 0, retries: 1, slice: slice) }
            hosts[host] = counts
            return allowed
        }
    }

    /// Whether a retry after `error` is one the budget caps: every retry but one that sends
    /// credentials asked for (a `401` or `407` that an ``AuthenticationInterceptor``
    /// answers), which a healthy server's answer sets off and which adds no load to a
    /// failing one.
    static func counts(_ error: any Error) -> Bool {
        guard case KringleError.unacceptableStatusCode(let status, _) = error else { return true }
        return status != 401 && status != 407
    }

    private func slice(of now: UInt64) -> Int64 {
        Int64(Double(now) / 1e9 / (window / Double(Self.slices)))
    }

    private static func forgetQuietest(_ hosts: inout [String: Counts]) {
        guard let quietest = hosts.min(by: { $0.value.latestSlice < $1.value.latestSlice }) else { return }
        hosts.removeValue(forKey: quietest.key)
    }

    /// One host's attempts per slice of the window, oldest first.
    private struct Counts: Sendable {
        private var slices: [(index: Int64, firsts: Int, retries: Int)] = []
        private(set) var firsts = 0
        private(set) var retries = 0

        var latestSlice: Int64 { slices.last?.index ?? .min }

        mutating func add(first: Int, retries added: Int, slice: Int64) {
            forget(before: slice - Int64(RetryBudget.slices) + 1)
            if slices.last?.index == slice {
                slices[slices.count - 1].firsts += first
                slices[slices.count - 1].retries += added
            } else {
                slices.append((slice, first, added))
            }
            firsts += first
            retries += added
        }

        mutating func forget(before oldest: Int64) {
            while let first = slices.first, first.index < oldest {
                firsts -= first.firsts
                retries -= first.retries
                slices.removeFirst()
            }
        }
    }
}
