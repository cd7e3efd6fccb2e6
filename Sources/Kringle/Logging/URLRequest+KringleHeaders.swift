import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The request's headers as ``HTTPHeaders``, sorted by name.
    var kringleHeaders: HTTPHeaders {
        HTTPHeaders(
            (allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }.map { ($0.key, $0.value) }
        )
    }
}
