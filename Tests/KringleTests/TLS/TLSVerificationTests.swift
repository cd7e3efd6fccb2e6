import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Server certificate verification over real TLS, on both transports, against the local HTTPS
/// server: each way a certificate can be wrong is refused with a ``TLSFailure`` that says
/// which, never a bare transport error.
@Suite(.requires(.python3), .generousTimeLimit) struct TLSVerificationTests {
    /// The test CA is in no system store, so with the default trust every certificate from it
    /// is refused as untrusted, by both transports.
    @Test(arguments: TransportUnderTest.allCases)
    func unknownAuthorityIsRefusedAsUntrusted(_ transport: TransportUnderTest) async throws {
        let server = try await TLSTestServer.shared.value.get()
        for host in ["127.0.0.1", "localhost"] {
            let outcome = await tlsOutcome(transport.make(), server.url(.trusted, host: host))
            #expect(outcome == .refused(.untrustedCertificate), "\(host)")
        }
    }

    /// A self-signed certificate is refused as such, whatever the client trusts.
    @Test(arguments: TransportUnderTest.allCases)
    func selfSignedCertificateIsRefused(_ transport: TransportUnderTest) async throws {
        let server = try await TLSTestServer.shared.value.get()
        let outcome = await tlsOutcome(transport.make(), server.url(.selfSigned))
        #expect(outcome == .refused(.selfSignedCertificate))
    }

    @Test func trustedChainSucceeds() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let transport = CurlTransport(configuration: .trustingTestCA())
        for host in ["127.0.0.1", "localhost"] {
            let outcome = await tlsOutcome(transport, server.url(.trusted, host: host))
            #expect(outcome == .answered(status: 200, clientCertificate: "none"), "\(host)")
        }
    }

    @Test func expiredCertificateIsRefused() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let outcome = await tlsOutcome(CurlTransport(configuration: .trustingTestCA()), server.url(.expired))
        #expect(outcome == .refused(.expiredCertificate))
    }

    /// The certificate is for wrong.example: refused for a DNS name and for an IP address.
    @Test func certificateForAnotherHostIsRefused() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let transport = CurlTransport(configuration: .trustingTestCA())
        for host in ["127.0.0.1", "localhost"] {
            let outcome = await tlsOutcome(transport, server.url(.wrongHost, host: host))
            #expect(outcome == .refused(.hostnameMismatch), "\(host)")
        }
    }

    /// A certificate authority that is not the server's leaves its chain untrusted.
    @Test func anotherAuthorityLeavesTheChainUntrusted() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let transport = CurlTransport(
            configuration: .init(certificateAuthorityFile: TLSTestServer.fixture("client-ca.pem").path))
        #expect(await tlsOutcome(transport, server.url(.trusted)) == .refused(.untrustedCertificate))
    }

    /// On Linux URLSession cannot be told to trust the test CA (FoundationNetworking sets no
    /// CA option of its own choosing: see `URLSessionTransport`), so the chain is refused
    /// before its dates or names are looked at; still a typed TLS failure.
    @Test func urlSessionRefusesExpiredAndWrongHostCertificatesFromAnUnknownAuthority() async throws {
        let server = try await TLSTestServer.shared.value.get()
        #if canImport(FoundationNetworking)
        for listener in [TLSTestServer.Listener.expired, .wrongHost] {
            let outcome = await tlsOutcome(URLSessionTransport(), server.url(listener))
            #expect(outcome == .refused(.untrustedCertificate), "\(listener)")
        }
        #else
        // Apple's URLSession reports these by code (-1201, -1202), read as untrusted at worst.
        for listener in [TLSTestServer.Listener.expired, .wrongHost] {
            let outcome = await tlsOutcome(URLSessionTransport(), server.url(listener))
            #expect([.refused(.untrustedCertificate), .refused(.expiredCertificate)].contains(outcome))
        }
        #endif
    }

    /// Turning verification off (the dangerous switch) accepts what verification refuses.
    @Test(arguments: [TLSTestServer.Listener.selfSigned, .expired, .wrongHost, .trusted])
    func verificationOffAcceptsAnyCertificate(_ listener: TLSTestServer.Listener) async throws {
        let server = try await TLSTestServer.shared.value.get()
        let transport = CurlTransport(configuration: .init(verifiesCertificates: false))
        #expect(await tlsOutcome(transport, server.url(listener)) == .answered(status: 200, clientCertificate: "none"))
    }

    /// Through the whole client: the refusal arrives as `KringleError.tls`, once, with the
    /// request's URL, and its description names the failure and curl's reason.
    @Test func clientReportsTheTLSFailure() async throws {
        let server = try await TLSTestServer.shared.value.get()
        let client = NetworkClient(transport: CurlTransport(configuration: .trustingTestCA()))
        let endpoint = ClientTestEndpoint(baseURL: server.url(.expired, path: ""), path: "/cats")
        let outcome = await client.get(endpoint).outcome()
        guard case .failure(KringleError.tls(let url, .expiredCertificate, let underlying as CurlError)) = outcome
        else {
            Issue.record("expected an expired-certificate refusal, got \(outcome)")
            return
        }
        #expect(url.path == "/cats")
        #expect(underlying.code == 60)
        let description = "\(KringleError.tls(url, .expiredCertificate, underlying: underlying))"
        #expect(description.contains("has expired"))
        #expect(description.contains("curl error 60"))
    }
}
