import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An interceptor that signs every request with a header it marks as a credential.
private struct Signing: RequestInterceptor {
    var credentialHeaders: Set<String> { ["X-Signature"] }

    func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
        var signed = request
        signed.headers["X-Signature"] = "sig-1"
        return Promise(signed)
    }
}

@Suite("Redirects: what never crosses origins or leaves HTTPS", .generousTimeLimit)
struct RedirectHardeningTests {
    @Test(
        "Proxy-Authorization and headers marked as credentials are dropped across origins, kept on the same one",
        arguments: TransportUnderTest.allCases)
    func markedCredentials(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            let port = (request.header("Host") ?? "").split(separator: ":").last.map(String.init) ?? ""
            switch request.path {
            case "/same": return .redirect(to: "/cross")
            case "/cross": return .redirect(to: "http://localhost:\(port)/landing")
            default: return .text("landed")
            }
        }
        defer { server.shutdown() }
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [Signing()]
        configuration.defaultHeaders["X-Client-Key"] = "c-1"
        configuration.credentialHeaders = ["X-Client-Key"]
        let client = NetworkClient(configuration: configuration, transport: transport.make())
        var endpoint = server.clientEndpoint(
            "/same", headers: ["Proxy-Authorization": "Basic cHJveHk=", "X-API-Key": "k-1", "X-Other": "kept"])
        endpoint.credentialHeaders = ["X-API-Key"]

        try await client.get(endpoint).valueWithin()
        let requests = received.all
        #expect(requests.map(\.path) == ["/same", "/cross", "/landing"])
        for name in ["Proxy-Authorization", "X-API-Key", "X-Signature", "X-Client-Key"] {
            #expect(requests[0].header(name) != nil && requests[1].header(name) != nil, "\(name) kept on one origin")
            #expect(requests[2].header(name) == nil, "\(name) dropped on another origin")
        }
        #expect(requests.map { $0.header("X-Other") } == ["kept", "kept", "kept"])
    }

    /// A client over a stub whose `/start` redirects to `location`, and the stub.
    private static func stubbed(
        _ location: String, configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> (NetworkClient, StubTransport) {
        let transport = StubTransport()
        transport.stub(.get, "/start", with: StubTransport.Stub(status: 302, headers: ["Location": location]))
        transport.stub { _ in .init(status: 200, body: Data("landed".utf8)) }
        var configuration = NetworkClient.Configuration()
        configure(&configuration)
        return (NetworkClient(configuration: configuration, transport: transport), transport)
    }

    @Test("a redirect from https to http is refused with a typed error, unless allowed")
    func downgrade() async throws {
        let start = ClientTestEndpoint(baseURL: clientURL("https://secure.example"), path: "/start")
        let (client, transport) = Self.stubbed("http://secure.example/landing")
        let outcome = await client.get(start).outcome()
        guard case .failure(KringleError.insecureRedirect(let source, let target)) = outcome else {
            Issue.record("expected insecureRedirect, got \(outcome)")
            return
        }
        #expect(source.absoluteString == "https://secure.example/start")
        #expect(target.absoluteString == "http://secure.example/landing")
        #expect(transport.requests.count == 1, "the http hop was never sent")
        #expect("\(KringleError.insecureRedirect(from: source, to: target))".contains("plain HTTP"))

        let (allowing, allowingTransport) = Self.stubbed("HTTP://secure.example/landing") {
            $0.allowsRedirectsFromHTTPSToHTTP = true
        }
        try await allowing.get(start).valueWithin()
        #expect(allowingTransport.requests.last?.url.path == "/landing")
    }

    @Test("the scheme of a Location is compared case-insensitively")
    func upperCaseScheme() async throws {
        let (client, transport) = Self.stubbed("HTTPS://other.example/landing")
        try await client.get(ClientTestEndpoint(baseURL: clientURL("https://secure.example"), path: "/start"))
            .valueWithin()
        #expect(transport.requests.map { $0.url.host ?? "" } == ["secure.example", "other.example"])
    }
}
