import Foundation

/// The HTTPS server of the TLS tests: one Python process (`Fixtures/tls/https_server.py`,
/// the standard library's `ssl` module) with one listener on 127.0.0.1 per certificate or
/// policy, started once per test process and shared by every TLS test.
///
/// The certificates are committed fixtures (`Scripts/make-tls-fixtures.sh` made them), so
/// starting costs one Python start-up and no key generation. The server exits when the
/// test process does: it watches its parent, and nothing has to stop it.
///
/// Every listener answers any request with 200 and the body "hello over TLS\n", and names
/// the client certificate it saw in `X-Client-Certificate` ("none" without one).
final class TLSTestServer: Sendable {
    /// What each listener presents and demands.
    enum Listener: String, CaseIterable, Sendable {
        /// `localhost.pem`, from the test CA, for localhost and 127.0.0.1.
        case trusted
        /// `expired.pem`, from the test CA, valid only on 1 January 2000.
        case expired
        /// `wrong-host.pem`, from the test CA, for wrong.example only.
        case wrongHost
        /// `self-signed.pem`, for localhost and 127.0.0.1, signed by its own key.
        case selfSigned
        /// `localhost.pem`, and a client certificate from the test client CA required.
        case clientCertificateRequired
        /// `localhost.pem`, TLS 1.2 at most.
        case tls12Only

        fileprivate var settings: [String: String] {
            let (certificate, extra): (String, [String: String]) =
                switch self {
                case .trusted: ("localhost", [:])
                case .expired: ("expired", [:])
                case .wrongHost: ("wrong-host", [:])
                case .selfSigned: ("self-signed", [:])
                case .clientCertificateRequired:
                    ("localhost", ["clientCA": TLSTestServer.fixture("client-ca.pem").path])
                case .tls12Only: ("localhost", ["maximumVersion": "TLSv1_2"])
                }
            return [
                "name": rawValue,
                "certificate": TLSTestServer.fixture("\(certificate).pem").path,
                "key": TLSTestServer.fixture("\(certificate).key").path,
            ].merging(extra) { first, _ in first }
        }
    }

    /// The server of this test process, started on first use; or why it could not start.
    static let shared = Task { await start() }

    /// Each listener's port on 127.0.0.1.
    let ports: [String: Int]

    private init(ports: [String: Int]) {
        self.ports = ports
    }

    /// `https://<host>:<port><path>` for `listener`.
    func url(_ listener: Listener, host: String = "127.0.0.1", path: String = "/") -> URL {
        let port = ports[listener.rawValue] ?? 9
        return URL(string: "https://\(host):\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// `Tests/KringleTests/Fixtures/tls`, found next to this source file.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TLS
        .deletingLastPathComponent()  // KringleTests
        .appendingPathComponent("Fixtures/tls", isDirectory: true)

    /// A file of the TLS fixtures, such as `ca.pem`.
    static func fixture(_ name: String) -> URL {
        fixtures.appendingPathComponent(name)
    }

    /// The contents of a fixture.
    static func contents(_ name: String) throws -> Data {
        try Data(contentsOf: fixture(name))
    }

    /// Starts the server and reads the ports it reports on its first line of output.
    private static func start() async -> Result<TLSTestServer, PythonTestServerError> {
        let listeners = Listener.allCases.map(\.settings)
        guard let configuration = try? JSONSerialization.data(withJSONObject: listeners) else {
            return .failure(PythonTestServerError("the listener configuration does not encode"))
        }
        return await PythonTestServer.start(
            fixture("https_server.py"), arguments: [String(decoding: configuration, as: UTF8.self)],
            expecting: Listener.allCases.map(\.rawValue)
        ).map(TLSTestServer.init(ports:))
    }
}
