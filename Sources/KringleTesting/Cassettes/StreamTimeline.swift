import Foundation

/// How a streamed response body arrived: the size of each chunk and when it came, and how
/// the stream ended. ``RecordingTransport`` writes it for every body it streamed to a reader;
/// ``ReplayTransport`` replays the body in the same chunks, at the same pace if asked.
///
/// It lives in custom fields of the response's `content` (HAR 1.2 allows fields whose names
/// begin with `_`; other readers ignore them):
///
/// ```json
/// "content": {
///   "size": 42, "mimeType": "text/event-stream", "text": "data: first\n\n…",
///   "_kringleChunks": [{"size": 13, "time": 2.5}, {"size": 29, "time": 1004.1}],
///   "_kringleStreamEnd": "cancelled"
/// }
/// ```
///
/// `time` is in milliseconds from the start of the exchange, as HAR's own times are.
/// `_kringleStreamEnd` is absent for a body that reached its end; `cancelled` when the reader
/// left first (the body is what arrived until then: an endless Server-Sent Events stream is
/// recorded this way); `failed` when the transfer broke, its error in `_kringleStreamError`.
struct StreamTimeline: Sendable, Equatable {
    /// One chunk as the reader got it.
    struct Chunk: Sendable, Equatable {
        /// Its length in bytes.
        var size: Int
        /// When it arrived, in seconds from the start of the exchange.
        var time: TimeInterval
    }

    /// How the body ended.
    enum End: Sendable, Equatable {
        /// At its end.
        case complete
        /// The reader left before the end.
        case cancelled
        /// The transfer broke; the error as the cassette shows it.
        case failed(String)
    }

    var chunks: [Chunk] = []
    var end = End.complete
    /// When the body ended, or the reader left, in seconds from the start of the exchange;
    /// `nil` while it goes on (and for a timeline read from a cassette).
    var endTime: TimeInterval?

    static let chunksField = "_kringleChunks"
    static let endField = "_kringleStreamEnd"
    static let errorField = "_kringleStreamError"
    /// The pieces a body is cut into when no chunks were recorded and it is not an event
    /// stream: as big as the pieces curl and URLSession hand over.
    static let pieceSize = 16 * 1024

    /// Writes the timeline into `entry`: its chunks and end into the response's `content`
    /// (``write(to:bodySize:)``), and its time carried on to the end of the body.
    ///
    /// HAR 1.2 §entries: an entry's `time` is the whole exchange, the sum of its `timings`,
    /// whose `receive` is the time spent reading the body. The metrics of a streamed response
    /// end at its head, so the entry's `time` and `receive` are carried on to when the body
    /// ended, or the reader left (its last chunk when that moment is not known): an event
    /// stream whose last event came 1.5 s in takes 1.5 s, not the 0.4 ms its head took.
    func write(to entry: inout HAR.Entry) {
        let recordedSize = (try? entry.response.content.body().count) ?? -1
        write(to: &entry.response.content, bodySize: recordedSize)
        guard let last = endTime ?? chunks.last?.time else { return }
        let end = Self.milliseconds(last)
        guard end > entry.time else { return }
        entry.timings.receive = max(0, entry.timings.receive) + (end - entry.time)
        entry.time = end
    }

    /// Writes the timeline into `content`'s custom fields; the chunks only when they add up
    /// to the body it holds (a redaction hook that changed the body's length leaves the
    /// chunk boundaries meaningless, so replay then cuts the body itself).
    func write(to content: inout HAR.Content, bodySize: Int) {
        if chunks.reduce(0, { $0 + $1.size }) == bodySize {
            content.custom[Self.chunksField] = .array(
                chunks.map { .object(["size": .number(Double($0.size)), "time": .number(Self.milliseconds($0.time))]) })
        }
        switch end {
        case .complete:
            break
        case .cancelled:
            content.custom[Self.endField] = .string("cancelled")
        case .failed(let message):
            content.custom[Self.endField] = .string("failed")
            content.custom[Self.errorField] = .string(message)
        }
    }

    /// The timeline `content` records; no chunks when it has none (a browser's export).
    init(_ content: HAR.Content) {
        if case .array(let values)? = content.custom[Self.chunksField] {
            for case .object(let fields) in values {
                guard case .number(let size)? = fields["size"], case .number(let time)? = fields["time"] else {
                    continue
                }
                chunks.append(Chunk(size: Int(size), time: time / 1000))
            }
        }
        switch content.custom[Self.endField] {
        case .string("cancelled")?:
            end = .cancelled
        case .string("failed")?:
            var message = "the recorded stream broke"
            if case .string(let error)? = content.custom[Self.errorField] { message = error }
            end = .failed(message)
        default:
            end = .complete
        }
    }

    /// A timeline being recorded.
    init() {}

    /// `body` cut into the pieces a reader gets, each with the moment it arrived when it was
    /// recorded: the recorded chunks when they add up to `body`; otherwise, for
    /// `text/event-stream`, one piece per event (each ends after its blank line, WHATWG HTML
    /// §9.2.6); for anything else, pieces of ``pieceSize`` bytes.
    func pieces(of body: Data, mimeType: String) -> [(data: Data, time: TimeInterval?)] {
        let sizes = chunks.map(\.size)
        if !sizes.isEmpty, sizes.allSatisfy({ $0 >= 0 }), sizes.reduce(0, +) == body.count {
            var start = body.startIndex
            // An empty chunk has nothing to deliver: its time is skipped, the others kept.
            return chunks.filter { $0.size > 0 }.map { chunk in
                defer { start += chunk.size }
                return (Data(body[start..<start + chunk.size]), chunk.time)
            }
        }
        let isEventStream = mimeType.lowercased().hasPrefix("text/event-stream")
        return (isEventStream ? Self.events(of: body) : Self.fixedPieces(of: body)).map { ($0, nil) }
    }

    /// `body` in pieces of ``pieceSize`` bytes.
    static func fixedPieces(of body: Data) -> [Data] {
        stride(from: body.startIndex, to: body.endIndex, by: pieceSize).map {
            Data(body[$0..<min($0 + pieceSize, body.endIndex)])
        }
    }

    /// `body` cut after each blank line, so that each piece ends with an event: lines end
    /// with CRLF, LF or CR (WHATWG HTML §9.2.5), and an empty line dispatches the event.
    static func events(of body: Data) -> [Data] {
        var pieces: [Data] = []
        var pieceStart = body.startIndex
        var lineIsEmpty = true
        var index = body.startIndex
        while index < body.endIndex {
            let byte = body[index]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                lineIsEmpty = false
                index += 1
                continue
            }
            // CRLF is one line ending.
            if byte == UInt8(ascii: "\r"), index + 1 < body.endIndex, body[index + 1] == UInt8(ascii: "\n") {
                index += 1
            }
            index += 1
            if lineIsEmpty {
                pieces.append(Data(body[pieceStart..<index]))
                pieceStart = index
            }
            lineIsEmpty = true
        }
        if pieceStart < body.endIndex { pieces.append(Data(body[pieceStart..<body.endIndex])) }
        return pieces
    }

    /// `seconds` in milliseconds, to the microsecond, as the cassette's other times.
    private static func milliseconds(_ seconds: TimeInterval) -> Double {
        (seconds * 1_000_000).rounded() / 1000
    }
}
