import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// A proxy that turns a request away is one typed error, whatever the URL's scheme: a plain
/// `http` request the proxy answers itself, and an `https` one whose `CONNECT` it refuses.
@Suite(.requires(.tinyproxy), .generousTimeLimit)
struct ProxyRefusalTests {
    static let password = "s3cret-proxy-9d1f"

    /// The error of a GET for `url` through `proxy`, from a client whose retry policy would
    /// retry a lost response.
    private static func refusal(
        for url: URL, through proxy: CurlTransport.Proxy
    ) async throws -> KringleError {
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [RetryPolicy(baseDelay: 0, maximumDelay: 0)]
        let client = NetworkClient(
            configuration: configuration, transport: CurlTransport(configuration: .init(proxy: proxy)))
        let endpoint = ClientTestEndpoint(baseURL: url, path: "")
        let outcome = await client.get(endpoint, as: Data.self).outcome()
        return try #require(outcome.failure as? KringleError, "\(outcome)")
    }

    @Test(
        "a proxy that wants credentials refuses an http and an https URL alike: proxyRefused(407), naming the proxy",
        arguments: ["http", "https"])
    func credentialsWanted(_ scheme: String) async throws {
        let proxy = try await ProxyProcess.tinyproxy(basicAuth: ("alice", Self.password))
        defer { proxy.stop() }
        let origin = try LoopbackServer { _ in .text("origin") }
        defer { origin.shutdown() }
        let url = try parsedURL("\(scheme)://127.0.0.1:\(origin.port)/private")

        let error = try await Self.refusal(for: url, through: .url("http://127.0.0.1:\(proxy.port)"))

        guard case .proxyRefused(let refused, let named, let status) = error else {
            Issue.record("expected proxyRefused, got \(error)")
            return
        }
        #expect(refused == url)
        #expect(named?.absoluteString == "http://127.0.0.1:\(proxy.port)")
        #expect(status == 407)
        #expect(error.description.contains("http://127.0.0.1:\(proxy.port)"), "\(error)")
        #expect(error.description.contains("credentials"), "\(error)")
        #expect(origin.statistics.requestsReceived == 0)
        // Not retried: the proxy logged one request (or one CONNECT), not four.
        let line = scheme == "http" ? "GET \(url.absoluteString)" : "CONNECT 127.0.0.1:\(origin.port)"
        #expect(await proxy.logs(line), "\(proxy.log)")
        #expect(proxy.log.components(separatedBy: line).count == 2, "\(proxy.log)")
    }

    @Test(
        "a 407 from the origin, through a SOCKS proxy, is the origin's: an unacceptable status", .requires(.microsocks))
    func originsOwn407IsNotTheProxys() async throws {
        let proxy = try await ProxyProcess.microsocks()
        defer { proxy.stop() }
        let origin = try LoopbackServer { _ in .text("the origin's own", status: 407) }
        defer { origin.shutdown() }

        let error = try await Self.refusal(
            for: origin.url("/private"), through: .url("socks5://127.0.0.1:\(proxy.port)"))

        guard case .unacceptableStatusCode(407, let response) = error else {
            Issue.record("expected unacceptableStatusCode(407), got \(error)")
            return
        }
        #expect(String(decoding: response.body, as: UTF8.self) == "the origin's own")
    }

    @Test("wrong credentials on an https URL: proxyRefused with the proxy's status, the password shown nowhere")
    func wrongCredentialsForATunnel() async throws {
        let proxy = try await ProxyProcess.tinyproxy(basicAuth: ("alice", "the-right-one"))
        defer { proxy.stop() }
        let url = try parsedURL("https://127.0.0.1:9/private")

        let error = try await Self.refusal(
            for: url, through: .url("http://127.0.0.1:\(proxy.port)", username: "alice", password: Self.password))

        guard case .proxyRefused(_, let named, let status) = error else {
            Issue.record("expected proxyRefused, got \(error)")
            return
        }
        // tinyproxy 1.11 answers wrong credentials with 401, where RFC 9110 §15.5.8 has 407.
        #expect([401, 407].contains(status))
        #expect(named?.absoluteString == "http://127.0.0.1:\(proxy.port)")
        var dumped = ""
        dump(error, to: &dumped)
        for text in [error.description, String(reflecting: error), dumped] {
            #expect(!text.contains(Self.password), "\(text)")
        }
    }
}
