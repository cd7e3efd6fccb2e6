import Foundation

/// One line that curl hands to the header callback, classified (the blocks these lines form
/// are described at ``ResponseCollector``).
///
/// The parser works on bytes: it runs once per header line of every response, and
/// byte-level scanning is several times cheaper than `Character`-based string slicing.
enum CurlHeaderLine: Equatable {
    /// `HTTP/1.1 200 OK` or `HTTP/2 200`: a new block starts.
    case statusLine
    /// A line that starts like a status line in any case (`Http/1.1 200 OK`) but is not a
    /// valid one; curl accepts such lines, the client does not. The reason says what is wrong.
    case malformedStatusLine(reason: String)
    /// `Name: value`, with surrounding whitespace removed from the value.
    case field(name: String, value: String)
    /// A line starting with whitespace, which continues the previous field's value
    /// (obsolete line folding, RFC 9112 §5.2).
    case continuation(String)
    /// The empty line that ends a block.
    case end
    /// Anything else: not a field (no colon) and not a status line.
    case other

    /// Classifies a line of text, with or without its line ending.
    init(_ line: String) {
        let bytes = Array(line.utf8)
        self = bytes.withUnsafeBytes { CurlHeaderLine(bytes: $0) }
    }

    /// Classifies raw bytes from curl, which still end with CRLF (or LF).
    ///
    /// Integer offsets into one rebased buffer throughout: slices of a raw buffer and their
    /// generic algorithms (`firstIndex`, lazy maps) cost several times as much per line.
    init(bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == Self.carriageReturn || bytes[end - 1] == Self.lineFeed {
            end -= 1
        }
        guard end > 0 else {
            self = .end
            return
        }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        if Self.startsLikeStatusLine(line) {
            // A field name is a token, which cannot hold "/", so such a line is no field.
            if let problem = Self.statusLineProblem(line[...]) {
                self = .malformedStatusLine(reason: problem)
            } else {
                self = .statusLine
            }
        } else if Self.isWhitespace(line[0]) {
            self = .continuation(Self.text(line, trimming: 0..<end))
        } else if let colon = Self.firstColon(in: line) {
            self = .field(
                name: Self.text(line, trimming: 0..<colon), value: Self.text(line, trimming: (colon + 1)..<end))
        } else {
            self = .other
        }
    }

    private static let carriageReturn = UInt8(ascii: "\r")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let colon = UInt8(ascii: ":")

    /// Optional whitespace: SP and HTAB (RFC 9110 §5.6.3).
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// Where the first colon of `line` is: `memchr`, which a generic search over a raw buffer
    /// costs several times as much as, per line of every response.
    private static func firstColon(in line: UnsafeRawBufferPointer) -> Int? {
        guard let start = line.baseAddress, let colon = memchr(start, Int32(Self.colon), line.count) else {
            return nil
        }
        return start.distance(to: colon)
    }

    /// The text of `range` of `line`, optional whitespace removed from both ends.
    private static func text(_ line: UnsafeRawBufferPointer, trimming range: Range<Int>) -> String {
        var start = range.lowerBound
        var end = range.upperBound
        while start < end, isWhitespace(line[start]) { start += 1 }
        while end > start, isWhitespace(line[end - 1]) { end -= 1 }
        return text(UnsafeRawBufferPointer(rebasing: line[start..<end]))
    }

    /// Header bytes as text: UTF-8 when they are valid UTF-8, otherwise ISO 8859-1, which
    /// RFC 9110 §5.5 names as the historical encoding of field values and which maps every
    /// byte to a character.
    static func text(_ bytes: UnsafeRawBufferPointer) -> String {
        // Nearly every header is ASCII, which needs no validation beyond this scan; over a
        // typed buffer both the scan and the copy are the standard library's fast paths.
        // (`String(validating:as:)` alone, one pass, costs about 700 instructions more a
        // string: it does not take that path.)
        let units = bytes.assumingMemoryBound(to: UInt8.self)
        if units.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: units, as: UTF8.self)
        }
        if let text = String(validating: units, as: UTF8.self) {
            return text
        }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
