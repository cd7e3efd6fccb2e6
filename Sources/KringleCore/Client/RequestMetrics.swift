import Foundation

/// Where the time of a whole call went: every exchange it made, redirect hops and retries
/// included, each with its transport's ``TransferMetrics``.
///
/// ```swift
/// let response = try await client.request(.get, CatEndpoint.cuddle, as: Cat.self).value
/// if let metrics = response.metrics {
///     print(metrics.total, metrics.exchanges.count, metrics.retries)
///     print(metrics.exchanges.last?.metrics?.httpVersion ?? "unknown version")
/// }
/// ```
public struct RequestMetrics: Sendable, Hashable {
    /// One request the call sent and what came back.
    public struct Exchange: Sendable, Hashable {
        /// The attempt it belonged to, from 1 (a retry starts the next attempt).
        public var attempt: Int
        /// Where it went.
        public var url: URL
        /// The status that came back.
        public var statusCode: Int
        /// What the transport measured, if it measures.
        public var metrics: TransferMetrics?

        /// An exchange.
        public init(attempt: Int, url: URL, statusCode: Int, metrics: TransferMetrics?) {
            self.attempt = attempt
            self.url = url
            self.statusCode = statusCode
            self.metrics = metrics
        }
    }

    /// The exchanges in the order they happened: each attempt's redirect hops, then the
    /// next attempt's. An attempt that ended without a response (a refused connection, a
    /// time-out) has none.
    public var exchanges: [Exchange]

    /// The retries the call took: the last exchange's attempt, less one.
    public var retries: Int {
        (exchanges.last?.attempt ?? 1) - 1
    }

    /// From the first exchange's start to the last one's end, when the transport measured
    /// them.
    public var total: TimeInterval? {
        guard let first = exchanges.first?.metrics, let last = exchanges.last?.metrics else { return nil }
        return last.start.addingTimeInterval(last.total).timeIntervalSince(first.start)
    }

    /// The metrics of exchanges.
    public init(exchanges: [Exchange]) {
        self.exchanges = exchanges
    }
}
