import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// libcurl loads on this machine, and both ways of waiting for sockets work.
@Suite(.generousTimeLimit) struct CurlAvailabilityTests {
    @Test func libcurlIsAvailableHere() {
        #expect(CurlTransport.isAvailable)
        #expect(CurlTransport.libraryVersion?.hasPrefix("libcurl/") == true)
    }

    @Test func pollWaitingServesAndCancels() async throws {
        let server = try LoopbackServer { request in
            request.path == "/slow" ? .text("late").heldUntilHangUp() : .text("ok")
        }
        defer { server.shutdown() }
        let transport = CurlTransport(configuration: .init(), library: CurlLibrary.load(), portableWaiting: true)
        #expect(transport.waitsWithPoll)
        #expect(!CurlTransport().waitsWithPoll)

        for _ in 0..<3 {
            let response = try await transport.send(makeRequest(server.url("/"))).valueWithin()
            #expect(String(decoding: response.body, as: UTF8.self) == "ok")
        }
        let slow = transport.send(makeRequest(server.url("/slow")))
        #expect(await server.awaitStatistics(within: 30) { $0.requestsReceived == 4 })
        slow.cancel()
        #expect(await server.awaitStatistics(within: 20) { $0.connectionsClosedByPeer == 1 })
    }

    @Test func droppedTransportFinishesTransfersInFlight() async throws {
        let server = try LoopbackServer { _ in .text("finished").delayed(by: 0.2) }
        defer { server.shutdown() }
        var transport: CurlTransport? = CurlTransport()
        let promise = try #require(transport).send(makeRequest(server.url("/")))

        transport = nil

        let response = try await promise.valueWithin()
        #expect(String(decoding: response.body, as: UTF8.self) == "finished")
    }
}
