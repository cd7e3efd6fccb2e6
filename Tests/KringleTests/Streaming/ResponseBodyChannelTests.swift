import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import Testing

@testable import KringleCore

@Suite("ResponseBodyChannel", .generousTimeLimit)
struct ResponseBodyChannelTests {
    private static func chunk(_ text: String) -> Data { Data(text.utf8) }

    @Test("chunks reach the reader in order, then the end; a chunk offered to a waiting reader goes straight to it")
    func order() async throws {
        let channel = ResponseBodyChannel(capacity: 100)
        #expect(channel.offer(Self.chunk("a")))
        #expect(channel.offer(Self.chunk("b")))
        #expect(try await channel.next() == Self.chunk("a"))
        #expect(try await channel.next() == Self.chunk("b"))
        let reading = Task { try await channel.next() }
        while !channel.offer(Self.chunk("c")) { await Task.yield() }
        #expect(try await reading.value == Self.chunk("c"))
        channel.finish()
        #expect(try await channel.next() == nil)
        #expect(try await channel.next() == nil)
        #expect(!channel.offer(Self.chunk("late")))
    }

    @Test("an error ends the body after the chunks still waiting")
    func error() async throws {
        let channel = ResponseBodyChannel()
        #expect(channel.offer(Self.chunk("a")))
        channel.finish(throwing: TestError(code: 7))
        channel.finish()  // changes nothing
        #expect(try await channel.next() == Self.chunk("a"))
        await #expect(throws: TestError(code: 7)) { try await channel.next() }
    }

    @Test("a full channel refuses offers until the reader takes it down to half, then says so once")
    func backpressure() async throws {
        let channel = ResponseBodyChannel(capacity: 4)
        let rooms = Counter()
        channel.onRoom { _ = rooms.increment() }
        for _ in 0..<4 { #expect(channel.offer(Self.chunk("x"))) }
        #expect(!channel.offer(Self.chunk("y")), "full")
        _ = try await channel.next()  // 3 left: more than half
        #expect(rooms.value == 0)
        _ = try await channel.next()  // 2 left: half
        #expect(rooms.value == 1)
        #expect(channel.waitForRoom(), "room was made: no wait")
        #expect(channel.offer(Self.chunk("y")))
        #expect(channel.offer(Self.chunk("y")))
        #expect(!channel.offer(Self.chunk("z")), "full again")
        for _ in 0..<4 { _ = try await channel.next() }
        #expect(rooms.value == 2)
        #expect(channel.offer(Self.chunk("z")))
        _ = try await channel.next()
        #expect(rooms.value == 2, "no offer was refused since")
    }

    @Test("waitForRoom blocks a transport thread until the reader makes room, or leaves")
    func waitForRoom() async throws {
        let channel = ResponseBodyChannel(capacity: 1)
        #expect(channel.offer(Self.chunk("a")))
        #expect(!channel.offer(Self.chunk("b")))
        let waited = Box<Bool?>(nil)
        let thread = Thread { waited.withLock { $0 = channel.waitForRoom() } }
        thread.start()
        #expect(try await channel.next() == Self.chunk("a"))
        while waited.value == nil { await Task.yield() }
        #expect(waited.value == true)

        #expect(channel.offer(Self.chunk("b")))
        #expect(!channel.offer(Self.chunk("c")))
        let leaving = Box<Bool?>(nil)
        Thread { leaving.withLock { $0 = channel.waitForRoom() } }.start()
        channel.cancel()
        while leaving.value == nil { await Task.yield() }
        #expect(leaving.value == false)
    }

    @Test("cancel drops what waits, refuses later offers, stops the transfer once, and wakes a waiting reader")
    func cancel() async throws {
        let channel = ResponseBodyChannel()
        let stops = Counter()
        channel.onCancel { _ = stops.increment() }
        #expect(channel.offer(Self.chunk("a")))
        channel.cancel()
        channel.cancel()
        #expect(stops.value == 1)
        #expect(channel.isCancelled)
        #expect(!channel.offer(Self.chunk("b")))
        await #expect(throws: PromiseError.cancelled) { try await channel.next() }
        let late = Counter()
        channel.onCancel { _ = late.increment() }
        #expect(late.value == 1, "a handler set after the reader left runs at once")

        let other = ResponseBodyChannel()
        let reading = Task { try await other.next() }
        reading.cancel()
        await #expect(throws: PromiseError.cancelled) { try await reading.value }
        #expect(other.isCancelled)
    }

    @Test("a reader that got the whole body can cancel without stopping anything")
    func cancelAfterEnd() async throws {
        let channel = ResponseBodyChannel()
        let stops = Counter()
        channel.onCancel { _ = stops.increment() }
        channel.finish()
        #expect(try await channel.next() == nil)
        channel.cancel()
        #expect(stops.value == 0)
    }
}
