import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KringleTesting
import Testing
@testable import Kringle

extension ExclusiveClientTests {
    @Suite("Transfer timeouts are idle timeouts")
    struct TransferTimeoutTests {
        @Test("a download that keeps making progress for longer than the timeout succeeds",
              arguments: TransportUnderTest.allCases)
        func progressOutlastsTimeout(_ transport: TransportUnderTest) async throws {
            // 20 steps of 64 KB, 150 ms apart: about 3 s in all, against a 1 s timeout.
            let body = streamingRandomData(count: 20 << 16, seed: 31)
            let steps = stride(from: 0, to: body.count, by: 1 << 16).map { offset in
                StreamingPacedServer.Step(bytes: body[offset..<(offset + (1 << 16))], pauseAfter: 0.15)
            }
            let server = try StreamingPacedServer(contentLength: body.count, steps: steps, ending: .close)
            defer { server.shutdown() }
            let scratch = try StreamingScratchDirectory()
            defer { scratch.remove() }
            let destination = scratch.file("slow.bin")
            let client = transport.client { $0.timeout = 1 }

            let start = ContinuousClock.now
            let outcome = await client.download(ClientTestEndpoint(baseURL: server.baseURL, path: "/slow.bin"), to: destination)
                .outcome(within: 30)
            let elapsed = ContinuousClock.now - start
            #expect(outcome.failure == nil, "\(outcome)")
            #expect(elapsed > .milliseconds(2_000), "the transfer outlasted the timeout: \(elapsed)")
            // One request: no timeout was hidden by a retry.
            #expect(server.requestHeads.map { $0.hasPrefix("GET /slow.bin HTTP/1.1\r\n") } == [true])
            #expect(streamingContents(of: destination) == body)
            #expect(scratch.entries == ["slow.bin"])
        }

        @Test("a transfer that stalls mid-body rejects with timedOut after the timeout and leaves no file",
              arguments: TransportUnderTest.allCases)
        func stallMidBody(_ transport: TransportUnderTest) async throws {
            let body = streamingRandomData(count: 1 << 20, seed: 32)
            let server = try StreamingPacedServer(
                contentLength: body.count,
                steps: [.init(bytes: body.prefix(200_000), pauseAfter: 0)],
                ending: .holdUntilHangUp
            )
            defer { server.shutdown() }
            let scratch = try StreamingScratchDirectory()
            defer { scratch.remove() }
            let destination = scratch.file("stalled.bin")
            let client = transport.client { $0.timeout = 0.5 }
            let firstProgress = Promise<Void>.pending()

            let (outcome, elapsed) = await SettlementTimer.measure {
                client.download(ClientTestEndpoint(baseURL: server.baseURL, path: "/stalled.bin"), to: destination) { _ in
                    firstProgress.fulfill(())
                }
            }
            #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
            #expect(firstProgress.isFulfilled, "bytes did arrive before the stall")
            #expect(elapsed >= .milliseconds(490), "\(elapsed)")
            #expect(elapsed < .seconds(10), "\(elapsed)")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
            #expect((try? await server.peerHungUp.valueWithin(10)) != nil, "the stalled transfer was stopped")
        }

        @Test("a server that delays its answer past the timeout rejects the download with timedOut",
              arguments: TransportUnderTest.allCases)
        func delayedAnswer(_ transport: TransportUnderTest) async throws {
            let server = try LoopbackServer { _ in LoopbackServer.Response.data(Data(count: 1_000)).delayed(by: 10) }
            defer { server.shutdown() }
            let scratch = try StreamingScratchDirectory()
            defer { scratch.remove() }
            let destination = scratch.file("late.bin")
            let client = transport.client { $0.timeout = 0.5 }

            let (outcome, elapsed) = await SettlementTimer.measure {
                client.download(server.clientEndpoint("/late.bin"), to: destination)
            }
            #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
            #expect(elapsed >= .milliseconds(490), "\(elapsed)")
            #expect(elapsed < .seconds(5), "\(elapsed)")
            #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
            #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
        }

        @Test("a connection closed mid-body fails the download and leaves no file", arguments: TransportUnderTest.allCases)
        func closedMidBody(_ transport: TransportUnderTest) async throws {
            let server = try LoopbackServer { _ in
                LoopbackServer.Response.data(Data(count: 4 << 20)).withBehavior(.closeMidBody)
            }
            defer { server.shutdown() }
            let scratch = try StreamingScratchDirectory()
            defer { scratch.remove() }
            let previous = Data("keep me".utf8)
            let destination = try scratch.write(previous, to: "cut.bin")
            let client = transport.client { $0.timeout = 2 }

            let outcome = await client.download(server.clientEndpoint("/cut.bin"), to: destination).outcome(within: 20)
            let caseName = outcome.kringleError?.caseName
            #expect(caseName == "transport" || caseName == "timedOut", "\(outcome)")
            #expect(streamingContents(of: destination) == previous)
            #expect(await eventually { scratch.entries == ["cut.bin"] }, "\(scratch.entries)")
        }

        @Test("an upload is held to the timeout only while it makes no progress", arguments: TransportUnderTest.allCases)
        func uploadStalledAnswer(_ transport: TransportUnderTest) async throws {
            // The body goes out at once; the answer then takes longer than the timeout.
            let server = try LoopbackServer { request in
                LoopbackServer.Response.streamingReceipt(for: request).delayed(by: 10)
            }
            defer { server.shutdown() }
            let scratch = try StreamingScratchDirectory()
            defer { scratch.remove() }
            let file = try scratch.write(streamingRandomData(count: 1 << 20), to: "up.bin")
            let client = transport.client { $0.timeout = 0.5 }

            let (outcome, elapsed) = await SettlementTimer.measure {
                client.upload(file, to: server.clientEndpoint("/up"), as: StreamingReceipt.self)
            }
            #expect(outcome.kringleError?.caseName == "timedOut", "\(outcome)")
            #expect(elapsed < .seconds(5), "\(elapsed)")
            #expect(await server.awaitStatistics { $0.connectionsClosedByPeer == 1 }, "\(server.statistics)")
        }
    }
}
