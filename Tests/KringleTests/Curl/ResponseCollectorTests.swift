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

    @Test(arguments: [
        (0, true, false), (100 << 10, true, false), (BodyBuffer.mappingThreshold, false, false),
        (BodyBuffer.mappingThreshold, true, true),
    ])
    func keepsEveryByteInOrder(reserving capacity: Int, isExact: Bool, mapped: Bool) {
        var buffer = BodyBuffer()
        buffer.reserve(capacity, isExact: isExact)
        let chunks = (0..<5).map { patternedData(count: 16_384 + $0) }
        for chunk in chunks { Self.append(chunk, to: &buffer) }

        #expect(buffer.isMapped == mapped)
        #expect(buffer.count == chunks.reduce(0) { $0 + $1.count })
        #expect(buffer.takeContents() == chunks.reduce(Data(), +))
    }

    @Test func aMappedBodyOutlivesItsBufferAndCopiesWhenShared() {
        let sent = patternedData(count: 70_000)
        var received: Data
        do {
            var buffer = BodyBuffer()
            buffer.reserve(BodyBuffer.mappingThreshold, isExact: true)
            #expect(buffer.isMapped)
            Self.append(sent, to: &buffer)
            received = buffer.takeContents()
            #expect(!buffer.isMapped, "the mapping went to the Data")
            #expect(buffer.takeContents() == sent, "taking it again gives the same bytes")
        }
        let copy = received

        received[0] ^= 0xFF
        #expect(copy == sent, "a write to one Data never shows in another")
        #expect(received != sent)
    }

    @Test func moreThanAnnouncedMovesIntoAGrowingBody() {
        let announced = BodyBuffer.mappingThreshold
        var buffer = BodyBuffer()
        buffer.reserve(announced, isExact: true)
        let first = Data(repeating: 0xA5, count: announced - 3)
        let beyond = Data("past the announced length".utf8)
        Self.append(first, to: &buffer)
        Self.append(beyond, to: &buffer)

        #expect(!buffer.isMapped)
        #expect(buffer.count == first.count + beyond.count)
        let contents = buffer.takeContents()
        #expect(contents.prefix(first.count) == first)
        #expect(contents.suffix(beyond.count) == beyond)
    }

    @Test func aReservationAfterTheFirstBytesChangesNothing() {
        var buffer = BodyBuffer()
        Self.append(Data("early".utf8), to: &buffer)
        buffer.reserve(BodyBuffer.mappingThreshold, isExact: true)
        Self.append(Data(" and late".utf8), to: &buffer)

        #expect(!buffer.isMapped)
        #expect(buffer.takeContents() == Data("early and late".utf8))
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
