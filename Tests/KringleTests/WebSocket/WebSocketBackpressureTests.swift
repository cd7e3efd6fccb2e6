import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import Testing

@testable import KringleCore

/// Backpressure both ways, against the Python `websockets` server: a reader that falls
/// behind stops the socket being read (so the server's sends back up, not the client's
/// memory), and a sender faster than the socket waits.
@Suite(.requires(.websockets))
struct WebSocketBackpressureTests {
    let server: WebSocketTestServer

    init() async throws {
        server = try await WebSocketTestServer.shared.value.get()
    }

    @Test func aSlowReaderHoldsTheServerBack() async throws {
        var options = WebSocketOptions()
        options.receiveBufferBytes = 256 << 10
        options.offersCompression = false
        let client = NetworkClient(transport: CurlTransport())
        let count = 1024  // 64 MiB in all
        let socket = try await client.webSocket(server.endpoint("/flood/\(count)"), options: options).value
        // The buffer fills up to its bound and no further: reading stops at 256 KiB, give or
        // take what one read brings (64 KiB) and the message it completes.
        #expect(await eventually { socket.bufferedBytes >= 256 << 10 })
        #expect(socket.bufferedBytes <= (256 << 10) + (128 << 10))
        // Reading on resumes the socket: every message arrives, whole and in order.
        for index in 0..<count {
            guard case .binary(let data)? = try await socket.receive().value else {
                Issue.record("message \(index) missing")
                return
            }
            #expect(
                data.count == 64 << 10 && data.first == UInt8(index % 256) && data.last == UInt8((index + 255) % 256))
            #expect(socket.bufferedBytes <= (256 << 10) + (128 << 10))
        }
        try await socket.close().value
    }

    @Test func aSenderFasterThanTheSocketWaits() async throws {
        var options = WebSocketOptions()
        options.sendBufferBytes = 256 << 10
        options.closeTimeout = 0.5
        options.offersCompression = false
        let client = NetworkClient(transport: CurlTransport())
        let socket = try await client.webSocket(server.endpoint("/stall"), options: options).value
        // 16 MiB to a server that reads nothing: the sending socket's buffer (4 MiB at most,
        // tcp_wmem), the server's 64 KiB one, its queue (16 messages) and the send buffer take
        // under 6 MiB, so most sends can never be done.
        let chunk = Data(repeating: 0x2A, count: 64 << 10)
        let sends = (0..<256).map { _ in socket.send(data: chunk) }
        #expect(await eventually { sends.contains { !$0.isPending } })
        try await socket.close().value
        let failed = sends.filter { $0.isRejected }.count
        #expect(failed >= 128, "\(failed) of 256 sends failed once the connection closed")
        #expect(sends.allSatisfy { !$0.isPending })
    }
}
