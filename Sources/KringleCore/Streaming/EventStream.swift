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
/// ``Reconnection/maximumAttempts`` times in a row; then it ends (or throws the last
/// connection's error). A status other than 200 (`204 No Content` included) or another
/// `Content-Type` (``KringleError/eventStreamRefused(_:reason:)``), or a status outside
/// `acceptableStatusCodes` (``KringleError/unacceptableStatusCode(_:_:)``), ends it for good;
/// so does any failure that would only come again: a TLS failure, a refused redirect or
/// proxy, a configuration the server cannot speak, and a transport's own refusal (an error
/// that is not a ``KringleError``, or a ``KringleError/transport(_:)`` whose underlying error
/// is not a ``TransportFailure``, such as a cassette with no entry for the request: network
/// failures are ``TransportFailure``s).
/// An event cut short by the end of a connection is dropped, as the spec says. Leaving the
/// loop (once its iterator is released: in a function, not in top-level script code), or
/// cancelling its task, closes the connection.
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
        /// stream ends (with the last error, if the last connection failed): 10. A
        /// connection that delivers an event starts the count again.
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
        /// The current connection's lines.
        var lines: ResponseStream.Lines.AsyncIterator?
        var isFirstLine = true
        /// Reconnections since the last event.
        var failedAttempts = 0
        /// Set once the stream has ended for good: later calls end at once.
        var isFinished = false

        init(stream: EventStream) {
            self.stream = stream
        }

        /// The next event, or `nil` once reconnections are spent after connections that
        /// ended cleanly.
        public mutating func next() async throws -> ServerSentEvent? {
            guard !isFinished else { return nil }
            do {
                return try await nextEvent()
            } catch {
                isFinished = true
                lines = nil
                throw error
            }
        }

        private mutating func nextEvent() async throws -> ServerSentEvent? {
            while true {
                if Task.isCancelled { throw PromiseError.cancelled }
                do {
                    if lines == nil { try await open() }
                    guard let line = try await lines?.next() else {
                        // The connection ended; a last line without its ending is dropped with it.
                        guard try await reconnect(after: nil) else {
                            isFinished = true
                            return nil
                        }
                        continue
                    }
                    let text = isFirstLine && line.unicodeScalars.first == "\u{FEFF}" ? String(line.dropFirst()) : line
                    isFirstLine = false
                    if let event = parser.take(text) {
                        failedAttempts = 0
                        return event
                    }
                } catch let error where Self.endsForGood(error) {
                    throw error
                } catch {
                    guard try await reconnect(after: error) else { throw error }
                }
            }
        }

        /// Connects, and checks that the answer is an event stream (§9.2.3: status 200 and
        /// `text/event-stream`; anything else fails the connection for good).
        private mutating func open() async throws {
            let response = stream.connect(parser.lastEventID)
            let head = try await response.response
            let type = head.headers["Content-Type"]?.split(separator: ";").first?
                .trimmingCharacters(in: .whitespaces).lowercased()
            guard head.statusCode == 200, type == "text/event-stream" else {
                response.cancel()
                let reason =
                    head.statusCode == 204
                    ? "204 No Content: the server asks not to reconnect"
                    : head.statusCode != 200
                        ? "status \(head.statusCode), not 200"
                        : "Content-Type is \(head.headers["Content-Type"] ?? "missing"), not text/event-stream"
                var refused = Response(
                    value: Data(), statusCode: head.statusCode, headers: head.headers, body: Data(), url: head.url)
                refused.metrics = head.metrics
                refused.redaction = head.redaction
                throw KringleError.eventStreamRefused(refused, reason: reason)
            }
            lines = response.lines.makeAsyncIterator()
            lines?.deliversUnterminatedLastLine = false
            isFirstLine = true
        }

        /// Waits the reconnection time and lets the loop connect again: `false` once the
        /// attempts are spent.
        private mutating func reconnect(after error: (any Error)?) async throws -> Bool {
            lines?.chunks.reader.state.cancel()
            lines = nil
            parser.endOfStream()
            failedAttempts += 1
            guard failedAttempts <= stream.reconnection.maximumAttempts else { return false }
            let base = parser.reconnectionTime.map { TimeInterval($0) / 1000 } ?? stream.reconnection.delay
            let backoff = base * pow(2, Double(failedAttempts - 1))
            let delay = Swift.min(backoff, Swift.max(base, stream.reconnection.maximumDelay))
            try await Promise(()).delay(delay, clock: stream.clock).value
            return true
        }

        /// Errors after which reconnecting cannot help: the server's refusal, a status it
        /// will answer again, a request that cannot be made, the caller's cancellation, and
        /// an error of the transport's own. A transport reports network failures as
        /// ``KringleError``s (see ``Transport``); anything else (a `ReplayTransport`'s
        /// cassette with no entry left for the request) would only come again.
        private static func endsForGood(_ error: any Error) -> Bool {
            if error.isCancellation || error is CancellationError { return true }
            guard let error = error as? KringleError else { return true }
            switch error {
            case .eventStreamRefused, .unacceptableStatusCode, .invalidRequest, .tooManyRedirects, .insecureRedirect,
                .tls, .lineTooLong, .responseTooLarge, .proxyRefused, .unsupportedConfiguration:
                return true
            case .transport(let underlying):
                // Network failures are TransportFailures (CurlError, URLError, a cassette's
                // RecordedFailure); anything else is the transport's own refusal (no cassette
                // entry for the request), which would only come again.
                return !(underlying is any TransportFailure)
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
                return self.startStream(.get, endpoint, body: nil, headers: headers)
            },
            reconnection: reconnection, clock: configuration.clock)
    }
}
