import Foundation

/// One line that curl hands to the header callback, classified.
///
/// curl calls the callback once per complete line, for every header block it receives:
/// interim 1xx responses, a proxy's answer to CONNECT, then the final response (and, for
/// chunked bodies, trailer fields, which end with an empty line curl does not pass on). Each
/// block starts with a status line and ends with an empty line.
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
    init(bytes: UnsafeRawBufferPointer) {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == Self.carriageReturn || bytes[end - 1] == Self.lineFeed {
            end -= 1
        }
        let line = bytes[bytes.startIndex..<end]
        guard let first = line.first else {
            self = .end
            return
        }
        if Self.startsLikeStatusLine(line) {
            // A field name is a token, which cannot hold "/", so such a line is no field.
            if let problem = Self.statusLineProblem(line) {
                self = .malformedStatusLine(reason: problem)
            } else {
                self = .statusLine
            }
        } else if Self.isWhitespace(first) {
            self = .continuation(Self.text(Self.trimmed(line)))
        } else if let colon = line.firstIndex(of: Self.colon) {
            let name = Self.trimmed(line[line.startIndex..<colon])
            let value = Self.trimmed(line[(colon + 1)..<line.endIndex])
            self = .field(name: Self.text(name), value: Self.text(value))
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

    /// Removes optional whitespace from both ends.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isWhitespace(bytes[start]) { start += 1 }
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    /// Header bytes as text: UTF-8 when they are valid UTF-8, otherwise ISO 8859-1, which
    /// RFC 9110 §5.5 names as the historical encoding of field values and which maps every
    /// byte to a character.
    static func text(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        // Nearly every header is ASCII, which needs no validation beyond this scan.
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        if let text = String(validating: bytes, as: UTF8.self) {
            return text
        }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}

// MARK: - Status lines

/// The status line rules that libcurl leaves to its caller.
///
/// libcurl reads `Http/1.1 200 OK` as a status line, comparing the protocol name without
/// regard to case, and takes any `HTTP/<digit>.<digit>` as a version. RFC 9112 §2.3 makes the
/// name case-sensitive, and no HTTP version but 1.0, 1.1, 2 and 3 exists; a response that
/// breaks either rule was not written by an HTTP server, so the client refuses it rather than
/// read its status. The reason phrase may be missing or empty: RFC 9112 §4 lets a client
/// ignore it (and curl writes `HTTP/2 200 ` for HTTP/2 and HTTP/3 responses).
extension CurlHeaderLine {
    /// The versions a status line may name, as they appear after `HTTP/`.
    private static let versions: [[UInt8]] = ["1.1", "1.0", "2", "3"].map { Array($0.utf8) }

    /// Whether `line` starts with `HTTP/` in any mix of cases.
    static func startsLikeStatusLine(_ line: Slice<UnsafeRawBufferPointer>) -> Bool {
        let prefix = "http/".utf8
        guard line.count >= prefix.count else { return false }
        return line.prefix(prefix.count).lazy.map(\.asciiLowercased).elementsEqual(prefix)
    }

    /// What is wrong with a line that starts like a status line, or `nil` when it is one:
    /// `HTTP/` in upper case, a known version, a space, three digits, then nothing or a space
    /// and any reason phrase (RFC 9112 §4).
    static func statusLineProblem(_ line: Slice<UnsafeRawBufferPointer>) -> String? {
        // Quoted only for a message: every response has a status line, few a bad one.
        var quoted: String { quote(line) }
        guard line.starts(with: "HTTP/".utf8) else {
            return "the status line \(quoted) does not start with \"HTTP/\" in upper case (RFC 9112 §2.3)"
        }
        let afterName = line.dropFirst(5)
        let versionEnd = afterName.firstIndex(of: UInt8(ascii: " ")) ?? afterName.endIndex
        guard Self.versions.contains(where: { afterName[..<versionEnd].elementsEqual($0) }) else {
            return "the status line \(quoted) names no HTTP version this client speaks (1.0, 1.1, 2 or 3)"
        }
        let code = afterName[versionEnd...].dropFirst()
        let digits = code.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard versionEnd < afterName.endIndex, digits.count == 3 else {
            return "the status line \(quoted) has no three-digit status code after the version (RFC 9112 §4)"
        }
        let rest = code.dropFirst(3)
        guard rest.isEmpty || rest.first == UInt8(ascii: " ") else {
            return "the status line \(quoted) has no space between the status code and the reason phrase (RFC 9112 §4)"
        }
        return nil
    }

    /// The line as a quoted Swift string literal, control characters escaped, cut to a length
    /// that fits in an error message.
    private static func quote(_ line: Slice<UnsafeRawBufferPointer>) -> String {
        let quoted = text(line.prefix(64)).debugDescription
        return quoted.count > 80 ? quoted.prefix(79) + "…" : quoted
    }
}
