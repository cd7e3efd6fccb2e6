import Foundation
import Kringle

/// The Python server of the compression tests (`Fixtures/compression/inflating_server.py`):
/// it inflates each request body with the standard library's `gzip` and `zlib` as the body
/// arrives, checksums checked, and answers with the inflated bytes, so a test compares them
/// with what it sent. Started once per test process, shared by every test.
///
/// Its answer's headers say what arrived: `X-Content-Encoding`, `X-Received-Bytes`,
/// `X-Received-Framing` (`chunked` or `content-length`) and `X-Content-Type`. A body that
/// does not inflate gets 400, a coding it does not know 415.
final class InflatingServer: Sendable {
    /// The server of this test process, started on first use; or why it could not start.
    static let shared: Result<InflatingServer, PythonTestServerError> = PythonTestServer.start(
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Compression
            .deletingLastPathComponent()  // KringleTests
            .appendingPathComponent("Fixtures/compression/inflating_server.py"),
        expecting: ["port"]
    ).map { InflatingServer(port: $0["port"] ?? 9) }

    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    private init(port: Int) {
        baseURL = URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// `path` on the server.
    func url(_ path: String) -> URL {
        baseURL.appendingPathComponent(path)
    }
}
