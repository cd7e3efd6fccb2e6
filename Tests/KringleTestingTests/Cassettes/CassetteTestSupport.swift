import Foundation
import KringleTesting

/// An endpoint built from parts, so each test states exactly what it asks for.
struct CassetteEndpoint: Endpoint {
    var baseURL: URL
    var path: String
    var queryItems: [URLQueryItem] = []
    var headers: [String: String] = [:]
}

/// A small payload for typed requests and responses.
struct CassetteCat: Codable, Sendable, Equatable {
    var name: String
    var mood: String
}

/// A fresh folder under the temporary directory, for one test's cassettes.
func temporaryCassetteFolder() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cassettes-\(UUID().uuidString)")
}

extension LoopbackServer {
    /// An endpoint on this server.
    func endpoint(_ path: String, query: [URLQueryItem] = [], headers: [String: String] = [:]) -> CassetteEndpoint {
        CassetteEndpoint(baseURL: baseURL, path: path, queryItems: query, headers: headers)
    }
}

/// The ``CassetteError`` a transport's refusal carries: a cassette rejects a request with
/// `KringleError.transport`, the ``CassetteError`` its underlying error; `nil` for any other.
func cassetteError(_ error: (any Error)?) -> CassetteError? {
    guard case KringleError.transport(let underlying as CassetteError)? = error else { return nil }
    return underlying
}
