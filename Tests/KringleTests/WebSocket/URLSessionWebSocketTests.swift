import Foundation
import Kringle
import KringleTestSupport
import KringleURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// WebSockets through ``URLSessionTransport``, against the Python `websockets` server: the
/// same echo as curl's where the platform's URLSession can open WebSockets; on Linux, whose
/// FoundationNetworking needs a libcurl with WebSocket support (Debian's has none), the
/// documented refusal.
@Suite(.requires(.websockets))
struct URLSessionWebSocketTests {
    let server: WebSocketTestServer

    init() async throws {
        server = try await WebSocketTestServer.shared.value.get()
    }

    @Test func echoesWhereThePlatformCan() async throws {
        let client = NetworkClient(transport: URLSessionTransport())
        let outcome = await client.webSocket(server.endpoint("/echo")).outcome()
        #if canImport(FoundationNetworking)
        if case .failure(KringleError.unsupportedConfiguration(let reason)) = outcome {
            #expect(reason.contains("needs a libcurl built with WebSocket support"))
            return
        }
        #endif
        let socket = try outcome.get()
        try await socket.send(text: "system").value
        #expect(try await socket.receive().value == .text("system"))
        try await socket.close().value
    }
}
