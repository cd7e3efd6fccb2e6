import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The rotation rule of `CurlTransport.Configuration` ("Rotating certificates"): a CA file
/// rewritten, or a server that now presents another key, is seen by the next new
/// connection, with no waiting. A request for `/close` is answered with `Connection: close`
/// (RFC 9112 §9.6), so that the request after it opens a new connection.
@Suite("Certificate rotation", .requires(.python3), .generousTimeLimit)
struct TLSRotationTests {
    private static let answered = TLSOutcome.answered(status: 200, clientCertificate: "none")

    // Fails without CURLOPT_CA_CACHE_TIMEOUT 0: libcurl 7.87 or later, with no CA directory
    // beside the file, would use the store built from the first reading for a day.
    @Test("a CA added to the CA file is trusted by the next connection")
    func authorityAddedToFileIsTrusted() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let file = try CertificateAuthorityFile(holding: "client-ca.pem")
        defer { file.remove() }
        let transport = CurlTransport(configuration: .init(certificateAuthorityFile: file.path))
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .refused(.untrustedCertificate))
        try file.replace(with: "ca.pem")
        #expect(await tlsOutcome(transport, server.url(.trusted)) == Self.answered)
    }

    // Fails without the CA cache off, and without session resumption off: the new
    // connection would resume the first one's session, verified under the old file.
    @Test("a CA removed from the CA file is refused by the next new connection")
    func authorityRemovedFromFileIsRefused() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let file = try CertificateAuthorityFile(holding: "ca.pem")
        defer { file.remove() }
        let transport = CurlTransport(configuration: .init(certificateAuthorityFile: file.path))
        #expect(await tlsOutcome(transport, server.url(.trusted, path: "/close")) == Self.answered)
        try file.replace(with: "client-ca.pem")
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .refused(.untrustedCertificate))
    }

    // The server keeps its session tickets across the rotation, so without session
    // resumption off the new connection would resume, showing the old key again.
    @Test(
        "a server's new key is checked against the pins by the next new connection",
        arguments: [false, true])
    func rotatedKeyIsCheckedAgainstPins(nextKeyPinned: Bool) async throws {
        let server = try await RotatingTLSServer(presenting: "localhost")
        defer { server.remove() }
        let pins = try (["localhost"] + (nextKeyPinned ? ["localhost-next"] : [])).map(Self.pin)
        let transport = CurlTransport(configuration: .trustingTestCA { $0.pinnedPublicKeys = pins })
        // Closed after the answer, so the next request needs a new connection (whether the
        // server keeps an idle one open is up to its timeout, and so to the machine's speed).
        #expect(await tlsOutcome(transport, server.url(path: "/close")) == Self.answered)
        try server.present("localhost-next")
        #expect(await tlsOutcome(transport, server.url()) == (nextKeyPinned ? Self.answered : .refused(.pinMismatch)))
    }

    @Test("by default a connection takes no new request once it is 5 minutes old")
    func connectionLifetimeByDefault() {
        #expect(CurlTransport.Configuration().maximumConnectionLifetime == 300)
    }

    private static func pin(_ name: String) throws -> PublicKeyPin {
        try #require(PublicKeyPin(base64: String(decoding: TLSTestServer.contents("\(name).pin"), as: UTF8.self)))
    }
}

/// A CA file of one test's own, in a directory of its own, replaced in one step as a
/// deployment would (written beside it, then renamed over it).
private struct CertificateAuthorityFile {
    let path: String
    private let directory: URL

    /// Creates the file with the contents of the TLS fixture `fixture`.
    init(holding fixture: String) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kringle-ca-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("ca.pem").path
        try replace(with: fixture)
    }

    /// Replaces the file's contents with the fixture `fixture`'s.
    func replace(with fixture: String) throws {
        try TLSTestServer.contents(fixture).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
