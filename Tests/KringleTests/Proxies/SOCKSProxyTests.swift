import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// Requests through a real SOCKS5 proxy (microsocks), each checked at both ends: the origin
/// (the request arrived, without a `Via`) and the proxy's log, which names the destination
/// as the client gave it: a host name when the proxy resolved it (`socks5h`), an address
/// when this machine did (`socks5`).
@Suite(.requires(.microsocks), .generousTimeLimit) struct SOCKSProxyTests {
    @Test func socks5hLeavesTheNameToTheProxy() async throws {
        let proxy = try await ProxyProcess.microsocks()
        defer { proxy.stop() }
        let origin = try HTTPProxyTests.Origin()
        defer { origin.server.shutdown() }
        let transport = CurlTransport(configuration: .init(proxy: .url("socks5h://127.0.0.1:\(proxy.port)")))
        let port = origin.server.port
        let url = try #require(URL(string: "http://localhost:\(port)/named"))

        let response = try await transport.send(makeRequest(url)).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == "origin")
        #expect(origin.via("/named") == [nil])
        #expect(origin.requests.elements.first?.header("Host") == "localhost:\(port)")
        #expect(await proxy.logs("connected to localhost:\(port)"), "\(proxy.log)")
    }

    @Test func socks5ResolvesHereAndSendsTheAddress() async throws {
        let proxy = try await ProxyProcess.microsocks()
        defer { proxy.stop() }
        let origin = try HTTPProxyTests.Origin()
        defer { origin.server.shutdown() }
        let transport = CurlTransport(configuration: .init(proxy: .url("socks5://127.0.0.1:\(proxy.port)")))

        let response = try await transport.send(makeRequest(origin.server.url("/address"))).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == "origin")
        #expect(origin.via("/address") == [nil])
        #expect(await proxy.logs("connected to 127.0.0.1:\(origin.server.port)"), "\(proxy.log)")
    }

    /// HTTPS inside the SOCKS tunnel: TLS runs end to end with the origin, whose name the
    /// proxy resolves.
    @Test func anHTTPSURLThroughSocks5h() async throws {
        let proxy = try await ProxyProcess.microsocks()
        defer { proxy.stop() }
        let tls = try await TLSTestServer.shared.value.get()
        let url = tls.url(.trusted, host: "localhost")
        let transport = CurlTransport(
            configuration: .trustingTestCA { $0.proxy = .url("socks5h://127.0.0.1:\(proxy.port)") })

        let response = try await transport.send(makeRequest(url)).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == "hello over TLS\n")
        #expect(await proxy.logs("connected to localhost:\(try #require(url.port))"), "\(proxy.log)")
    }

    @Test(arguments: [CredentialsForm.inTheURL, CredentialsForm.apart])
    func credentialsReachTheProxy(_ form: CredentialsForm) async throws {
        let proxy = try await ProxyProcess.microsocks(credentials: ("alice", "s3cret"))
        defer { proxy.stop() }
        let origin = try HTTPProxyTests.Origin()
        defer { origin.server.shutdown() }
        let transport = CurlTransport(
            configuration: .init(proxy: form.proxy(port: proxy.port, password: "s3cret", scheme: "socks5h")))

        let response = try await transport.send(makeRequest(origin.server.url("/authorized"))).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == "origin")
        #expect(origin.via("/authorized") == [nil])
        #expect(await proxy.logs("connected to 127.0.0.1:\(origin.server.port)"), "\(proxy.log)")
    }

    /// Wrong credentials: the proxy refuses the tunnel, nothing reaches the origin, and the
    /// error's description does not carry the password.
    @Test func wrongCredentialsFailWithoutShowingThePassword() async throws {
        let proxy = try await ProxyProcess.microsocks(credentials: ("alice", "s3cret"))
        defer { proxy.stop() }
        let origin = try HTTPProxyTests.Origin()
        defer { origin.server.shutdown() }
        let transport = CurlTransport(
            configuration: .init(
                proxy: CredentialsForm.inTheURL.proxy(port: proxy.port, password: "wrong-7c2e", scheme: "socks5h")))

        let outcome = await transport.send(makeRequest(origin.server.url("/denied"))).outcome()

        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        guard case KringleError.transport(let underlying) = error, underlying is CurlError else {
            Issue.record("expected KringleError.transport(CurlError), got \(error)")
            return
        }
        #expect(!String(describing: error).contains("wrong-7c2e"), "\(error)")
        #expect(!String(reflecting: error).contains("wrong-7c2e"), "\(error)")
        #expect(origin.server.statistics.connectionsAccepted == 0)
        #expect(!proxy.log.contains("connected to"))
    }
}
