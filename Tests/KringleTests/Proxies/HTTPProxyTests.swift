import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// Requests through a real HTTP proxy (tinyproxy), each checked at both ends: the origin
/// (a `Via` header, or none) and the proxy's log (the request line, or nothing).
@Suite(.requires(.tinyproxy), .generousTimeLimit) struct HTTPProxyTests {
    /// An origin that answers "origin" and keeps every request it receives.
    final class Origin: Sendable {
        let requests = Recorder<LoopbackServer.Request>()
        let server: LoopbackServer

        init() throws {
            let requests = requests
            server = try LoopbackServer { request in
                requests.append(request)
                return .text("origin")
            }
        }

        /// The `Via` headers of the requests that reached `path`.
        func via(_ path: String) -> [String?] {
            requests.elements.filter { $0.path == path }.map { $0.header("Via") }
        }
    }

    @Test func anHTTPURLIsSentToTheProxyInFull() async throws {
        let proxy = try await ProxyProcess.tinyproxy()
        defer { proxy.stop() }
        let origin = try Origin()
        defer { origin.server.shutdown() }
        let transport = CurlTransport(configuration: .init(proxy: .url("http://127.0.0.1:\(proxy.port)")))
        let url = origin.server.url("/through?x=1")

        let response = try await transport.send(makeRequest(url)).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == "origin")
        #expect(origin.via("/through").count == 1)
        #expect(origin.via("/through").first??.contains("kringle-test-proxy") == true)
        // RFC 9112 §3.2.2: absolute form to a proxy.
        #expect(await proxy.logs("GET \(url.absoluteString) HTTP/1.1"), "\(proxy.log)")
    }

    @Test func anHTTPSURLGoesThroughAConnectTunnel() async throws {
        let proxy = try await ProxyProcess.tinyproxy()
        defer { proxy.stop() }
        let tls = try await TLSTestServer.shared.value.get()
        let url = tls.url(.trusted)
        let transport = CurlTransport(
            configuration: .trustingTestCA { $0.proxy = .url("http://127.0.0.1:\(proxy.port)") })

        let response = try await transport.send(makeRequest(url)).valueWithin()

        // Only the origin has the test CA's certificate for 127.0.0.1: the answer is its own.
        #expect(String(decoding: response.body, as: UTF8.self) == "hello over TLS\n")
        let port = try #require(url.port)
        #expect(await proxy.logs("CONNECT 127.0.0.1:\(port) HTTP/1.1"), "\(proxy.log)")
        #expect(!proxy.log.contains("GET "), "the proxy saw only the tunnel, not the request")
    }

    @Test(arguments: [
        CredentialsForm.inTheURL, CredentialsForm.apart,
    ])
    func credentialsReachTheProxy(_ form: CredentialsForm) async throws {
        let proxy = try await ProxyProcess.tinyproxy(basicAuth: ("alice", "s3cret"))
        defer { proxy.stop() }
        let origin = try Origin()
        defer { origin.server.shutdown() }
        let transport = CurlTransport(configuration: .init(proxy: form.proxy(port: proxy.port, password: "s3cret")))

        let response = try await transport.send(makeRequest(origin.server.url("/authorized"))).valueWithin()

        #expect(response.statusCode == 200)
        #expect(origin.via("/authorized").first??.contains("kringle-test-proxy") == true)
        #expect(await proxy.logs("GET \(origin.server.url("/authorized").absoluteString)"), "\(proxy.log)")
    }

    /// Wrong credentials: the proxy answers itself, nothing reaches the origin, and neither the
    /// response nor its description carries the password.
    @Test func wrongCredentialsAreTurnedAwayByTheProxy() async throws {
        let proxy = try await ProxyProcess.tinyproxy(basicAuth: ("alice", "s3cret"))
        defer { proxy.stop() }
        let origin = try Origin()
        defer { origin.server.shutdown() }
        let transport = CurlTransport(
            configuration: .init(proxy: CredentialsForm.apart.proxy(port: proxy.port, password: "wrong-9d1f")))

        let response = try await transport.send(makeRequest(origin.server.url("/denied"))).valueWithin()

        // tinyproxy answers 401 to an absolute-form request (RFC 9110 §15.5.8 would have 407).
        #expect([401, 407].contains(response.statusCode))
        #expect(origin.requests.elements.isEmpty)
        #expect(!String(describing: response).contains("wrong-9d1f"))
        #expect(await proxy.logs("GET \(origin.server.url("/denied").absoluteString)"), "\(proxy.log)")
    }

    /// A host on the no-proxy list goes direct; the next request, to a host not on it, goes
    /// through the proxy, so the proxy's log is known to be written by then.
    @Test func aNoProxyHostGoesDirect() async throws {
        let proxy = try await ProxyProcess.tinyproxy()
        defer { proxy.stop() }
        let origin = try Origin()
        defer { origin.server.shutdown() }
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let port = origin.server.port
        let transport = CurlTransport(configuration: .init(proxy: .url(proxyURL, noProxy: ["localhost:\(port)"])))

        let direct = try #require(URL(string: "http://localhost:\(port)/direct"))
        _ = try await transport.send(makeRequest(direct)).valueWithin()
        let proxied = origin.server.url("/proxied")
        _ = try await transport.send(makeRequest(proxied)).valueWithin()

        #expect(origin.via("/direct") == [nil])
        #expect(origin.via("/proxied").first??.contains("kringle-test-proxy") == true)
        #expect(await proxy.logs("GET \(proxied.absoluteString)"), "\(proxy.log)")
        #expect(!proxy.log.contains("/direct"))
    }

    /// `.environment` end to end: `HTTP_PROXY` in upper case is followed, `NO_PROXY` honoured,
    /// and under CGI (`REQUEST_METHOD` set) `HTTP_PROXY` is ignored.
    @Test func theEnvironmentIsFollowedInBothCasesWithTheCGIRule() async throws {
        let proxy = try await ProxyProcess.tinyproxy()
        defer { proxy.stop() }
        let origin = try Origin()
        defer { origin.server.shutdown() }
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let followed = CurlTransport(
            configuration: .init(proxy: .environment(["HTTP_PROXY": proxyURL, "NO_PROXY": "localhost"])))
        let underCGI = CurlTransport(
            configuration: .init(proxy: .environment(["HTTP_PROXY": proxyURL, "REQUEST_METHOD": "GET"])))

        _ = try await underCGI.send(makeRequest(origin.server.url("/cgi"))).valueWithin()
        let listed = try #require(URL(string: "http://localhost:\(origin.server.port)/listed"))
        _ = try await followed.send(makeRequest(listed)).valueWithin()
        let upper = origin.server.url("/upper")
        _ = try await followed.send(makeRequest(upper)).valueWithin()

        #expect(origin.via("/upper").first??.contains("kringle-test-proxy") == true)
        #expect(origin.via("/listed") == [nil])
        #expect(origin.via("/cgi") == [nil])
        #expect(await proxy.logs("GET \(upper.absoluteString)"), "\(proxy.log)")
        #expect(!proxy.log.contains("/listed") && !proxy.log.contains("/cgi"))
    }
}

/// Where a test puts the proxy credentials.
enum CredentialsForm: Sendable, CustomStringConvertible {
    /// `http://alice:PASSWORD@127.0.0.1:PORT`.
    case inTheURL
    /// `username:` and `password:` beside the URL.
    case apart

    func proxy(port: Int, password: String, scheme: String = "http") -> CurlTransport.Proxy {
        switch self {
        case .inTheURL: .url("\(scheme)://alice:\(password)@127.0.0.1:\(port)")
        case .apart: .url("\(scheme)://127.0.0.1:\(port)", username: "alice", password: password)
        }
    }

    var description: String {
        switch self {
        case .inTheURL: "in the URL"
        case .apart: "apart from the URL"
        }
    }
}
