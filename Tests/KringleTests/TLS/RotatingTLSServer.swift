import Foundation

/// An HTTPS server of one test's own (an `https_server.py` process with one listener) whose
/// certificate and key are files in a directory of its own, read again before every
/// handshake: ``present(_:)`` replaces them, as a certificate renewal and a reload would, and
/// the next connection gets the new certificate. The TLS context stays, and with it the
/// session tickets the server has issued, so a client could still resume a session made
/// under the old certificate.
///
/// Not the shared ``TLSTestServer``: tests that rotate certificates run in parallel, so each
/// has a server to itself. The process ends with the test process, as the shared one does.
struct RotatingTLSServer {
    /// The listener's port on 127.0.0.1.
    let port: Int
    private let directory: URL

    /// Starts a server presenting the fixture `name` (`localhost` for `localhost.pem` and
    /// `localhost.key`).
    init(presenting name: String) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kringle-rotating-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.place(name, in: directory)
        let listener: [String: Any] = [
            "name": "rotating", "certificate": Self.certificate(in: directory).path,
            "key": Self.key(in: directory).path, "reloadsCertificate": true,
        ]
        let ports: [String: Int]
        do {
            let configuration = try JSONSerialization.data(withJSONObject: [listener])
            ports = try await PythonTestServer.start(
                TLSTestServer.fixture("https_server.py"), arguments: [String(decoding: configuration, as: UTF8.self)],
                expecting: ["rotating"]
            ).get()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        self.directory = directory
        port = ports["rotating"] ?? 9
    }

    /// Makes the next handshake present the fixture `name`. Each file is replaced in one
    /// step; call it while no connection is being made.
    func present(_ name: String) throws {
        try Self.place(name, in: directory)
    }

    private static func place(_ name: String, in directory: URL) throws {
        try TLSTestServer.contents("\(name).key").write(to: key(in: directory), options: .atomic)
        try TLSTestServer.contents("\(name).pem").write(to: certificate(in: directory), options: .atomic)
    }

    private static func certificate(in directory: URL) -> URL { directory.appendingPathComponent("server.pem") }
    private static func key(in directory: URL) -> URL { directory.appendingPathComponent("server.key") }

    /// `https://127.0.0.1:<port><path>`.
    func url(path: String = "/") -> URL {
        URL(string: "https://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Removes the certificate's directory (the process is left to end with the test
    /// process).
    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
