import Foundation

extension CurlTransport: PoolReporting {
    /// Per host, the transfers running and the requests waiting under the connection limits;
    /// the connections libcurl keeps are not told (see ``HostPoolStatistics``). Answered by
    /// the driving thread between two turns.
    public func poolStatistics() -> Promise<[HostPoolStatistics]> {
        guard case .success(let engine) = engine else { return Promise([]) }
        return engine.poolStatistics()
    }
}
