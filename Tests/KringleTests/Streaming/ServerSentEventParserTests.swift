import Kringle
import Testing

@testable import KringleCore

/// WHATWG HTML §9.2.6, "Interpreting an event stream", one rule per row.
@Suite("Server-Sent Events parsing (WHATWG HTML §9.2.6)")
struct ServerSentEventParserTests {
    private static func events(_ lines: [String], lastEventID: String? = nil) -> [ServerSentEvent] {
        var parser = ServerSentEventParser(lastEventID: lastEventID)
        return lines.compactMap { parser.take($0) }
    }

    @Test(
        "fields make events, dispatched only at a blank line",
        arguments: [
            (["data: hello", ""], [ServerSentEvent(data: "hello")]),
            (["data: hello"], []),
            (["data: a", "data: b", ""], [ServerSentEvent(data: "a\nb")]),
            (["data:no space", ""], [ServerSentEvent(data: "no space")]),
            (["data:  two spaces", ""], [ServerSentEvent(data: " two spaces")]),
            (["data", ""], [ServerSentEvent(data: "")]),
            (["data:", "data:", ""], [ServerSentEvent(data: "\n")]),
            (["event: add", "data: 1", ""], [ServerSentEvent(event: "add", data: "1")]),
            (["event: add", "", "data: 1", ""], [ServerSentEvent(data: "1")]),
            ([": a comment", "data: x", ": another", ""], [ServerSentEvent(data: "x")]),
            (["unknown: field", "data: x", ""], [ServerSentEvent(data: "x")]),
            (["", "", "data: x", ""], [ServerSentEvent(data: "x")]),
            (["id: 7", ""], []),
        ])
    func fields(_ lines: [String], _ expected: [ServerSentEvent]) {
        #expect(Self.events(lines) == expected)
    }

    @Test("the last event ID carries over to later events and ignores an id with a NUL")
    func lastEventID() {
        let events = Self.events([
            "id: 1", "data: a", "", "data: b", "", "id: x\0y", "data: c", "", "id", "data: d", "",
        ])
        #expect(events.map(\.id) == ["1", "1", "1", ""])
        #expect(Self.events(["data: a", ""], lastEventID: "41").map(\.id) == ["41"])
    }

    @Test("retry takes digits only and sets the reconnection time even without an event")
    func retry() {
        var parser = ServerSentEventParser()
        #expect(parser.take("retry: 1500") == nil)
        #expect(parser.take("") == nil)
        #expect(parser.reconnectionTime == 1500)
        #expect(parser.take("retry: 15x") == nil)
        #expect(parser.take("retry:") == nil)
        #expect(parser.take("data: a") == nil)
        #expect(parser.take("") == ServerSentEvent(data: "a"))
        #expect(parser.reconnectionTime == 1500)
        #expect(parser.take("retry: 20") == nil)
        #expect(parser.take("data: b") == nil)
        #expect(parser.take("") == ServerSentEvent(data: "b", retry: 20))
    }

    @Test("fields are split on Unicode scalars: a combining mark after the colon or the space stays in the value")
    func scalars() {
        #expect(Self.events(["data:\u{301}x", ""]) == [ServerSentEvent(data: "\u{301}x")])
        #expect(Self.events(["data: \u{301}y", ""]) == [ServerSentEvent(data: "\u{301}y")])
    }

    @Test("the id is committed at dispatch; the end of a stream drops a pending event and an uncommitted id")
    func endOfStream() {
        var parser = ServerSentEventParser()
        #expect(parser.take("id: 1") == nil)
        #expect(parser.take("data: a") == nil)
        #expect(parser.lastEventID == nil, "not committed before the blank line")
        #expect(parser.take("") == ServerSentEvent(data: "a", id: "1"))
        #expect(parser.take("id: 2") == nil)
        #expect(parser.take("data: partial") == nil)
        parser.endOfStream()
        #expect(parser.lastEventID == "1")
        #expect(parser.take("data: b") == nil)
        #expect(parser.take("") == ServerSentEvent(data: "b", id: "1"))
    }
}
