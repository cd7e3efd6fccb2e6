import Foundation
@_spi(KringleInternals) import KringlePromise

/// A Server-Sent Events stream (WHATWG HTML §9.2): the events of a `text/event-stream`
/// response as they arrive, reconnecting when the connection drops.
///
/// ```swift
/// for try await event in client.events(Chat.updates) {
///     print(event.event, event.data)
/// }
/// ```
///
/// Each connection sends `Accept: text/event-stream` and `Cache-Control: no-cache` (an
/// endpoint's own fields win), and after the first, `Last-Event-ID` with the last event ID
/// received. When a connection ends or breaks, the stream waits the reconnection time (the
/// server's `retry:`, else ``Reconnection/delay``; doubled after each attempt that failed,
/// up to ``Reconnection/maximumDelay``) on the client's clock and connects again, up to
/// ``Reconnection/maximumAttempts`` times in a row. A `204 No Content`, another
/// `Content-Type` (``KringleError/eventStreamRefused(_:reason:)``) or a status outside
/// `acceptableStatusCodes` ends it for good. Leaving the loop, or cancelling its task,
/// closes the connection.
public struct EventStream: AsyncSequence, Sendable {
    /// What the sequence yields.
    public typealias Element = ServerSentEvent

    /// When and how often a dropped stream connects again.
    public struct Reconnection: Sendable, Hashable {
        /// The wait before reconnecting when the server set no `retry:`: 3 s.
        public var delay: TimeInterval = 3
        /// The longest wait, however often attempts failed: 60 s.
        public var maximumDelay: TimeInterval = 60
        /// How many reconnections in a row may fail (or end without an event) before the
        /// stream ends with the last error: 10. A connection that delivers an event starts
        /// the count again.
        public var maximumAttempts = 10

        /// The defaults.
        public init() {}
    }

    let connect: @Sendable (_ lastEventID: String?) -> ResponseStream
    let reconnection: Reconnection
    let clock: any KringleClock

    /// An iterator over the sequence; iterate once.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(stream: self)
    }

    /// Takes the events one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: EventStream
        var parser = ServerSentEventParser()
        var lines: ResponseStream.Lines.AsyncIterator?
        var isFirstLine = true
        /// Reconnections since the last event.
        var failedAttempts = 0

        init(stream: EventStream) {
            self.stream = stream
        }

        /// The next event; the stream ends only by an error (or by the task's cancellation).
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                try Task.checkCancellation()
                do {
                    if lines == nil { try await open() }
                    guard let line = try await lines?.next() else {
                        try await reconnect(after: nil)
                        continue
                    }
                    let text = isFirstLine && line.hasPrefix("\u{FEFF}") ? String(line.dropFirst()) : line
                    isFirstLine = false
                    if let event = parser.take(text) {
                        failedAttempts = 0
                        return event
                    }
                } catch let error where Self.endsForGood(error) {
                    lines = nil
                    throw error
                } catch {
                    try await reconnect(after: error)
                }
            }
        }

        /// Connects, and checks that the answer is an event stream.
        private mutating func open() async throws {
            let response = stream.connect(parser.lastEventID)
            let head = try await response.response
            let type = head.headers["Content-Type"]?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased()
            if head.statusCode == 204 || type != "text/event-stream" {
                response.cancel()
                let reason =
                    head.statusCode == 204
                    ? "204 No Content: the server asks not to reconnect"
                    : "Content-Type is \(head.headers["Content-Type"] ?? "missing"), not text/event-stream"
                throw KringleError.eventStreamRefused(
                    Response(
                        value: Data(), statusCode: head.statusCode, headers: head.headers, body: Data(),
                        url: head.url),
                    reason: reason)
            }
            lines = response.lines.makeAsyncIterator()
            isFirstLine = true
        }

        /// Waits the reconnection time, then lets the loop connect again; throws `error`
        /// (or ends) once the attempts are spent.
        private mutating func reconnect(after error: (any Error)?) async throws {
            lines = nil
            failedAttempts += 1
            guard failedAttempts <= stream.reconnection.maximumAttempts else {
                throw error ?? KringleError.transport(URLError(.networkConnectionLost))
            }
            let base = parser.reconnectionTime.map { TimeInterval($0) / 1000 } ?? stream.reconnection.delay
            let backoff = base * pow(2, Double(failedAttempts - 1))
            let delay = Swift.min(backoff, Swift.max(base, stream.reconnection.maximumDelay))
            try await Promise(()).delay(delay, clock: stream.clock).value
        }

        /// Errors after which reconnecting cannot help: the server's refusal, a status it
        /// will answer again, a request that cannot be made, the caller's cancellation.
        private static func endsForGood(_ error: any Error) -> Bool {
            if error.isCancellation || error is CancellationError { return true }
            guard let error = error as? KringleError else { return false }
            switch error {
            case .eventStreamRefused, .unacceptableStatusCode, .invalidRequest, .tooManyRedirects, .insecureRedirect,
                .tls, .lineTooLong, .responseTooLarge:
                return true
            default:
                return false
            }
        }
    }
}

extension NetworkClient {
    /// The Server-Sent Events of `endpoint`, reconnecting as ``EventStream`` describes.
    ///
    /// ```swift
    /// for try await event in client.events(Chat.updates) where event.event == "message" {
    ///     print(event.data)
    /// }
    /// ```
    public func events(_ endpoint: some Endpoint, reconnection: EventStream.Reconnection = .init()) -> EventStream {
        EventStream(
            connect: { lastEventID in
                var headers = ["Accept": "text/event-stream", "Cache-Control": "no-cache"]
                if let lastEventID, !lastEventID.isEmpty { headers["Last-Event-ID"] = lastEventID }
                let url =
                    (try? URLAssembly.url(base: endpoint.baseURL, path: endpoint.path, queryItems: []))
                    ?? endpoint.baseURL
                return ResponseStream(started: self.startStream(.get, endpoint, body: nil, headers: headers), url: url)
            },
            reconnection: reconnection, clock: configuration.clock)
    }
}
