import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The WebSocket client against the Python `websockets` server (PyPI), which no one here
/// wrote, through curl: every message shape, every close path, permessage-deflate on and off,
/// a subprotocol, cookies and interceptors on the handshake, TLS with a private CA, a proxy's
/// CONNECT tunnel and a Unix socket.
@Suite(.requires(.websockets))
struct WebSocketInteropTests {
    let server: WebSocketTestServer

    init() async throws {
        server = try await WebSocketTestServer.shared.value.get()
    }

    private func client(
        _ transport: CurlTransport = CurlTransport(),
        _ configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration()
        configure(&configuration)
        return NetworkClient(configuration: configuration, transport: transport)
    }

    private func echoes(_ socket: WebSocket, _ messages: [WebSocketMessage]) async throws {
        for message in messages { try await socket.send(message).value }
        for message in messages { #expect(try await socket.receive().value == message) }
    }

    @Test(arguments: [false, true])
    func textAndBinaryMessagesComeBackAsTheyWent(compressed: Bool) async throws {
        let socket = try await client().webSocket(server.endpoint("/echo", compressed: compressed)).value
        #expect(socket.isCompressed == compressed)
        #expect(socket.response.statusCode == 101)
        let long = String(repeating: "a highly compressible line of text\n", count: 200)
        try await echoes(socket, [.text("hello, wörld"), .binary(Data([0, 1, 2, 255])), .text(long), .text("")])
        try await socket.close().value
        #expect(try await socket.receive().value == nil)
    }

    @Test(arguments: [false, true])
    func sixteenMebibyteMessagesGoBothWays(compressed: Bool) async throws {
        let socket = try await client().webSocket(server.endpoint("/echo", compressed: compressed)).value
        // Half random (which compresses badly), half a pattern; made without a loop per
        // byte, which a debug build would spend seconds on.
        var data = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: 8 << 20)
        let pattern = Data((0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        for _ in 0..<128 { data.append(pattern) }
        #expect(data.count == 16 << 20)
        let message = WebSocketMessage.binary(data)
        try await socket.send(message).value
        #expect(try await socket.receive().value == message)
        try await socket.close().value
    }

    @Test func aFragmentedMessageArrivesWhole() async throws {
        let socket = try await client().webSocket(server.endpoint("/fragments")).value
        #expect(try await socket.receive().value == .text("Hello, fragments!"))
        try await socket.close().value
    }

    @Test func pingsAreAnsweredBothWays() async throws {
        let socket = try await client().webSocket(server.endpoint("/pinged")).value
        // The server's ping is answered by the client on its own, and the server says so.
        #expect(try await socket.receive().value == .text("pong: are you there"))
        // The client's own ping settles when the server's pong comes back.
        try await socket.ping().value
        try await socket.close().value
    }

    @Test(arguments: [1000, 1001, 1008, 1011, 3000, 4999])
    func theServerClosesWithItsCode(code: UInt16) async throws {
        let socket = try await client().webSocket(server.endpoint("/close/\(code)")).value
        #expect(try await socket.receive().value == nil)
        #expect(socket.closeReceived?.code == WebSocketCloseCode(rawValue: code))
        #expect(socket.closeReceived?.reason == "bye")
        // A send after the end says how it ended.
        await #expect(throws: KringleError.self) { try await socket.send(text: "late").value }
    }

    @Test func theClientClosesWithItsCodeAndTheServerAnswers() async throws {
        let socket = try await client().webSocket(server.endpoint("/echo")).value
        try await socket.send(text: "one").value
        #expect(try await socket.receive().value == .text("one"))
        try await socket.close(code: WebSocketCloseCode(rawValue: 4000), reason: "done here").value
        // The server echoed the code in its close frame (the closing handshake, §7.1.2).
        #expect(socket.closeReceived?.code == WebSocketCloseCode(rawValue: 4000))
        #expect(try await socket.receive().value == nil)
    }

    @Test func aCloseCodeNoEndpointMaySendIsRefusedBeforeAnythingGoes() async throws {
        let socket = try await client().webSocket(server.endpoint("/echo")).value
        await #expect(throws: KringleError.self) { try await socket.close(code: .abnormalClosure).value }
        await #expect(throws: KringleError.self) {
            try await socket.close(reason: String(repeating: "x", count: 124)).value
        }
        // Still open.
        try await echoes(socket, [.text("still here")])
        try await socket.close().value
    }

    @Test func theServerPicksAnOfferedSubprotocol() async throws {
        var options = WebSocketOptions()
        options.subprotocols = ["chat.v2", "chat.v1"]
        let socket = try await client().webSocket(server.endpoint("/protocol"), options: options).value
        #expect(socket.subprotocol == "chat.v2")
        try await echoes(socket, [.text("hi")])
        try await socket.close().value
    }

    @Test func theHandshakeCarriesAndStoresCookies() async throws {
        let jar = CookieJar()
        let client = client { $0.cookieJar = jar }
        let first = try await client.webSocket(server.endpoint("/cookie")).value
        // The first handshake had no cookie; its 101 set one, which the jar now holds.
        #expect(try await first.receive().value == .text(""))
        try await first.close().value
        let second = try await client.webSocket(server.endpoint("/cookie")).value
        #expect(try await second.receive().value == .text("session=abc"))
        try await second.close().value
    }

    @Test func theHandshakeGoesThroughTheInterceptorsAndTheEndpointsHeaders() async throws {
        let client = client { $0.interceptors = [BearerInterceptor(token: "t0k3n")] }
        var endpoint = server.endpoint("/headers")
        endpoint.headers = ["X-Trace": "abc-123"]
        let socket = try await client.webSocket(endpoint).value
        let seen = try await socket.messages(as: SeenHeaders.self).first { _ in true }
        #expect(seen == SeenHeaders(authorization: "Bearer t0k3n", trace: "abc-123"))
        try await socket.close().value
    }

    @Test func aRefusalIsAnErrorWithTheServersAnswer() async throws {
        let outcome = await client().webSocket(server.endpoint("/refuse")).outcome()
        guard case .failure(KringleError.unacceptableStatusCode(403, let response)) = outcome else {
            Issue.record("expected a 403, got \(outcome)")
            return
        }
        #expect(String(decoding: response.body, as: UTF8.self) == "no sockets for you")
    }

    @Test func overTLSWithAPrivateCertificateAuthority() async throws {
        let transport = CurlTransport(
            configuration: .init(certificateAuthorityFile: WebSocketTestServer.fixture("tls/ca.pem").path))
        let socket = try await client(transport).webSocket(server.endpoint("/echo", secure: true)).value
        try await echoes(socket, [.text("secret"), .binary(Data(repeating: 7, count: 100_000))])
        try await socket.close().value
    }

    @Test func overTLSAnUntrustedServerIsRefused() async throws {
        let outcome = await client().webSocket(server.endpoint("/echo", secure: true)).outcome()
        guard case .failure(KringleError.tls) = outcome else {
            Issue.record("expected a TLS failure, got \(outcome)")
            return
        }
    }

    @Test(.requires(.tinyproxy))
    func throughAProxysConnectTunnel() async throws {
        let proxy = try await ProxyProcess.tinyproxy()
        defer { proxy.stop() }
        let transport = CurlTransport(configuration: .init(proxy: .url("http://127.0.0.1:\(proxy.port)")))
        let socket = try await client(transport).webSocket(server.endpoint("/echo")).value
        try await echoes(socket, [.text("tunnelled")])
        try await socket.close().value
        #expect(await proxy.logs("CONNECT"))
    }

    @Test func overAUnixSocket() async throws {
        let socket = try await client().webSocket(server.unixEndpoint("/echo")).value
        try await echoes(socket, [.text("local"), .binary(Data([1, 2, 3]))])
        try await socket.close().value
    }
}

/// What `/headers` reports of the handshake's fields.
private struct SeenHeaders: Codable, Sendable, Equatable {
    var authorization: String
    var trace: String
}

/// Adds a bearer token, as an authentication interceptor would.
private struct BearerInterceptor: RequestInterceptor {
    let token: String

    func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
        var request = request
        request.headers["Authorization"] = "Bearer \(token)"
        return Promise(request)
    }
}
