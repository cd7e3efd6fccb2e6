import Foundation
import Kringle

/// The Python server of the compression tests (`Fixtures/compression/inflating_server.py`):
/// it inflates each request body with the standard library's `gzip` and `zlib` as the body
/// arrives, checksums checked, and answers with the inflated bytes, so a test compares them
/// with what it sent. Started once per test process, shared by every test.
///
/// A path begins with the coding the test expects (``path(_:expecting:)``): a body that
/// arrives with another, or with none because compression was silently dropped, gets 415,
/// so no test passes on a body that was never compressed.
///
/// Its answer's headers say what arrived: `X-Content-Encoding`, `X-Received-Bytes`,
/// `X-Received-Framing` (`chunked` or `content-length`) and `X-Content-Type`. A body that
/// does not inflate gets 400, a coding it does not know 415.
final class InflatingServer: Sendable {
    /// The server of this test process, started on first use; or why it could not start.
    static let shared = Task {
        await PythonTestServer.start(
            URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent()  // Compression
                .deletingLastPathComponent()  // KringleTests
                .appendingPathComponent("Fixtures/compression/inflating_server.py"),
            expecting: ["port"]
        ).map { InflatingServer(port: $0["port"] ?? 9) }
    }

    /// `http://127.0.0.1:<port>`.
    let baseURL: URL

    private init(port: Int) {
        baseURL = URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// `path` under the coding the server is to insist on: `/gzip/logs` for `("/logs", .gzip)`,
    /// `/identity/logs` for `nil`.
    static func path(_ path: String, expecting coding: RequestCompression.Coding?) -> String {
        "/" + (coding?.rawValue ?? "identity") + path
    }

    /// `path` on the server, where only a body sent with `coding` is accepted.
    func url(_ path: String, expecting coding: RequestCompression.Coding?) -> URL {
        baseURL.appendingPathComponent(Self.path(path, expecting: coding))
    }
}
