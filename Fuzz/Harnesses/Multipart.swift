import Foundation

@testable import KringleCore

/// The multipart/form-data encoder (`MultipartEncoding`, RFC 7578) and its escaping of
/// names and filenames (its check of content types too).
///
/// The input is four texts separated by NUL bytes: a field name, its value, a filename and
/// a content type; they make a text part and a file part. Beyond not crashing: an escaped
/// text holds no quote, CR or LF and, when it held no `%`, unescapes to itself; and in the
/// encoded body each part's head is exactly the header lines the encoder writes, with the
/// name and filename inside their quotes, so no text can add a header or end a part.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let texts = inputBytes(data, size).split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    let text = { (index: Int) in index < texts.count ? texts[index] : "" }
    let (name, value, filename, contentType) = (text(0), text(1), text(2), text(3))
    for original in [name, filename] {
        let escaped = MultipartEncoding.escaped(original)
        // Bytes, not Characters: "\r\n", or a quote with a combining mark, is one Character.
        require(!escaped.utf8.contains { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }, "\(escaped.debugDescription)")
        if !original.contains("%") { require(unescaped(escaped) == original, "\(original.debugDescription)") }
    }
    // The real boundary is a random UUID that a value cannot guess; this fixed one can be.
    if value.contains(boundary) { return 0 }

    let encoded: Data
    do {
        let (body, _) = try MultipartEncoding.body(
            for: [
                .field(name: name, value: value),
                .file(name: name, fileURL: emptyFile, filename: filename, contentType: contentType),
            ], boundary: boundary)
        encoded = try body.readAll()
    } catch KringleError.invalidRequest(_) {
        // The content type is a field value: a CR, LF, NUL or other control refuses it.
        require(contentType.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "refused \(contentType)")
        return 0
    } catch {
        fatalError("encoding failed: \(error)")
    }
    let parts = split(Array(encoded))
    require(parts.count == 2, "\(parts.count) parts instead of 2")
    let disposition = "Content-Disposition: form-data; name=\"\(MultipartEncoding.escaped(name))\""
    require(parts[0] == [disposition], "the text part's head is \(parts[0])")
    require(
        parts[1].count == 2 && parts[1][0] == disposition + "; filename=\"\(MultipartEncoding.escaped(filename))\""
            && parts[1][1].utf8.starts(with: "Content-Type: ".utf8),
        "the file part's head is \(parts[1])")
    return 0
}

private let boundary = "fuzz-boundary"

/// The header lines of each part of `body`, cut at bytes (as a server reads them).
private func split(_ body: [UInt8]) -> [[String]] {
    split(body, at: Array("--\(boundary)\r\n".utf8)).dropFirst().map { part in
        let head = split(part, at: Array("\r\n\r\n".utf8))[0]
        return split(head, at: Array("\r\n".utf8)).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// `bytes` cut at every occurrence of `separator`.
private func split(_ bytes: [UInt8], at separator: [UInt8]) -> [[UInt8]] {
    var pieces: [[UInt8]] = []
    var start = 0
    var index = 0
    while index + separator.count <= bytes.count {
        if bytes[index..<(index + separator.count)].elementsEqual(separator) {
            pieces.append(Array(bytes[start..<index]))
            index += separator.count
            start = index
        } else {
            index += 1
        }
    }
    pieces.append(Array(bytes[start...]))
    return pieces
}

/// `MultipartEncoding.escaped` undone, byte by byte (`replacingOccurrences` compares
/// Characters, and "%22" followed by a combining mark holds no "2" Character).
private func unescaped(_ text: String) -> String {
    let bytes = Array(text.utf8)
    var result: [UInt8] = []
    var index = 0
    while index < bytes.count {
        let escape = bytes[index..<min(index + 3, bytes.count)]
        if let byte = [("%22", 0x22), ("%0D", 0x0D), ("%0A", 0x0A)].first(where: { escape.elementsEqual($0.0.utf8) }) {
            result.append(UInt8(byte.1))
            index += 3
        } else {
            result.append(bytes[index])
            index += 1
        }
    }
    return String(decoding: result, as: UTF8.self)
}

/// A file part needs a readable file; its content does not matter here.
private let emptyFile: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-fuzz-\(getpid()).bin")
    _ = FileManager.default.createFile(atPath: url.path, contents: Data())
    return url
}()
