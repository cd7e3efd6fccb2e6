/// Interprets the lines of an event stream (WHATWG HTML §9.2.6, "Interpreting an event
/// stream") and gives an event at each blank line that ends one.
///
/// Lines are taken as Unicode scalars, not characters: a combining mark after the colon
/// must not hide the colon.
struct ServerSentEventParser: Sendable {
    private var data: [String] = []
    private var hasData = false
    private var eventType = ""
    private var retry: Int?
    /// The last event ID buffer: set by `id:`, committed at the next dispatch.
    private var lastEventIDBuffer: String?
    /// The event source's last event ID string, which a reconnection sends: the buffer as
    /// it was at the latest dispatch, kept from event to event and across connections.
    private(set) var lastEventID: String?
    /// The stream's reconnection time in milliseconds, once a `retry:` field set it: it
    /// applies at once, whether or not an event follows.
    private(set) var reconnectionTime: Int?

    init(lastEventID: String? = nil) {
        self.lastEventID = lastEventID
        lastEventIDBuffer = lastEventID
    }

    /// Takes one line (without its ending, already UTF-8 decoded, a leading BOM removed from
    /// the stream's first line) and returns the event it completes, if it is a blank line
    /// after fields.
    mutating func take(_ line: String) -> ServerSentEvent? {
        let scalars = line.unicodeScalars
        guard let first = scalars.first else { return dispatch() }
        if first == ":" { return nil }  // a comment
        let name: String
        var value: Substring.UnicodeScalarView
        if let colon = scalars.firstIndex(of: ":") {
            name = String(scalars[..<colon])
            value = Substring(line).unicodeScalars[scalars.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            name = line  // a field name alone: its value is empty
            value = Substring.UnicodeScalarView()
        }
        switch name {
        case "event":
            eventType = String(value)
        case "data":
            data.append(String(value))
            hasData = true
        case "id":
            // An ID with a NUL would break the Last-Event-ID header: the field is ignored.
            if !value.contains("\0") { lastEventIDBuffer = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ ("0"..."9").contains($0) }) {
                retry = Int(String(value))
                reconnectionTime = retry ?? reconnectionTime
            }
        default:
            break  // unknown fields are ignored
        }
        return nil
    }

    /// The end of one connection's stream: an event not yet ended by a blank line is
    /// discarded (§9.2.6: "any pending data must be discarded"), and so is an `id:` that no
    /// dispatch committed.
    mutating func endOfStream() {
        data.removeAll()
        hasData = false
        eventType = ""
        retry = nil
        lastEventIDBuffer = lastEventID
    }

    /// §9.2.6 "dispatch the event": the last event ID is committed; nothing more when no
    /// data arrived (the type is reset all the same); else the event, its data lines joined
    /// by LF.
    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = lastEventIDBuffer
        defer {
            data.removeAll()
            hasData = false
            eventType = ""
            retry = nil
        }
        guard hasData else { return nil }
        return ServerSentEvent(
            event: eventType.isEmpty ? "message" : eventType, data: data.joined(separator: "\n"), id: lastEventID,
            retry: retry)
    }
}

extension String {
    fileprivate init(_ scalars: Substring.UnicodeScalarView) {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        self = String(text)
    }
}
