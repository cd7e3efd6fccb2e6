import Foundation

extension SocketReader {
    /// The longest chunk-size line accepted, extensions included.
    private static let chunkLineLimit = 4096
    /// The most trailer field lines accepted after the last chunk.
    private static let trailerLineLimit = 100

    /// Reads a body sent with the chunked transfer coding and returns it decoded.
    ///
    /// RFC 9112 §7.1: `chunked-body = *chunk last-chunk trailer-section CRLF`, where
    /// `chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF`. Extensions (§7.1.1) and
    /// trailer fields (§7.1.2) are read and discarded: a recipient MUST ignore unrecognized
    /// extensions and MAY discard trailers.
    func readChunkedBody() throws(ReadFailure) -> Data {
        var body = Data()
        while true {
            let size = try Self.chunkSize(from: readLine(limit: Self.chunkLineLimit))
            if size == 0 { break }
            guard body.count <= Int.max - size else { throw .rejected(.badRequest("chunked body too large")) }
            try readBody(count: size, into: &body)
            // chunk-data is followed by CRLF; anything else means the size was wrong.
            guard try readLine(limit: 2).isEmpty else {
                throw .rejected(.badRequest("chunk data longer than its chunk-size"))
            }
        }
        for _ in 0..<Self.trailerLineLimit {
            if try readLine(limit: Self.chunkLineLimit).isEmpty { return body }
        }
        throw .rejected(.badRequest("too many trailer fields"))
    }

    /// Parses `chunk-size [ chunk-ext ]`: hexadecimal digits, then optionally BWS and
    /// `;name=value` extensions, which are ignored (§7.1.1).
    private static func chunkSize(from line: [UInt8]) throws(ReadFailure) -> Int {
        var size = 0
        var digits = 0
        for byte in line {
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
                guard digits > 0 else { throw .rejected(.badRequest("missing chunk-size")) }
                return size
            default:
                throw .rejected(.badRequest("invalid chunk-size"))
            }
            digits += 1
            // §7.1: recipients MUST anticipate large sizes and guard against overflow;
            // 15 hex digits stay below Int.max.
            guard digits <= 15 else { throw .rejected(.badRequest("chunk-size too large")) }
            size = size * 16 + value
        }
        guard digits > 0 else { throw .rejected(.badRequest("missing chunk-size")) }
        return size
    }
}
