import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Gathers one response's header fields, trailer fields and body as curl delivers them:
/// how curl's header and write callbacks become an ``HTTPResponse``.
///
/// curl hands the header callback one complete line at a time (classified as a
/// ``CurlHeaderLine``), for every header block it receives: interim 1xx responses, a proxy's
/// answer to CONNECT, then the final response, each a status line, fields and an empty line;
/// after a chunked body, the trailer fields, whose closing empty line curl does not pass on.
/// The body's bytes go to a file or a reader's channel when the transfer has one, otherwise
/// into memory (``BodyBuffer``).
///
/// Only the driving thread touches it: curl calls the callbacks from inside
/// `curl_multi_perform`, which runs there.
final class ResponseCollector {
    /// Where in the header blocks the next line falls.
    private enum Position {
        /// The response's first line, which must be a status line.
        case awaitingStatusLine
        /// Inside a block: fields until the empty line.
        case inBlock
        /// After a block: a status line starts another one; fields are trailers (RFC 9112
        /// §7.1.2).
        case afterBlock
    }

    /// The body bytes received so far, already decoded from any content coding.
    private var bodyBuffer = BodyBuffer()
    /// The fields of the latest header block, in order, repeats kept.
    private var fields: [(String, String)] = []
    /// The trailer fields after the body, in order, repeats kept.
    private var trailerFields: [(String, String)] = []
    private var position = Position.awaitingStatusLine
    /// Why the response is not one the client reads, once a header line showed it.
    private(set) var malformation: String?

    /// The body received, taken once the transfer is over.
    func takeBody() -> Data {
        bodyBuffer.takeContents()
    }

    /// The header fields of the last block received (the final response's).
    var headers: HTTPHeaders {
        HTTPHeaders(fields)
    }

    /// The trailer fields received after a chunked body; empty when there were none.
    var trailers: HTTPHeaders {
        HTTPHeaders(trailerFields)
    }

    /// Takes one header line from curl. Returns `false` when the line shows that the
    /// response is malformed (``malformation`` says how), which must stop the transfer.
    func receive(_ line: CurlHeaderLine) -> Bool {
        switch (line, position) {
        case (.malformedStatusLine(let reason), _):
            malformation = reason
            return false
        case (.statusLine, .awaitingStatusLine), (.statusLine, .afterBlock):
            // A new block replaces the fields; no body bytes precede the final block, since
            // curl does not pass on those of a CONNECT answer.
            fields.removeAll(keepingCapacity: true)
            trailerFields.removeAll()
            position = .inBlock
        case (_, .awaitingStatusLine):
            malformation = "the response does not start with a status line (RFC 9112 §4)"
            return false
        case (.statusLine, .inBlock):
            malformation = "a status line appeared among the header fields"
            return false
        case (.field(let name, let value), .inBlock):
            fields.append((name, value))
        case (.field(let name, let value), .afterBlock):
            trailerFields.append((name, value))
        case (.continuation(let more), .inBlock):
            Self.unfold(more, into: &fields)
        case (.continuation(let more), .afterBlock):
            Self.unfold(more, into: &trailerFields)
        case (.end, .inBlock):
            position = .afterBlock
            let status = easy?.responseCode
            if let announced = announcedBody(status: status) {
                if let crossed = limitCrossedInAdvance(by: announced) {
                    crossedLimit = crossed
                    return false
                }
                reserveBodyCapacity(for: announced)
            }
            // The final response's head (not a 1xx): a streamed body's reader may start.
            if let onFinalHead, let status, status >= 200 { onFinalHead() }
        case (.end, _):
            position = .afterBlock
        case (.other, _):
            break
        }
        return true
    }

    /// The body a final head announces by a `Content-Length` large enough to matter (over
    /// ``smallestReservation``), read once per head.
    private struct AnnouncedBody {
        var length: Int
        /// Whether the body comes in a content coding: then the length is the coded one, and
        /// the decoded body is longer.
        var isContentCoded: Bool
    }

    /// What the head just completed announces, if a body follows it at all: none follows a
    /// HEAD, a 1xx, a 204 or a 304, whatever `Content-Length` says (RFC 9110 §6.4.1, §8.6).
    private func announcedBody(status: Int?) -> AnnouncedBody? {
        guard !expectsNoBody, let status, status >= 200, status != 204, status != 304,
            let length = fields.last(where: { $0.0.equalsIgnoringASCIICase("Content-Length") }).flatMap({ Int($0.1) }),
            length > Self.smallestReservation
        else { return nil }
        let isContentCoded = fields.contains(where: { $0.0.equalsIgnoringASCIICase("Content-Encoding") })
        return AnnouncedBody(length: length, isContentCoded: isContentCoded)
    }

    /// The bound that a body of the announced length, sent without a content coding, will
    /// cross: known before a byte of it arrives.
    private func limitCrossedInAdvance(by body: AnnouncedBody) -> ResponseLimits.Limit? {
        guard !body.isContentCoded else { return nil }
        return limits.crossedInAdvance(contentLength: Int64(body.length), toFile: sink != nil || channel != nil)
    }

    /// Most bodies that are kept in memory have a `Content-Length`: room for it at once
    /// spares the copies of growing a large body step by step. Bounded, because the length
    /// is the server's word, not the bytes that will arrive.
    private func reserveBodyCapacity(for body: AnnouncedBody) {
        guard sink == nil, channel == nil else { return }
        bodyBuffer.reserve(
            min(body.length, Self.largestReservation, limits.maximumBodyBytes), isExact: !body.isContentCoded)
    }

    /// Bodies below this grow in a step or two anyway.
    static let smallestReservation = 64 << 10

    /// The most memory a `Content-Length` alone makes the collector set aside: 256 MiB
    /// (address space: pages that no byte reaches are never touched).
    static let largestReservation = 256 << 20

    /// RFC 9112 §5.2: an obsolete line fold continues the last field; it reads as a space.
    /// A fold of whitespace alone adds nothing: the space would trail the value, which is
    /// kept without surrounding whitespace.
    private static func unfold(_ more: String, into fields: inout [(String, String)]) {
        guard let last = fields.indices.last, !more.isEmpty else { return }
        fields[last].1 = fields[last].1.isEmpty ? more : fields[last].1 + " " + more
    }

    /// Where the body goes instead of memory, for transfers to a file.
    var sink: ResponseFileSink?
    /// Where the body goes instead of memory, for a reader that takes it as it arrives;
    /// held to the download bound (``ResponseLimits/maximumDownloadBytes``), as a file is:
    /// the reader, not the client, keeps what it wants of it.
    var channel: ResponseBodyChannel?
    /// Called once the final response's head is complete, for a streamed body.
    var onFinalHead: (() -> Void)?

    /// The bounds the body must stay within.
    var limits = ResponseLimits.default
    /// Whether the request was a HEAD, whose response has no body whatever its
    /// `Content-Length` says (RFC 9110 §9.3.2).
    var expectsNoBody = false
    /// The transfer's handle, which knows the body bytes received so far as sent (before
    /// decoding), for the ratio bound.
    var easy: EasyHandle?
    /// The bound the body crossed, which stopped the transfer.
    private(set) var crossedLimit: ResponseLimits.Limit?
    /// Body bytes received after decoding.
    private(set) var decodedBytes: Int64 = 0

    /// What becomes of a chunk of body bytes.
    enum BodyVerdict {
        case taken
        /// The transfer must stop: a bound crossed, a file that refused the bytes, a reader
        /// that left.
        case stop
        /// The reader's channel is full: curl keeps the bytes and pauses the transfer.
        case pause
    }

    /// Takes body bytes from curl (decoded): into the file or the channel when there is one,
    /// else into memory.
    func receive(body bytes: UnsafeRawBufferPointer) -> BodyVerdict {
        let decoded = decodedBytes + Int64(bytes.count)
        if let crossed = limits.crossed(
            decoded: decoded, toFile: sink != nil || channel != nil, received: { easy?.downloadedBytes })
        {
            crossedLimit = crossed
            return .stop
        }
        if let channel {
            guard channel.offer(Data(bytes)) else { return channel.isCancelled ? .stop : .pause }
            decodedBytes = decoded
            return .taken
        }
        decodedBytes = decoded
        if let sink {
            return sink.write(bytes) ? .taken : .stop
        }
        bodyBuffer.append(bytes)
        return .taken
    }
}

// MARK: - Header lines

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

// MARK: - The body in memory

/// The bytes of a response body kept in memory, appended as curl delivers them.
///
/// A body announced (by `Content-Length`, without a content coding) at ``mappingThreshold``
/// bytes or more goes into a memory mapping of its own, which on Linux is marked for
/// transparent huge pages (`MADV_HUGEPAGE`, which the kernel's usual `madvise` mode honours).
/// The kernel then faults the memory in and zeroes it 2 MiB at a time instead of 4 KiB: 50
/// page faults for 100 MiB instead of 25,600. Writing 100 MiB into fresh memory in 16 KiB
/// steps took 42 ms in small pages and 6–7 ms in huge pages on the machine this was measured
/// on; that fault cost was most of what a buffered 100 MB download cost beyond the transfer
/// itself. Smaller bodies grow a `Data`, which malloc serves from memory it usually has at
/// hand.
struct BodyBuffer {
    private var data = Data()
    private var mapping: BodyMapping?

    /// From this announced size on, the body gets a mapping of its own: the size at which
    /// glibc's malloc stops reusing freed memory and maps fresh pages anyway (its largest
    /// dynamic mmap threshold), so a mapping costs nothing that malloc would have spared.
    static let mappingThreshold = 32 << 20

    /// The bytes received so far.
    var count: Int {
        mapping?.count ?? data.count
    }

    /// Whether the body went into a mapping of its own.
    var isMapped: Bool {
        mapping != nil
    }

    /// Sets aside room for `capacity` bytes, the length the server announced. Reserving is
    /// only ever a hint: more bytes than that still fit. `isExact` says whether the body
    /// arrives as announced; a content-coded one decodes to more, so it grows a `Data`,
    /// which reallocates in place, rather than outgrowing a mapping and being copied.
    mutating func reserve(_ capacity: Int, isExact: Bool) {
        guard count == 0 else { return }
        if isExact, capacity >= Self.mappingThreshold, let mapping = BodyMapping(capacity: capacity) {
            self.mapping = mapping
        } else {
            data.reserveCapacity(capacity)
        }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if let mapping {
            if mapping.append(bytes) { return }
            // More than announced: on in a `Data` with what came so far.
            data = mapping.copy()
            self.mapping = nil
        }
        data.append(contentsOf: bytes)
    }

    /// The body, for good: the mapping itself, without a copy, when there is one. Taken once,
    /// the mapping belongs to the returned `Data` alone, which copies on its first change
    /// only when it is shared, as any `Data` does.
    mutating func takeContents() -> Data {
        if let mapping {
            data = mapping.data
            self.mapping = nil
        }
        return data
    }
}

/// Anonymous memory mapped for one body, unmapped when the `Data` it is handed to is gone.
///
/// Only the driving thread appends, before the body is handed over as one `Data`
/// (``BodyBuffer/takeContents()``), which owns the bytes from then on.
private final class BodyMapping {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private(set) var count = 0

    init?(capacity requested: Int) {
        // Whole huge pages, so that the last bytes are not left in small ones.
        let capacity = (requested + Self.hugePage - 1) / Self.hugePage * Self.hugePage
        guard let base = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            base != MAP_FAILED
        else { return nil }
        #if os(Linux)
        // A hint: where the kernel has no huge pages to give, the mapping works as it is.
        _ = madvise(base, capacity, MADV_HUGEPAGE)
        #endif
        self.base = base
        self.capacity = capacity
    }

    private static let hugePage = 2 << 20

    deinit {
        munmap(base, capacity)
    }

    /// Appends `bytes` if they fit; returns whether they did.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= capacity - count else { return false }
        if let source = bytes.baseAddress {
            (base + count).copyMemory(from: source, byteCount: bytes.count)
        }
        count += bytes.count
        return true
    }

    /// The bytes so far, in place: the `Data` keeps the mapping alive.
    var data: Data {
        Data(bytesNoCopy: base, count: count, deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
    }

    func copy() -> Data {
        Data(bytes: base, count: count)
    }
}
