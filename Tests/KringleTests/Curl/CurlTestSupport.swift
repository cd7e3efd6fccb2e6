import ChildProcess
import Foundation
import Kringle
import KringleTesting

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
import KringleTestSupport
#endif

/// A request built in one expression.
func makeRequest(
    _ url: URL,
    method: String = "GET",
    body: Data? = nil,
    headers: [String: String] = [:],
    timeout: TimeInterval? = nil
) -> HTTPRequest {
    var request = HTTPRequest(url: url)
    request.method = HTTPMethod(rawValue: method)
    request.body = body
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
        request.headers[name] = value
    }
    if let timeout {
        request.timeout = timeout
    }
    return request
}

/// Runs `body(lane)` on `count` threads of their own (they may block) and returns when all
/// have finished.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let finished = Counter()
        for lane in 0..<count {
            let thread = Thread {
                body(lane)
                if finished.increment() == count {
                    continuation.resume()
                }
            }
            thread.start()
        }
    }
}

/// A port on 127.0.0.1 where nothing listens: a server's port just after it shut down.
func refusedPort() throws -> Int {
    let server = try LoopbackServer { _ in .status(204) }
    let port = server.port
    server.shutdown()
    return port
}

/// Compresses `data` with the system's gzip, as a server would before sending
/// `Content-Encoding: gzip`.
func gzipped(_ data: Data) throws -> Data {
    let candidates = ["/usr/bin/gzip", "/bin/gzip"]
    guard let gzip = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw CocoaError(.fileNoSuchFile)
    }
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-curl-\(UUID().uuidString)")
    try data.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let compressed = try ChildProcess.run(gzip, ["-c", "-n", file.path])
    guard compressed.status == 0 else { throw CocoaError(.fileReadUnknown) }
    return compressed.output
}
