import ChildProcess
import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How TLS libraries' reports become a ``TLSFailure``, table by table, and the small TLS
/// value types.
@Suite(.generousTimeLimit) struct TLSFailureTests {
    /// curl codes and error-buffer texts: OpenSSL 3.0 (what the integration tests see),
    /// OpenSSL 1.1 spellings, and GnuTLS, which names less.
    static let curlCases: [(code: Int, message: String, expected: TLSFailure?)] = [
        (60, "SSL certificate problem: certificate has expired", .expiredCertificate),
        (60, "SSL certificate problem: certificate is not yet valid", .expiredCertificate),
        (60, "SSL certificate problem: self-signed certificate", .selfSignedCertificate),
        (60, "SSL certificate problem: self signed certificate", .selfSignedCertificate),
        (60, "SSL certificate problem: self-signed certificate in certificate chain", .untrustedCertificate),
        (60, "SSL certificate problem: unable to get local issuer certificate", .untrustedCertificate),
        (60, "SSL: no alternative certificate subject name matches target host name 'localhost'", .hostnameMismatch),
        (
            60, "SSL: certificate subject name 'wrong.example' does not match target host name 'localhost'",
            .hostnameMismatch
        ),
        (
            60, "server certificate verification failed. CAfile: /etc/ssl/certs/ca-certificates.crt CRLfile: none",
            .untrustedCertificate
        ),
        (90, "SSL: public key does not match pinned public key", .pinMismatch),
        (58, "unable to set private key file: 'client.key' type PEM", .clientCertificateUnusable),
        (77, "error setting certificate file: /nonexistent/ca.pem", .certificateAuthoritiesUnusable),
        (
            56,
            "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required, errno 0",
            .clientCertificateRequired
        ),
        (
            56, "OpenSSL SSL_read: OpenSSL/3.0.19: error:0A000418:SSL routines::tlsv1 alert unknown ca, errno 0",
            .clientCertificateRejected
        ),
        (35, "OpenSSL/3.0.19: error:0A000412:SSL routines::sslv3 alert bad certificate", .clientCertificateRejected),
        (35, "OpenSSL/3.0.19: error:0A00042E:SSL routines::tlsv1 alert protocol version", .protocolVersionRefused),
        (35, "OpenSSL/3.0.19: error:0A000410:SSL routines::sslv3 alert handshake failure", .other),
        (35, "OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number", .other),
        (98, "SSL Client Certificate required", .clientCertificateRequired),
        // Not about TLS: a broken connection stays a transport error.
        (56, "Recv failure: Connection reset by peer", nil),
        (35, "OpenSSL SSL_connect: Connection reset by peer in connection to example.com:443", nil),
        (35, "OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to example.com:443", nil),
        (55, "Send failure: Broken pipe", nil),
        (7, "Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server", nil),
        (28, "Operation timed out after 1000 milliseconds", nil),
    ]

    @Test(arguments: curlCases.indices)
    func curlErrorIsClassified(_ index: Int) {
        let (code, message, expected) = Self.curlCases[index]
        #expect(CurlError(code: code, message: message).tlsFailure == expected, "\(code): \(message)")
    }

    /// URLSession: Apple's codes, and FoundationNetworking's code -1 with curl's message.
    static let urlSessionCases: [(code: URLError.Code, message: String?, expected: TLSFailure?)] = [
        (.serverCertificateHasBadDate, nil, .expiredCertificate),
        (.serverCertificateNotYetValid, nil, .expiredCertificate),
        (.serverCertificateUntrusted, nil, .untrustedCertificate),
        (.serverCertificateHasUnknownRoot, nil, .untrustedCertificate),
        (.clientCertificateRejected, nil, .clientCertificateRejected),
        (.clientCertificateRequired, nil, .clientCertificateRequired),
        (.secureConnectionFailed, nil, .other),
        (.unknown, "SSL certificate problem: unable to get local issuer certificate", .untrustedCertificate),
        (.unknown, "SSL certificate problem: self-signed certificate", .selfSignedCertificate),
        (.unknown, "SSL certificate problem: certificate has expired", .expiredCertificate),
        (
            .unknown, "SSL: no alternative certificate subject name matches target host name 'localhost'",
            .hostnameMismatch
        ),
        (.unknown, "something else went wrong", nil),
        (.unknown, nil, nil),
        (.cannotConnectToHost, "Could not connect to the server.", nil),
    ]

    @Test(arguments: urlSessionCases.indices)
    func urlErrorIsClassified(_ index: Int) {
        let (code, message, expected) = Self.urlSessionCases[index]
        let error = URLError(code, userInfo: message.map { [NSLocalizedDescriptionKey: $0] } ?? [:])
        #expect(URLSessionTransport.tlsFailure(for: error) == expected, "\(code.rawValue): \(message ?? "-")")
    }

    @Test func descriptionNamesTheFailureTheURLAndTheReason() throws {
        let url = clientURL("https://api.example/cats?token=secret")
        let error = KringleError.tls(
            url, .hostnameMismatch, underlying: CurlError(code: 60, message: "SSL: no alternative certificate"))
        let description = "\(error)"
        #expect(description.contains("https://api.example/cats"))
        #expect(description.contains("for another host name"))
        #expect(description.contains("curl error 60: SSL: no alternative certificate"))
        #expect(!description.contains("secret"))
    }

    // MARK: Pins

    @Test func pinTakesBase64WithOrWithoutPrefix() throws {
        let digest = Data((0..<32).map { UInt8($0) })
        let base64 = digest.base64EncodedString()
        #expect(PublicKeyPin(base64: base64)?.sha256 == digest)
        #expect(PublicKeyPin(base64: "sha256//\(base64)\n")?.sha256 == digest)
        #expect(PublicKeyPin(sha256: digest)?.description == "sha256//\(base64)")
    }

    @Test(arguments: ["", "not base64!", Data(count: 31).base64EncodedString(), Data(count: 33).base64EncodedString()])
    func pinOfAnotherLengthIsRefused(_ text: String) {
        #expect(PublicKeyPin(base64: text) == nil)
    }

    @Test func digestOfAnotherLengthIsRefused() {
        #expect(PublicKeyPin(sha256: Data(count: 20)) == nil)
    }

    /// The prefixes that rebuild a SubjectPublicKeyInfo from a raw key (Apple's pinning)
    /// match what `openssl` writes for the fixtures' P-256 key.
    @Test(.requires(.openssl)) func subjectPublicKeyInfoPrefixMatchesOpenSSL() async throws {
        let certificate = TLSTestServer.fixture("localhost.pem").path
        let outcome = try await onOwnThread {
            try ChildProcess.run(
                "/bin/sh",
                ["-c", "openssl x509 -in '\(certificate)' -pubkey -noout | openssl pkey -pubin -outform der"],
                killAfter: 30)
        }
        try #require(outcome.status == 0)
        let der = [UInt8](outcome.output)
        let prefix = try #require(SubjectPublicKeyInfoPrefix.bytes(for: .ellipticCurve, bits: 256))
        // The raw key is the 65-byte uncompressed point.
        #expect(der.count == prefix.count + 65)
        #expect(Array(der.prefix(prefix.count)) == prefix)
        #expect(SubjectPublicKeyInfoPrefix.bytes(for: .rsa, bits: 1024) == nil)
    }

    // MARK: Client certificates

    @Test func clientCertificateDescriptionHidesKeyAndPassword() {
        let key = Data("-----BEGIN PRIVATE KEY-----secret-----END PRIVATE KEY-----".utf8)
        let client = CurlTransport.ClientCertificate(
            certificate: .file("/etc/client.pem"), key: .pem(key), keyPassword: "hunter2")
        for text in ["\(client)", String(reflecting: client)] {
            #expect(text.contains("/etc/client.pem"))
            #expect(text.contains("\(key.count) bytes"))
            #expect(!text.contains("secret"))
            #expect(!text.contains("hunter2"))
        }
    }

    // MARK: URLSessionTransport's server trust

    /// On Linux a server trust cannot be applied, so nothing is sent: the request is
    /// rejected, typed, before it reaches any server.
    @Test(.requires(.python3)) func urlSessionServerTrustIsRefusedWhereUnsupported() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let pin = try #require(PublicKeyPin(sha256: Data(count: 32)))
        // The test CA as DER: the base64 between the PEM's armour lines.
        let pem = String(decoding: try TLSTestServer.contents("ca.pem"), as: UTF8.self)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let ca = try #require(Data(base64Encoded: base64))
        let transport = URLSessionTransport(serverTrust: .init(certificateAuthorities: [ca], pinnedPublicKeys: [pin]))
        let outcome = await tlsOutcome(transport, server.url(.trusted))
        if URLSessionTransport.ServerTrust.isSupported {
            #expect(outcome == .refused(.pinMismatch))
        } else {
            #expect(outcome == .refused(.unsupportedConfiguration))
        }
    }
}
