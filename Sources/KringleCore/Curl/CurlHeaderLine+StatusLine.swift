import Foundation

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
    static func startsLikeStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        // Setting bit 5 lowers an ASCII letter and leaves "/" as it is.
        line.count >= 5 && line[0] | 0x20 == UInt8(ascii: "h") && line[1] | 0x20 == UInt8(ascii: "t")
            && line[2] | 0x20 == UInt8(ascii: "t") && line[3] | 0x20 == UInt8(ascii: "p")
            && line[4] == UInt8(ascii: "/")
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
        let quoted = text(UnsafeRawBufferPointer(rebasing: line.prefix(64))).debugDescription
        return quoted.count > 80 ? quoted.prefix(79) + "…" : quoted
    }
}
