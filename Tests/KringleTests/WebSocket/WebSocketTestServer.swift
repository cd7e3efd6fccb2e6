import Foundation
import Kringle
import KringleTestSupport

/// The Python `websockets` server of the interop tests (`Fixtures/websocket/websocket_server.py`),
/// started once per test process: listeners with and without permessage-deflate, one over
/// TLS (the fixtures' `localhost.pem`, signed by the private `ca.pem`) and one on a Unix
/// socket. Paths choose what a connection gets (see the script).
final class WebSocketTestServer: Sendable {
    static let shared = Task {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kringle-ws-\(ProcessInfo.processInfo.processIdentifier).sock")
        try? FileManager.default.removeItem(at: socket)
        return await PythonTestServer.start(
            fixtures.appendingPathComponent("websocket/websocket_server.py"),
            arguments: [
                socket.path, fixtures.appendingPathComponent("tls/localhost.pem").path,
                fixtures.appendingPathComponent("tls/localhost.key").path,
            ],
            expecting: ["port", "uncompressed", "tls"], interpreter: .websockets
        ).map { WebSocketTestServer(ports: $0, socket: socket) }
    }

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // WebSocket
        .deletingLastPathComponent()  // KringleTests
        .appendingPathComponent("Fixtures")

    /// A file under `Fixtures/`.
    static func fixture(_ path: String) -> URL {
        fixtures.appendingPathComponent(path)
    }

    let port: Int
    let uncompressedPort: Int
    let tlsPort: Int
    let socket: URL

    private init(ports: [String: Int], socket: URL) {
        port = ports["port"] ?? 9
        uncompressedPort = ports["uncompressed"] ?? 9
        tlsPort = ports["tls"] ?? 9
        self.socket = socket
    }

    /// The server's endpoint for `path`: `ws://127.0.0.1:<port>`, without permessage-deflate
    /// when `compressed` is false, or `wss://localhost:<tls port>` for `secure`.
    func endpoint(_ path: String, compressed: Bool = true, secure: Bool = false) -> ClientTestEndpoint {
        let base =
            secure
            ? "wss://localhost:\(tlsPort)" : "ws://127.0.0.1:\(compressed ? port : uncompressedPort)"
        return ClientTestEndpoint(baseURL: URL(string: base)!, path: path)
    }

    /// `path` over the Unix socket (`ws+unix://`).
    func unixEndpoint(_ path: String) -> ClientTestEndpoint {
        let encoded = socket.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return ClientTestEndpoint(baseURL: URL(string: "ws+unix://\(encoded)")!, path: path)
    }
}
