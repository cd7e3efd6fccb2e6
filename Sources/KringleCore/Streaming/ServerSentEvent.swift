/// One event of a Server-Sent Events stream (WHATWG HTML §9.2, `text/event-stream`).
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its `event:` field, or `message` when it had none.
    public var event: String
    /// Its `data:` fields, joined by LF (one field: its value as it is).
    public var data: String
    /// The last event ID so far (`id:` of this event or an earlier one), which a reconnection
    /// sends as `Last-Event-ID`; `nil` when none was set.
    public var id: String?
    /// The reconnection time the stream asked for (`retry:`), in milliseconds, when this
    /// event set one.
    public var retry: Int?

    /// Creates an event.
    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}
