import Foundation

/// Cuts a byte stream into lines as the bytes arrive: a line ends at LF, CRLF or CR (the
/// line endings of text streams and of Server-Sent Events, WHATWG HTML §9.2.5), and a last
/// line without an ending is delivered when the stream ends.
///
/// A CR at the end of a chunk may be the first half of a CRLF: the line is delivered at
/// once, and an LF that starts the next chunk is then skipped, so a CRLF split across chunks
/// makes one line ending, not two.
struct LineFramer: Sendable {
    /// The longest line taken, in bytes; a longer one fails the stream.
    let maximumLineLength: Int
    private var pending: [UInt8] = []
    private var skipsLeadingLF = false

    init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    /// A line longer than ``maximumLineLength``.
    struct LineTooLong: Error, Equatable {
        let limit: Int
    }

    /// The lines `chunk` completes, without their endings.
    mutating func lines(in chunk: some Collection<UInt8>) throws(LineTooLong) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for byte in chunk {
            if skipsLeadingLF {
                skipsLeadingLF = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"):
                lines.append(pending)
                pending.removeAll(keepingCapacity: true)
            case UInt8(ascii: "\r"):
                lines.append(pending)
                pending.removeAll(keepingCapacity: true)
                skipsLeadingLF = true
            default:
                guard pending.count < maximumLineLength else { throw LineTooLong(limit: maximumLineLength) }
                pending.append(byte)
            }
        }
        return lines
    }

    /// The last line, when the stream ended in the middle of one.
    mutating func finish() -> [UInt8]? {
        defer { pending.removeAll() }
        return pending.isEmpty ? nil : pending
    }
}
