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
/// `curl_multi_socket_action`, which runs there.
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
    /// How many fields a response's head usually has, at most.
    private static let usualFieldCount = 16
    /// The fields of the latest header block, in order, repeats kept.
    private var fields: [HTTPHeaders.Field] = []
    /// The trailer fields after the body, in order, repeats kept.
    private var trailerFields: [HTTPHeaders.Field] = []
    private var position = Position.awaitingStatusLine
    /// Why the response is not one the client reads, once a header line showed it.
    private(set) var malformation: String?

    /// The body received, taken once the transfer is over.
    func takeBody() -> Data {
        bodyBuffer.takeContents()
    }

    /// The header fields of the last block received (the final response's).
    var headers: HTTPHeaders {
        HTTPHeaders(fields: fields)
    }

    /// The trailer fields received after a chunked body; empty when there were none.
    var trailers: HTTPHeaders {
        HTTPHeaders(fields: trailerFields)
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
            // Room for a usual head at once, rather than growing through 1, 2, 4 and 8.
            fields.reserveCapacity(Self.usualFieldCount)
            trailerFields.removeAll()
            position = .inBlock
        case (_, .awaitingStatusLine):
            malformation = "the response does not start with a status line (RFC 9112 §4)"
            return false
        case (.statusLine, .inBlock):
            malformation = "a status line appeared among the header fields"
            return false
        case (.field(let name, let value), .inBlock):
            fields.append(HTTPHeaders.Field(name: name, value: value))
        case (.field(let name, let value), .afterBlock):
            trailerFields.append(HTTPHeaders.Field(name: name, value: value))
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
            let length = fields.last(where: { $0.name.equalsIgnoringASCIICase("Content-Length") }).flatMap({
                Int($0.value)
            }),
            length > Self.smallestReservation
        else { return nil }
        let isContentCoded = fields.contains(where: { $0.name.equalsIgnoringASCIICase("Content-Encoding") })
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
    private static func unfold(_ more: String, into fields: inout [HTTPHeaders.Field]) {
        guard let last = fields.indices.last, !more.isEmpty else { return }
        fields[last].value = fields[last].value.isEmpty ? more : fields[last].value + " " + more
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
