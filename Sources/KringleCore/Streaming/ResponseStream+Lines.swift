import Foundation

extension ResponseStream {
    /// The body as lines of text, as they arrive: cut at LF, CRLF or CR, without the
    /// ending; a last line without one is delivered too. UTF-8, invalid bytes replaced.
    public var lines: Lines {
        lines(maximumLength: Lines.defaultMaximumLength)
    }

    /// The body as lines of at most `maximumLength` bytes; a longer one fails the sequence
    /// with ``KringleError/lineTooLong(_:limit:)`` (and stops the transfer).
    public func lines(maximumLength: Int) -> Lines {
        Lines(stream: self, maximumLength: maximumLength)
    }

    /// The body's lines, decoded one by one as `T` with `decoder`: newline-delimited JSON
    /// (NDJSON, JSON Lines). Empty lines are skipped; a line that does not decode fails the
    /// sequence with ``KringleError/lineDecodingFailed(_:line:url:)``, which names its number.
    public func decodedLines<T: Decodable & Sendable>(
        as type: T.Type, decoder: JSONDecoder = JSONDecoder(), maximumLength: Int = Lines.defaultMaximumLength
    ) -> DecodedLines<T> {
        DecodedLines(lines: lines(maximumLength: maximumLength), decoder: decoder)
    }

    /// The lines of a ``ResponseStream``.
    public struct Lines: AsyncSequence, Sendable {
        /// What the sequence yields.
        public typealias Element = String

        /// 1 MiB: a line longer than that is more likely a runaway body than a line.
        public static let defaultMaximumLength = 1 << 20

        let stream: ResponseStream
        let maximumLength: Int

        /// An iterator over the sequence; iterate once.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(chunks: stream.makeAsyncIterator(), framer: LineFramer(maximumLineLength: maximumLength))
        }

        /// Takes the lines one at a time.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var chunks: ResponseStream.AsyncIterator
            var framer: LineFramer
            var ready: [[UInt8]] = []
            var ended = false
            /// Whether a last line without an ending counts (an event stream drops it: the
            /// connection cut it short).
            var deliversUnterminatedLastLine = true

            /// The next line, or `nil` after the last.
            public mutating func next() async throws -> String? {
                while ready.isEmpty {
                    guard !ended else { return nil }
                    guard let chunk = try await chunks.next() else {
                        ended = true
                        if deliversUnterminatedLastLine, let last = framer.finish() { ready.append(last) }
                        continue
                    }
                    do {
                        ready = try framer.lines(in: chunk)
                    } catch {
                        chunks.reader.state.cancel()
                        throw KringleError.lineTooLong(chunks.reader.state.responseURL, limit: error.limit)
                    }
                }
                return String(decoding: ready.removeFirst(), as: UTF8.self)
            }
        }
    }

    /// The decoded lines of a ``ResponseStream`` (see
    /// ``ResponseStream/decodedLines(as:decoder:maximumLength:)``).
    public struct DecodedLines<T: Decodable & Sendable>: AsyncSequence, Sendable {
        /// What the sequence yields.
        public typealias Element = T

        let lines: Lines
        let decoder: JSONDecoder

        /// An iterator over the sequence; iterate once.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(lines: lines.makeAsyncIterator(), decoder: decoder)
        }

        /// Takes the values one at a time.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var lines: Lines.AsyncIterator
            let decoder: JSONDecoder
            var number = 0

            /// The next value, or `nil` after the last line.
            public mutating func next() async throws -> T? {
                while let line = try await lines.next() {
                    number += 1
                    guard !line.allSatisfy(\.isWhitespace) else { continue }
                    do {
                        return try decoder.decode(T.self, from: Data(line.utf8))
                    } catch let error as DecodingError {
                        lines.chunks.reader.state.cancel()
                        throw KringleError.lineDecodingFailed(
                            error, line: number, url: lines.chunks.reader.state.responseURL)
                    }
                }
                return nil
            }
        }
    }
}
