import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

/// What happens to a connection its owner lets go of, against LoopbackServer's echo peer.
struct WebSocketLifetimeTests {
    @Test func droppingTheLastReferenceClosesWithGoingAway() async throws {
        let server = try LoopbackServer { _ in .webSocket(.echo) }
        defer { server.shutdown() }
        let client = NetworkClient(transport: CurlTransport())
        do {
            let socket = try await client.webSocket(server.clientEndpoint("/socket")).value
            try await socket.send(text: "still here").value
            #expect(try await socket.receive().value == .text("still here"))
        }
        // The socket is gone: its connection closed with 1001 (RFC 6455 §7.4.1).
        let closed = await eventually {
            server.webSocketTranscript.map(\.event).contains(.close(.goingAway, reason: ""))
        }
        #expect(closed, "\(server.webSocketTranscript)")
    }
}
