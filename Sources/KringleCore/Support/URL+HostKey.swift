import Foundation

extension URL {
    /// What the client's per-host state (``RetryBudget``, ``HostThrottle``) is kept under: the
    /// host in lower case, with the port when the URL names one (`api.example.com`,
    /// `127.0.0.1:8080`); empty for a URL without a host.
    package var hostKey: String {
        let host = host?.lowercased() ?? ""
        return port.map { "\(host):\($0)" } ?? host
    }
}
