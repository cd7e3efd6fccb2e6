import ChildProcess
import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// CurlTransport's TLS settings against the local HTTPS server: trust from PEM data, pinned
/// keys, client certificates (mutual TLS) and the lowest TLS version.
@Suite(.requires(.python3), .generousTimeLimit) struct CurlTLSTests {
    // MARK: Trust from memory

    @Test func certificateAuthorityFromPEMDataIsTrusted() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let pem = try TLSTestServer.contents("ca.pem")
        let transport = CurlTransport(configuration: .init(certificateAuthorityPEM: pem))
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .answered(status: 200, clientCertificate: "none"))
    }

    /// libcurl lets CA data override a CA file; rather than ignore the file, the transport
    /// refuses the request.
    @Test func fileAndPEMDataTogetherAreRefused() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let ca = try TLSTestServer.contents("ca.pem")
        let transport = CurlTransport(configuration: .trustingTestCA { $0.certificateAuthorityPEM = ca })
        let outcome = await transport.send(HTTPRequest(url: server.url(.trusted))).outcome()
        guard case .failure(KringleError.invalidRequest(let reason)) = outcome else {
            Issue.record("expected invalidRequest, got \(outcome)")
            return
        }
        #expect(reason.contains("certificateAuthorityFile") && reason.contains("certificateAuthorityPEM"))
    }

    @Test func pemDataWithoutACertificateIsUnusable() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let transport = CurlTransport(configuration: .init(certificateAuthorityPEM: Data("not a certificate".utf8)))
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .refused(.certificateAuthoritiesUnusable))
    }

    @Test func missingCertificateAuthorityFileIsUnusable() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let transport = CurlTransport(configuration: .init(certificateAuthorityFile: "/nonexistent/kringle-ca.pem"))
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .refused(.certificateAuthoritiesUnusable))
    }

    // MARK: Pinning

    @Test func matchingPinIsAccepted() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let pin = try #require(
            PublicKeyPin(base64: String(decoding: TLSTestServer.contents("localhost.pin"), as: UTF8.self)))
        let other = try #require(PublicKeyPin(sha256: Data(repeating: 7, count: 32)))
        // Any one of the pins may match (a backup pin first here).
        let transport = CurlTransport(configuration: .trustingTestCA { $0.pinnedPublicKeys = [other, pin] })
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .answered(status: 200, clientCertificate: "none"))
    }

    @Test func otherPinIsRefusedEvenForATrustedCertificate() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let other = try #require(PublicKeyPin(sha256: Data(repeating: 7, count: 32)))
        let transport = CurlTransport(configuration: .trustingTestCA { $0.pinnedPublicKeys = [other] })
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .refused(.pinMismatch))
    }

    /// A pin is checked even with verification off: the way to talk to a self-signed server
    /// without trusting everyone. (The pin of `localhost.pem` does not match `self-signed.pem`.)
    @Test func pinIsCheckedWithVerificationOff() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let pin = try #require(
            PublicKeyPin(base64: String(decoding: TLSTestServer.contents("localhost.pin"), as: UTF8.self)))
        let transport = CurlTransport(configuration: .init(verifiesCertificates: false, pinnedPublicKeys: [pin]))
        #expect(await tlsOutcome(transport, server.url(.selfSigned)) == .refused(.pinMismatch))
        #expect(await tlsOutcome(transport, server.url(.expired)) == .refused(.pinMismatch))
    }

    /// The `openssl` one-liner in ``PublicKeyPin``'s documentation computes the pin that
    /// curl accepts (`localhost.pin`, which the tests above use).
    @Test(.requires(.openssl)) func documentedOpenSSLCommandComputesThePin() async throws {
        let certificate = TLSTestServer.fixture("localhost.pem").path
        let command =
            "openssl x509 -in '\(certificate)' -pubkey -noout | openssl pkey -pubin -outform der"
            + " | openssl dgst -sha256 -binary | openssl base64"
        let outcome = try await onOwnThread {
            try ChildProcess.run("/bin/sh", ["-c", command], includingStandardError: true, killAfter: 30)
        }
        #expect(outcome.status == 0, "\(outcome.text)")
        let computed = PublicKeyPin(base64: outcome.text)
        let committed = PublicKeyPin(
            base64: String(decoding: try TLSTestServer.contents("localhost.pin"), as: UTF8.self))
        #expect(computed != nil)
        #expect(computed == committed)
    }

    // MARK: Client certificates

    @Test func clientCertificateFromFilesIsAccepted() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let client = CurlTransport.ClientCertificate(
            certificate: .file(TLSTestServer.fixture("client.pem").path),
            key: .file(TLSTestServer.fixture("client.key").path))
        let transport = CurlTransport(configuration: .trustingTestCA { $0.clientCertificate = client })
        let outcome = await tlsOutcome(transport, server.url(.clientCertificateRequired))
        #expect(outcome == .answered(status: 200, clientCertificate: "Kringle Test Client"))
    }

    @Test func clientCertificateFromPEMDataIsAccepted() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let client = CurlTransport.ClientCertificate(
            certificate: .pem(try TLSTestServer.contents("client.pem")),
            key: .pem(try TLSTestServer.contents("client.key")))
        let transport = CurlTransport(configuration: .trustingTestCA { $0.clientCertificate = client })
        let outcome = await tlsOutcome(transport, server.url(.clientCertificateRequired))
        #expect(outcome == .answered(status: 200, clientCertificate: "Kringle Test Client"))
    }

    /// The certificate and the key in one PEM, with no key given.
    @Test func keyInTheCertificatePEMIsFound() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let both = try TLSTestServer.contents("client.pem") + TLSTestServer.contents("client.key")
        let transport = CurlTransport(
            configuration: .trustingTestCA { $0.clientCertificate = .init(certificate: .pem(both), key: nil) })
        let outcome = await tlsOutcome(transport, server.url(.clientCertificateRequired))
        #expect(outcome == .answered(status: 200, clientCertificate: "Kringle Test Client"))
    }

    @Test(arguments: [false, true])
    func encryptedKeyNeedsItsPassword(fromMemory: Bool) async throws {
        let server = try await TLSTestServer.shared.value.get()
        let key: CurlTransport.ClientCertificate.Source =
            fromMemory
            ? .pem(try TLSTestServer.contents("client-encrypted.key"))
            : .file(TLSTestServer.fixture("client-encrypted.key").path)
        let certificate = CurlTransport.ClientCertificate.Source.file(TLSTestServer.fixture("client.pem").path)
        let right = CurlTransport(
            configuration: .trustingTestCA {
                $0.clientCertificate = .init(certificate: certificate, key: key, keyPassword: "kringle")
            })
        let rightOutcome = await tlsOutcome(right, server.url(.clientCertificateRequired))
        #expect(rightOutcome == .answered(status: 200, clientCertificate: "Kringle Test Client"))
        let wrong = CurlTransport(
            configuration: .trustingTestCA {
                $0.clientCertificate = .init(certificate: certificate, key: key, keyPassword: "not the password")
            })
        #expect(await tlsOutcome(wrong, server.url(.clientCertificateRequired)) == .refused(.clientCertificateUnusable))
    }

    @Test func missingClientCertificateIsReported() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let outcome = await tlsOutcome(
            CurlTransport(configuration: .trustingTestCA()), server.url(.clientCertificateRequired))
        #expect(outcome == .refused(.clientCertificateRequired))
    }

    /// A certificate the server's client CA did not issue is refused by the server.
    @Test func clientCertificateFromAnotherAuthorityIsRejected() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let client = CurlTransport.ClientCertificate(
            certificate: .file(TLSTestServer.fixture("self-signed.pem").path),
            key: .file(TLSTestServer.fixture("self-signed.key").path))
        let transport = CurlTransport(configuration: .trustingTestCA { $0.clientCertificate = client })
        #expect(
            await tlsOutcome(transport, server.url(.clientCertificateRequired)) == .refused(.clientCertificateRejected))
    }

    @Test func unreadableClientCertificateIsUnusable() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let client = CurlTransport.ClientCertificate(
            certificate: .pem(Data("not a certificate".utf8)), key: .file(TLSTestServer.fixture("client.key").path))
        let transport = CurlTransport(configuration: .trustingTestCA { $0.clientCertificate = client })
        #expect(
            await tlsOutcome(transport, server.url(.clientCertificateRequired)) == .refused(.clientCertificateUnusable))
    }

    // MARK: TLS versions

    @Test func minimumVersionIsTLS12ByDefault() {
        #expect(CurlTransport.Configuration().minimumTLSVersion == .tls1_2)
    }

    @Test func tls12ServerIsAcceptedByDefault() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let outcome = await tlsOutcome(CurlTransport(configuration: .trustingTestCA()), server.url(.tls12Only))
        #expect(outcome == .answered(status: 200, clientCertificate: "none"))
    }

    @Test func requiringTLS13RefusesATLS12Server() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let transport = CurlTransport(configuration: .trustingTestCA { $0.minimumTLSVersion = .tls1_3 })
        #expect(await tlsOutcome(transport, server.url(.tls12Only)) == .refused(.protocolVersionRefused))
        // The same transport still reaches a server that speaks TLS 1.3.
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .answered(status: 200, clientCertificate: "none"))
    }
}
