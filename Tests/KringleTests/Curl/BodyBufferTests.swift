import Foundation
import KringleTesting
import Testing

@testable import Kringle

/// How curl's buffered bodies are kept: in a `Data`, or in a mapping of their own when the
/// announced length is large.
@Suite struct BodyBufferTests {
    private static func append(_ data: Data, to buffer: inout BodyBuffer) {
        data.withUnsafeBytes { buffer.append($0) }
    }

    @Test(arguments: [0, 100 << 10, BodyBuffer.mappingThreshold])
    func keepsEveryByteInOrder(reserving capacity: Int) {
        var buffer = BodyBuffer()
        buffer.reserve(capacity)
        let chunks = (0..<5).map { patternedData(count: 16_384 + $0) }
        for chunk in chunks { Self.append(chunk, to: &buffer) }

        #expect(buffer.count == chunks.reduce(0) { $0 + $1.count })
        #expect(buffer.contents == chunks.reduce(Data(), +))
    }

    @Test func aMappedBodyOutlivesItsBuffer() {
        let sent = patternedData(count: 70_000)
        var received: Data
        do {
            var buffer = BodyBuffer()
            buffer.reserve(BodyBuffer.mappingThreshold)
            Self.append(sent, to: &buffer)
            received = buffer.contents
        }

        #expect(received == sent)
        received.append(1)
        #expect(received.count == sent.count + 1, "a copy, not the mapping, took the write")
    }

    @Test func moreThanAnnouncedMovesIntoAGrowingBody() {
        let announced = BodyBuffer.mappingThreshold
        var buffer = BodyBuffer()
        buffer.reserve(announced)
        let first = Data(repeating: 0xA5, count: announced - 3)
        let beyond = Data("past the announced length".utf8)
        Self.append(first, to: &buffer)
        Self.append(beyond, to: &buffer)

        #expect(buffer.count == first.count + beyond.count)
        let contents = buffer.contents
        #expect(contents.prefix(first.count) == first)
        #expect(contents.suffix(beyond.count) == beyond)
    }

    @Test func aReservationAfterTheFirstBytesChangesNothing() {
        var buffer = BodyBuffer()
        Self.append(Data("early".utf8), to: &buffer)
        buffer.reserve(BodyBuffer.mappingThreshold)
        Self.append(Data(" and late".utf8), to: &buffer)

        #expect(buffer.contents == Data("early and late".utf8))
    }

    @Test func aLargeAnnouncedBodyArrivesWholeThroughTheClient() async throws {
        let body = DownloadTests.fiftyMegabytes
        let server = try LoopbackServer { _ in .data(body) }
        defer { server.shutdown() }
        let client = TransportUnderTest.curl.client()

        let received = try await client.get(server.clientEndpoint("/big.bin"), as: Data.self).valueWithin(60)

        #expect(received.count == body.count)
        #expect(received == body, "the body differs from the served bytes")
    }
}
