import Foundation
import Kringle
import KringleTestSupport
import Testing

/// Reconnection (``WebSocketReconnection``) against the Python `websockets` server: a dropped
/// connection is replaced and reading goes on; a clean close is not; attempts run out.
@Suite(.requires(.websockets))
struct WebSocketReconnectionTests {
    let server: WebSocketTestServer

    init() async throws {
        server = try await WebSocketTestServer.shared.value.get()
    }

    private func options(attempts: Int = 10) -> WebSocketOptions {
        var reconnection = WebSocketReconnection()
        reconnection.delay = 0.01
        reconnection.maximumAttempts = attempts
        var options = WebSocketOptions()
        options.reconnection = reconnection
        return options
    }

    @Test func aDroppedConnectionIsReplacedAndReadingGoesOn() async throws {
        let client = NetworkClient(transport: CurlTransport())
        let endpoint = server.endpoint("/drop-once?\(UUID().uuidString)")
        let socket = try await client.webSocket(endpoint, options: options()).value
        #expect(try await socket.receive().value == .text("first"))
        // The server dropped the connection without a close frame: the next read waits for
        // the new connection, whose first message is "second".
        #expect(try await socket.receive().value == .text("second"))
        try await socket.send(text: "after").value
        #expect(try await socket.receive().value == .text("after"))
        try await socket.close().value
        #expect(try await socket.receive().value == nil)
    }

    @Test func withAPolicySendsNotAwaitedGoOutInOrder() async throws {
        let client = NetworkClient(transport: CurlTransport())
        let socket = try await client.webSocket(server.endpoint("/echo"), options: options()).value
        let sends = (0..<100).map { socket.send(text: "\($0)") }
        let receives = (0..<100).map { _ in socket.receive() }
        for send in sends { try await send.value }
        for (index, receive) in receives.enumerated() {
            #expect(try await receive.value == .text("\(index)"))
        }
        try await socket.close().value
    }

    @Test func withoutAPolicyADroppedConnectionEndsTheMessages() async throws {
        let client = NetworkClient(transport: CurlTransport())
        let socket = try await client.webSocket(server.endpoint("/drop-once?\(UUID().uuidString)")).value
        #expect(try await socket.receive().value == .text("first"))
        let outcome = await socket.receive().outcome()
        guard case .failure(KringleError.webSocketClosed(_, .abnormalClosure, _)) = outcome else {
            Issue.record("expected an abnormal closure, got \(outcome)")
            return
        }
    }

    @Test func aCleanCloseIsNotReconnected() async throws {
        let client = NetworkClient(transport: CurlTransport())
        let socket = try await client.webSocket(server.endpoint("/close/1000"), options: options()).value
        #expect(try await socket.receive().value == nil)
        #expect(socket.closeReceived?.code == .normalClosure)
    }

    @Test func theAttemptsRunOut() async throws {
        let client = NetworkClient(transport: CurlTransport())
        let socket = try await client.webSocket(server.endpoint("/drop-always"), options: options(attempts: 2)).value
        // The first connection and two reconnections each drop before a message: the read
        // ends with the last drop.
        let outcome = await socket.receive().outcome()
        guard case .failure(KringleError.webSocketClosed(_, .abnormalClosure, _)) = outcome else {
            Issue.record("expected the attempts to run out, got \(outcome)")
            return
        }
    }
}
