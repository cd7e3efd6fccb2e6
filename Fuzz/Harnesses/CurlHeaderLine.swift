import Foundation

@testable import KringleCore

/// `CurlHeaderLine`, which classifies each header line curl hands CurlTransport, and the
/// `ResponseCollector` that gathers the classified lines into header and trailer fields.
///
/// The input is a response head as curl would deliver it: one line per LF, each still ending
/// with it. Beyond not crashing: each class matches the line it came from (a status line is
/// a valid one, a field's name holds no colon, names and values are trimmed), the bytes
/// decode to text that maps back to them, the `String` initializer agrees with the byte one,
/// and every field the collector keeps is one a line gave.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let collector = ResponseCollector()
    var collecting = true
    var start = 0
    while start < bytes.count {
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
        let line = bytes.withUnsafeBytes { CurlHeaderLine(bytes: UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
        check(line, from: bytes[start..<end])
        if collecting { collecting = collector.receive(line) }
        start = end
    }
    for field in collector.headers.fields + collector.trailers.fields {
        require(
            !field.name.utf8.contains(UInt8(ascii: ":")) && isTrimmed(field.name) && isTrimmed(field.value),
            "collected \(field)")
    }
    return 0
}

/// Checks one classified line against its bytes.
private func check(_ line: CurlHeaderLine, from raw: ArraySlice<UInt8>) {
    let content = Array(raw.reversed().drop { $0 == 0x0D || $0 == 0x0A }.reversed())
    switch line {
    case .end:
        require(content.isEmpty, "a line with content ended the block")
    case .statusLine:
        require(content.starts(with: "HTTP/".utf8), "a status line without HTTP/")
        let afterName = content.dropFirst(5)
        let version = afterName.prefix { $0 != UInt8(ascii: " ") }
        require(["1.0", "1.1", "2", "3"].contains { version.elementsEqual($0.utf8) }, "an unknown version")
        let code = afterName.dropFirst(version.count + 1).prefix(3)
        require(code.count == 3 && code.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }, "no three-digit code")
    case .malformedStatusLine(let reason):
        require(!reason.isEmpty && reason.count <= 200, "a reason of \(reason.count) characters")
    case .field(let name, let value):
        require(
            !name.utf8.contains(UInt8(ascii: ":")) && isTrimmed(name) && isTrimmed(value), "the field \(name): \(value)"
        )
    case .continuation(let text):
        require(content.first.map(isOptionalWhitespace) == true && isTrimmed(text), "the continuation \(text)")
    case .other:
        require(!content.contains(UInt8(ascii: ":")), "a line with a colon was no field")
    }

    content.withUnsafeBytes { buffer in
        let text = CurlHeaderLine.text(buffer)
        if let valid = String(validating: content, as: UTF8.self) {
            require(text == valid, "valid UTF-8 decoded as something else")
            require(CurlHeaderLine(valid) == line, "the String initializer disagrees with the bytes one")
        } else {
            // ISO 8859-1: one character per byte, of the byte's value.
            require(text.unicodeScalars.map(\.value) == content.map(UInt32.init), "Latin-1 text does not map back")
        }
    }
}
