import Foundation
import KringleTestSupport

// MARK: - Multipart parsing (the test server's side)

/// One part of a `multipart/form-data` body as a server parses it.
struct StreamingParsedPart: Sendable, Equatable, CustomStringConvertible {
    var name: String?
    var filename: String?
    var contentType: String?
    var body: Data

    var description: String {
        "part(name: \(name ?? "nil"), filename: \(filename ?? "nil"), type: \(contentType ?? "nil"), \(body.count) bytes)"
    }
}

/// Why a body is not well-formed `multipart/form-data`.
struct StreamingMultipartError: Error, CustomStringConvertible {
    var description: String
}

/// A small, strict `multipart/form-data` parser (RFC 7578, RFC 2046 §5.1.1) for checking
/// what the client sent.
enum StreamingMultipartParser {
    /// The `boundary` parameter of a `multipart/form-data` content type.
    static func boundary(fromContentType contentType: String?) -> String? {
        guard let contentType,
            contentType.lowercased().hasPrefix("multipart/form-data")
        else { return nil }
        return parameters(contentType)["boundary"]
    }

    /// The parts of `body`, in order.
    ///
    /// The body must start with the first delimiter (no preamble: Kringle sends none), every
    /// part must have a header section, and the close delimiter must end the body (followed
    /// by at most a CRLF).
    static func parse(_ body: Data, boundary: String) throws -> [StreamingParsedPart] {
        let dashBoundary = Data("--\(boundary)".utf8)
        let delimiter = Data("\r\n--\(boundary)".utf8)
        let crlf = Data("\r\n".utf8)
        guard body.starts(with: dashBoundary) else {
            throw StreamingMultipartError(description: "the body does not start with --\(boundary)")
        }
        var parts: [StreamingParsedPart] = []
        var position = body.startIndex + dashBoundary.count
        while true {
            let rest = body[position...]
            if rest.starts(with: Data("--".utf8)) {
                let epilogue = rest.dropFirst(2)
                guard epilogue.isEmpty || epilogue == crlf else {
                    throw StreamingMultipartError(description: "unexpected bytes after the close delimiter")
                }
                return parts
            }
            guard rest.starts(with: crlf) else {
                throw StreamingMultipartError(description: "a delimiter is not followed by CRLF")
            }
            let partStart = position + crlf.count
            guard let next = body.range(of: delimiter, in: partStart..<body.endIndex) else {
                throw StreamingMultipartError(description: "a part is not closed by a delimiter")
            }
            parts.append(try part(body[partStart..<next.lowerBound]))
            position = next.upperBound
        }
    }

    private static func part(_ bytes: Data) throws -> StreamingParsedPart {
        guard let blank = bytes.range(of: Data("\r\n\r\n".utf8)) else {
            throw StreamingMultipartError(description: "a part has no header section")
        }
        let headerText = String(decoding: bytes[bytes.startIndex..<blank.lowerBound], as: UTF8.self)
        var part = StreamingParsedPart(body: Data(bytes[blank.upperBound...]))
        for line in headerText.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else {
                throw StreamingMultipartError(description: "malformed part header line \(line.debugDescription)")
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-disposition":
                guard value.lowercased().hasPrefix("form-data") else {
                    throw StreamingMultipartError(description: "disposition \(value) is not form-data")
                }
                let parameters = parameters(value)
                part.name = parameters["name"]
                part.filename = parameters["filename"]
            case "content-type":
                part.contentType = value
            default:
                break
            }
        }
        return part
    }

    /// The `;`-separated `name=value` parameters after the first item, quoted values unquoted
    /// (a `\` escapes the next character, RFC 9110 §5.6.4) and kept exactly, names
    /// lower-cased.
    private static func parameters(_ value: String) -> [String: String] {
        var result: [String: String] = [:]
        var items: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
            } else if inQuotes && character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == ";" && !inQuotes {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current)
        for item in items.dropFirst() {
            guard let equals = item.firstIndex(of: "=") else { continue }
            let name = item[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            result[name] = String(item[item.index(after: equals)...])
        }
        return result
    }
}
