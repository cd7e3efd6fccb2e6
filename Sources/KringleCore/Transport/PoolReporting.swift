import Foundation

/// A transport that can tell what its connection pool holds (``NetworkClient/poolStatistics()``).
public protocol PoolReporting: Transport {
    /// Per host with requests running or waiting, what the pool holds now.
    func poolStatistics() -> Promise<[HostPoolStatistics]>
}

extension NetworkClient {
    /// What the transport's connection pool holds per host, with requests running or
    /// waiting, as far as the transport can tell (see ``HostPoolStatistics``); empty for a
    /// transport that cannot tell at all.
    ///
    /// ```swift
    /// let pool = try await client.poolStatistics().value
    /// for host in pool { print(host.host, host.inUse, host.queued ?? -1) }
    /// ```
    public func poolStatistics() -> Promise<[HostPoolStatistics]> {
        (transport as? any PoolReporting)?.poolStatistics() ?? Promise([])
    }
}
