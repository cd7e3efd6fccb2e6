import Foundation
@_spi(KringleInternals) import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport: PoolReporting {
    /// Per host, the session's tasks that have not finished; URLSession tells neither which
    /// of them wait for a connection nor what its pool holds (see ``/KringleCore/HostPoolStatistics``).
    public func poolStatistics() -> Promise<[HostPoolStatistics]> {
        let answer = Promise<[HostPoolStatistics]>.pending()
        session.getAllTasks { tasks in
            var running: [String: Int] = [:]
            for task in tasks where task.state == .running {
                guard let url = task.originalRequest?.url else { continue }
                running[url.hostKey, default: 0] += 1
            }
            answer.fulfill(
                running.map { HostPoolStatistics(host: $0.key, inUse: $0.value, queued: nil) }.sorted {
                    $0.host < $1.host
                })
        }
        return answer
    }
}
