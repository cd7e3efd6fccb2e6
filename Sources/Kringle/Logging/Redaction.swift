import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPHeaders {
    /// These headers with the values of the `redacted` names (case-insensitive) replaced by
    /// `<redacted>`.
    public func redacting(_ redacted: Set<String>) -> HTTPHeaders {
        let lowercased = Set(redacted.map { $0.lowercased() })
        return HTTPHeaders(
            fields.map { field in
                (field.name, lowercased.contains(field.name.lowercased()) ? "<redacted>" : field.value)
            })
    }
}

extension URLRequest {
    /// The request's headers as ``HTTPHeaders``, sorted by name.
    var kringleHeaders: HTTPHeaders {
        HTTPHeaders(
            (allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }.map { ($0.key, $0.value) }
        )
    }
}
