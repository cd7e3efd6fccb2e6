/// Interprets the lines of an event stream (WHATWG HTML §9.2.6, "Interpreting an event
/// stream") and gives an event at each blank line that ends one.
struct ServerSentEventParser: Sendable {
    private var data: [String] = []
    private var hasData = false
    private var eventType = ""
    private var retry: Int?
    /// The last event ID buffer: kept from event to event, and across reconnections.
    private(set) var lastEventID: String?
    /// The stream's reconnection time in milliseconds, once a `retry:` field set it: it
    /// applies at once, whether or not an event follows.
    private(set) var reconnectionTime: Int?

    init(lastEventID: String? = nil) {
        self.lastEventID = lastEventID
    }

    /// Takes one line (without its ending, already UTF-8 decoded, a leading BOM removed from
    /// the stream's first line) and returns the event it completes, if it is a blank line
    /// after fields.
    mutating func take(_ line: String) -> ServerSentEvent? {
        guard !line.isEmpty else { return dispatch() }
        if line.hasPrefix(":") { return nil }  // a comment
        let name: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            name = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            name = Substring(line)  // a field name alone: its value is empty
            value = ""
        }
        switch name {
        case "event":
            eventType = String(value)
        case "data":
            data.append(String(value))
            hasData = true
        case "id":
            // An ID with a NUL would break the Last-Event-ID header: the field is ignored.
            if !value.contains("\0") { lastEventID = String(value) }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                retry = Int(value)
                reconnectionTime = retry ?? reconnectionTime
            }
        default:
            break  // unknown fields are ignored
        }
        return nil
    }

    /// §9.2.6 "dispatch the event": nothing when no data arrived (the type is reset all the
    /// same); else the event, its data lines joined by LF.
    private mutating func dispatch() -> ServerSentEvent? {
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
