import Foundation
import Kringle
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Helpers of the TLS tests, over the shared ``TLSTestServer``.

extension CurlTransport.Configuration {
    /// A configuration that trusts the test CA (`Fixtures/tls/ca.pem`) instead of the system's
    /// authorities, changed by `configure`.
    static func trustingTestCA(_ configure: (inout Self) -> Void = { _ in }) -> Self {
        var configuration = Self(certificateAuthorityFile: TLSTestServer.fixture("ca.pem").path)
        configure(&configuration)
        return configuration
    }
}

/// What one request over TLS came to: the response, or the TLS failure it was refused with.
enum TLSOutcome: Equatable, CustomStringConvertible {
    /// A response; the client certificate the server saw (its CN, or "none").
    case answered(status: Int, clientCertificate: String)
    case refused(TLSFailure)
    /// Anything else, described.
    case unexpected(String)

    var description: String {
        switch self {
        case .answered(let status, let client): return "answered \(status) (client certificate: \(client))"
        case .refused(let failure): return "refused: \(failure)"
        case .unexpected(let text): return "unexpected: \(text)"
        }
    }
}

/// Sends a GET for `url` with `transport` and sorts out what came back; a refusal must name
/// the request's URL to count as ``TLSOutcome/refused(_:)``.
func tlsOutcome(_ transport: any Transport, _ url: URL) async -> TLSOutcome {
    switch await transport.send(HTTPRequest(url: url)).outcome() {
    case .success(let response):
        let body = String(decoding: response.body, as: UTF8.self)
        guard body == "hello over TLS\n" else { return .unexpected("body \(body.debugDescription)") }
        return .answered(status: response.statusCode, clientCertificate: response.headers["X-Client-Certificate"] ?? "")
    case .failure(KringleError.tls(let failedURL, let failure, let underlying)):
        guard failedURL.port == url.port, failedURL.host == url.host else {
            return .unexpected("refused for \(failedURL) instead of \(url): \(failure), \(underlying)")
        }
        return .refused(failure)
    case .failure(let error):
        return .unexpected("\(error)")
    }
}
