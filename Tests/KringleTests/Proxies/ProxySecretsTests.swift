import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A proxy's password shows nowhere: not in the proxy's or configuration's description, not
/// in `dump`, not in a refusal, not in the error of a request the proxy turned away.
@Suite(.generousTimeLimit) struct ProxySecretsTests {
    static let secret = "hunter2-proxy-secret"

    @Test(arguments: [
        CurlTransport.Proxy.url("http://build:\(secret)@proxy.internal:3128"),
        CurlTransport.Proxy.url("http://proxy.internal:3128", username: "build", password: secret),
        CurlTransport.Proxy.url("socks5h://\(secret)@proxy.internal:1080"),
    ])
    func descriptionsHideThePassword(_ proxy: CurlTransport.Proxy) {
        let configuration = CurlTransport.Configuration(proxy: proxy)
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [
            proxy.description, String(describing: proxy), String(reflecting: proxy), String(describing: configuration),
            String(reflecting: configuration), dumped,
        ] {
            #expect(!text.contains(Self.secret), "\(text)")
            #expect(text.contains("proxy.internal"))
        }
    }

    @Test func theDescriptionShowsTheUserAndTheNoProxyList() {
        let proxy = CurlTransport.Proxy.url(
            "http://proxy.internal:3128", username: "build", password: "x", noProxy: ["localhost", ".corp"])
        #expect(proxy.description == "http://build:***@proxy.internal:3128 (no proxy for localhost,.corp)")
        #expect(CurlTransport.Proxy.environment.description == "environment")
        #expect(CurlTransport.Proxy.direct.description == "direct")
    }

    /// An unusable proxy URL fails the request with a typed refusal, before anything is sent.
    @Test func anUnusableProxyURLIsRefusedWithoutThePassword() async throws {
        let server = try LoopbackServer { _ in .text("reached") }
        defer { server.shutdown() }
        let transport = CurlTransport(configuration: .init(proxy: .url("ftp://user:\(Self.secret)@p:21")))

        let outcome = await transport.send(makeRequest(server.url("/"))).outcome()

        guard case .failure(KringleError.unsupportedConfiguration(let reason)) = outcome else {
            Issue.record("expected unsupportedConfiguration, got \(outcome)")
            return
        }
        #expect(reason.contains("ftp"))
        #expect(!reason.contains(Self.secret))
        #expect(server.statistics.connectionsAccepted == 0)
    }

    /// Whether URLSession here is FoundationNetworking's, which ignores
    /// `connectionProxyDictionary` (Apple's applies it).
    static let urlSessionIgnoresProxyDictionaries: Bool = {
        #if canImport(FoundationNetworking)
        true
        #else
        false
        #endif
    }()

    /// On Linux FoundationNetworking ignores `connectionProxyDictionary`: the transport
    /// refuses rather than send the request without the proxy.
    @Test(
        .enabled(
            if: urlSessionIgnoresProxyDictionaries,
            "Linux only: Apple's URLSession applies connectionProxyDictionary, so there is nothing to refuse"))
    func urlSessionRefusesAProxyDictionaryItCannotApply() async throws {
        let server = try LoopbackServer { _ in .text("reached") }
        defer { server.shutdown() }
        let configuration = URLSessionTransport.defaultConfiguration
        configuration.connectionProxyDictionary = ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": 9]
        let transport = URLSessionTransport(configuration: configuration)

        let outcome = await transport.send(makeRequest(server.url("/"))).outcome()

        guard case .failure(KringleError.unsupportedConfiguration(let reason)) = outcome else {
            Issue.record("expected unsupportedConfiguration, got \(outcome)")
            return
        }
        #expect(reason.contains("connectionProxyDictionary"))
        #expect(server.statistics.connectionsAccepted == 0)
    }
}
