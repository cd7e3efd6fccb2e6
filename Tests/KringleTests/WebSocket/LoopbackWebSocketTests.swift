import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

/// The WebSocket client (curl) against ``LoopbackServer``'s WebSocket peers: what a user's
/// tests of their own WebSocket code do, and the client's handling of hostile servers
/// (RFC 6455 §5, §7).
///
/// Nothing waits on real time: a condition is looked at until it holds (``eventually``), a
/// ping timer runs on a ``ManualClock``, and scripted pauses wait for a gate.
@Suite("LoopbackServer WebSocket peers", .generousTimeLimit)
struct LoopbackWebSocketTests {
    let client = NetworkClient(transport: CurlTransport())

    // MARK: - Peers

    @Test("the echo peer sends text and binary messages back and answers the closing handshake")
    func echo() async throws {
        let server = try LoopbackServer { _ in .webSocket(.echo) }
        defer { server.shutdown() }
        let socket = try await client.webSocket(server.webSocketEndpoint(), options: .patient).valueWithin()
        try await socket.send(text: "hello, wörld").valueWithin()
        try await socket.send(data: Data([0, 1, 2, 255])).valueWithin()
        #expect(try await socket.receive().valueWithin() == .text("hello, wörld"))
        #expect(try await socket.receive().valueWithin() == .binary(Data([0, 1, 2, 255])))

        try await socket.close(code: WebSocketCloseCode(rawValue: 4000), reason: "bye").valueWithin()
        #expect(try await socket.receive().valueWithin() == nil)
        // §5.5.1: the server's close frame echoes the status code.
        #expect(socket.closeReceived?.code == WebSocketCloseCode(rawValue: 4000))
        #expect(
            server.webSocketTranscript.map(\.event) == [
                .message(.text("hello, wörld")), .message(.binary(Data([0, 1, 2, 255]))),
                .close(WebSocketCloseCode(rawValue: 4000), reason: "bye"),
            ])
        #expect(server.webSocketTranscript.allSatisfy { $0.connectionID == 1 })
    }

    @Test("the 101 names the subprotocol and carries the extra fields; the handler sees the handshake")
    func handshake() async throws {
        let requests = Recorder<LoopbackServer.Request>()
        let server = try LoopbackServer { request in
            requests.append(request)
            return .webSocket(.echo, subprotocol: "chat.v2", headers: [("Set-Cookie", "session=abc; Path=/")])
        }
        defer { server.shutdown() }
        var options = WebSocketOptions()
        options.subprotocols = ["chat.v1", "chat.v2"]
        // A ws:// base URL, as users write it.
        let endpoint = ClientTestEndpoint(baseURL: URL(string: "ws://127.0.0.1:\(server.port)")!, path: "/chat")
        let socket = try await client.webSocket(endpoint, options: options).valueWithin()

        #expect(socket.subprotocol == "chat.v2")
        #expect(socket.response.statusCode == 101)
        #expect(socket.response.headers.values(for: "Set-Cookie") == ["session=abc; Path=/"])
        let request = try #require(requests.elements.first)
        #expect(request.path == "/chat")
        #expect(request.header("Sec-WebSocket-Version") == "13")
        #expect(request.header("Sec-WebSocket-Protocol") == "chat.v1, chat.v2")
        #expect(await server.awaitStatistics { $0.responsesCompleted == 1 }, "the 101 counts as a response")
        try await socket.close().valueWithin()
    }

    @Test("a message sent in fragments arrives whole, even one cut inside a character")
    func fragments() async throws {
        // "hello, fragmented w" is 19 bytes: the cut after byte 20 splits the two bytes of "ö".
        let text = "hello, fragmented wörld"
        let bytes = Data((0..<100).map { UInt8($0) })
        let server = try LoopbackServer { _ in
            .webSocket(
                .script([
                    .sendFragments(.text(text), sizes: [1, 7, 0, 12]),
                    .sendFragments(.binary(bytes), sizes: [10, 10]),
                ]))
        }
        defer { server.shutdown() }
        let socket = try await client.webSocket(server.webSocketEndpoint()).valueWithin()
        #expect(try await socket.receive().valueWithin() == .text(text))
        #expect(try await socket.receive().valueWithin() == .binary(bytes))
        // After its script the peer echoes.
        try await socket.send(text: "still there?").valueWithin()
        #expect(try await socket.receive().valueWithin() == .text("still there?"))
        try await socket.close().valueWithin()
    }

    @Test("a scripted close ends the client's messages cleanly, with the server's code and reason")
    func scriptedClose() async throws {
        let server = try LoopbackServer { _ in
            .webSocket(
                .script([.send(.text("last words")), .close(WebSocketCloseCode(rawValue: 4001), reason: "done")]))
        }
        defer { server.shutdown() }
        let socket = try await client.webSocket(server.webSocketEndpoint()).valueWithin()
        #expect(try await socket.receive().valueWithin() == .text("last words"))
        #expect(try await socket.receive().valueWithin() == nil)
        #expect(socket.closeReceived?.code == WebSocketCloseCode(rawValue: 4001))
        #expect(socket.closeReceived?.reason == "done")
        // The client answered with the same code (§5.5.1), which ended the server's wait.
        #expect(
            await eventually {
                server.transcriptEvents.contains(.close(WebSocketCloseCode(rawValue: 4001), reason: ""))
            })
    }

    @Test("receive waits for the client's message; a pause reads nothing; a scripted ping's pong is recorded")
    func receivePauseAndPing() async throws {
        let released = LoopbackServer.Gate()
        let server = try LoopbackServer { _ in
            .webSocket(.script([.receive, .ping([1, 2, 3]), .pauseUntil(released), .send(.text("got it"))]))
        }
        defer { server.shutdown() }
        let socket = try await client.webSocket(server.webSocketEndpoint(), options: .patient).valueWithin()
        let answer = socket.receive()
        try await socket.send(text: "hello").valueWithin()
        #expect(await eventually { server.transcriptEvents == [.message(.text("hello"))] })
        await allowTimeForAWrongEvent()
        #expect(answer.isPending, "the script waits for the gate")
        // The client's pong (§5.5.2) waits in the socket while the script pauses.
        #expect(server.transcriptEvents == [.message(.text("hello"))])

        released.open()
        #expect(try await answer.valueWithin() == .text("got it"))
        try await socket.close().valueWithin()
        #expect(
            server.transcriptEvents == [
                .message(.text("hello")), .pong([1, 2, 3]), .close(.normalClosure, reason: ""),
            ])
    }

    @Test("waitForWebSocketTranscript wakes when the entry it waits for arrives")
    func waitingForTheTranscript() async throws {
        let server = try LoopbackServer { _ in .webSocket(.silent) }
        defer { server.shutdown() }
        let socket = try await client.webSocket(server.webSocketEndpoint()).valueWithin()
        let arrived = onThread {
            server.waitForWebSocketTranscript(timeout: 30) { $0.map(\.event).contains(.message(.text("knock"))) }
        }
        try await socket.send(text: "knock").valueWithin()
        #expect(try await arrived.valueWithin())
        // A condition that never holds: the wait gives up when its time is up.
        #expect(
            try await onThread { server.waitForWebSocketTranscript(timeout: 0.05) { $0.count > 1 } }.valueWithin()
                == false)
        // No close: a silent peer would not answer it.
        withExtendedLifetime(socket) {}
    }

    // MARK: - A server that went quiet

    @Test("a silent peer is detected by the client's ping timer on a manual clock")
    func silentPeerIsUnresponsive() async throws {
        let server = try LoopbackServer { _ in .webSocket(.silent) }
        defer { server.shutdown() }
        let clock = ManualClock()
        var configuration = NetworkClient.Configuration()
        configuration.clock = clock
        let client = NetworkClient(configuration: configuration, transport: CurlTransport())
        var options = WebSocketOptions()
        options.pingInterval = 20
        options.pongTimeout = 5
        let socket = try await client.webSocket(server.webSocketEndpoint(), options: options).valueWithin()
        let next = socket.receive()

        // The session arms its ping timer just after the handshake settles.
        #expect(await eventually { clock.pendingDelays.contains(20) }, "\(clock.pendingDelays)")
        clock.advance(by: 20)
        #expect(await eventually { server.transcriptEvents.contains { if case .ping = $0 { true } else { false } } })
        #expect(next.isPending)
        clock.advance(by: 5)

        guard case .failure(KringleError.webSocketUnresponsive(_, let silence)) = await next.outcome() else {
            Issue.record("expected webSocketUnresponsive, got \(await next.outcome())")
            return
        }
        #expect(silence == 5)
        // The client hung up, which ends the silent peer.
        #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 })
    }

    // MARK: - Hostile servers

    @Test(
        "the client fails the connection on a frame that breaks the protocol, with the right close code",
        arguments: HostileFrame.all)
    func hostileFrame(_ hostile: HostileFrame) async throws {
        let server = try LoopbackServer { _ in .webSocket(.script([hostile.step])) }
        defer { server.shutdown() }
        var options = WebSocketOptions()
        options.maximumMessageLength = 1024
        let socket = try await client.webSocket(server.webSocketEndpoint(), options: options).valueWithin()

        let outcome = await socket.receive().outcome()
        guard case .failure(KringleError.webSocketProtocolViolation(_, let violation)) = outcome else {
            Issue.record("expected webSocketProtocolViolation, got \(outcome)")
            return
        }
        #expect(violation == hostile.violation)
        // §7.1.7: the client said why in its close frame.
        #expect(
            await eventually { server.transcriptEvents.contains(.close(hostile.closeCode, reason: "")) },
            "\(server.transcriptEvents)")
    }

    // MARK: - Not a handshake

    @Test("a request that is not an opening handshake gets 400 Bad Request", arguments: NotAHandshake.all)
    func notAHandshake(_ request: NotAHandshake) async throws {
        let server = try LoopbackServer { _ in .webSocket(.echo) }
        defer { server.shutdown() }
        let outcome = await client.get(server.clientEndpoint("/socket", headers: request.headers), as: Data.self)
            .outcome()
        guard case .failure(KringleError.unacceptableStatusCode(400, let response)) = outcome else {
            Issue.record("expected a 400, got \(outcome)")
            return
        }
        #expect(response.headers["Sec-WebSocket-Version"] == request.versionAnswer)
        #expect(server.webSocketTranscript.isEmpty)
        #expect(await server.awaitStatistics { $0.responsesCompleted == 1 && $0.requestsRejected == 0 })
    }

    // MARK: - Shutdown

    @Test(
        "server shutdown ends a WebSocket connection at once, whatever its peer is doing",
        arguments: Stalled.all)
    func shutdownEndsTheConnection(_ stalled: Stalled) async throws {
        let server = try LoopbackServer { _ in .webSocket(stalled.peer) }
        let socket = try await client.webSocket(server.webSocketEndpoint()).valueWithin()
        let next = socket.receive()

        #expect(await onThread { server.shutdown() }.outcome(within: 60).failure == nil)
        guard case .failure(KringleError.webSocketClosed(_, .abnormalClosure, _)) = await next.outcome() else {
            Issue.record("expected webSocketClosed(1006), got \(await next.outcome())")
            return
        }
    }
}

// MARK: - Cases

/// A frame no client may accept, the error it must report and the close code it must send
/// (RFC 6455 §7.4.1), with a `maximumMessageLength` of 1024.
struct HostileFrame: Sendable, CustomTestStringConvertible {
    var name: String
    var step: LoopbackServer.WebSocketScriptStep
    var violation: WebSocketProtocolError
    var closeCode: WebSocketCloseCode

    var testDescription: String { name }

    static let all: [HostileFrame] = [
        // §5.7's masked "Hello"; §5.1: a server must not mask.
        HostileFrame(
            name: "masked frame",
            step: .sendBytes([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]),
            violation: .maskedFrameFromServer, closeCode: .protocolError),
        // §5.2: opcodes 0x3-0x7 are reserved.
        HostileFrame(
            name: "reserved opcode", step: .sendBytes([0x83, 0x00]), violation: .reservedOpcode(3),
            closeCode: .protocolError),
        // §8.1: 0xC3 0x28 is not UTF-8 (0x28 cannot continue a two-byte sequence).
        HostileFrame(
            name: "text that is not UTF-8", step: .sendBytes([0x81, 0x02, 0xC3, 0x28]), violation: .invalidUTF8,
            closeCode: .invalidFramePayloadData),
        // §5.5: a control frame carries at most 125 bytes.
        HostileFrame(
            name: "ping of 126 bytes", step: .ping([UInt8](repeating: 0x61, count: 126)),
            violation: .controlFrameTooLong(126), closeCode: .protocolError),
        HostileFrame(
            name: "frame over the maximum message length", step: .send(.binary(Data(count: 2000))),
            violation: .frameTooLong(2000), closeCode: .messageTooBig),
        HostileFrame(
            name: "fragments over the maximum message length",
            step: .sendFragments(.binary(Data(count: 2000)), sizes: [1000]), violation: .messageTooLong(2000),
            closeCode: .messageTooBig),
    ]
}

/// A request the WebSocket peer must refuse with 400 (RFC 6455 §4.2.1), and the
/// `Sec-WebSocket-Version` it answers with (§4.4: only when the version was wrong).
struct NotAHandshake: Sendable, CustomTestStringConvertible {
    var name: String
    var headers: [String: String]
    var versionAnswer: String?

    var testDescription: String { name }

    private static let valid = [
        "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
    ]

    static let all: [NotAHandshake] = [
        NotAHandshake(name: "a plain GET", headers: [:]),
        NotAHandshake(name: "no Sec-WebSocket-Key", headers: valid.filter { $0.key != "Sec-WebSocket-Key" }),
        NotAHandshake(
            name: "a key of 5 bytes", headers: valid.merging(["Sec-WebSocket-Key": "c2hvcnQ="]) { $1 }),
        NotAHandshake(name: "no Upgrade", headers: valid.filter { $0.key != "Upgrade" }),
        NotAHandshake(
            name: "version 8", headers: valid.merging(["Sec-WebSocket-Version": "8"]) { $1 }, versionAnswer: "13"),
    ]
}

/// A peer busy with something when the server shuts down.
struct Stalled: Sendable, CustomTestStringConvertible {
    var name: String
    var peer: LoopbackServer.WebSocketPeer

    var testDescription: String { name }

    static let all: [Stalled] = [
        Stalled(name: "silent", peer: .silent),
        Stalled(name: "an hour's pause", peer: .script([.pause(3600)])),
        Stalled(name: "a gate never opened", peer: .script([.pauseUntil(LoopbackServer.Gate())])),
        Stalled(name: "waiting for a message", peer: .script([.receive])),
    ]
}

// MARK: - Helpers

extension WebSocketOptions {
    /// Options whose closing handshake waits a minute for the server's close frame (5
    /// seconds of real time by default), for tests that look at what the server answered.
    fileprivate static var patient: WebSocketOptions {
        var options = WebSocketOptions()
        options.closeTimeout = 60
        return options
    }
}

extension LoopbackServer {
    /// The server's root as a WebSocket endpoint (`http://127.0.0.1:<port>/socket`, which the
    /// client opens as `ws://`).
    fileprivate func webSocketEndpoint() -> ClientTestEndpoint {
        clientEndpoint("/socket")
    }

    /// What the clients sent, without the connections.
    fileprivate var transcriptEvents: [WebSocketTranscriptEntry.Event] {
        webSocketTranscript.map(\.event)
    }
}

/// Runs blocking `work` on a thread of its own, so that it never holds one of Swift
/// concurrency's cooperative threads; the promise settles with its result.
private func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) -> Promise<T> {
    let result = Promise<T>.pending()
    Thread { result.fulfill(work()) }.start()
    return result
}
