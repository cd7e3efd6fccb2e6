import Foundation

/// Lays out multipart parts as a ``StreamedBody``.
enum MultipartEncoding {
    /// The body and its `Content-Type` (with the boundary).
    ///
    /// - Throws: ``KringleError/file(_:underlying:)`` when a file part is missing or unreadable,
    ///   ``KringleError/invalidRequest(_:)`` when a part's content type could end its header.
    static func body(for parts: [MultipartPart], boundary: String = "kringle-" + UUID().uuidString)
        throws -> (body: StreamedBody, contentType: String)
    {
        var segments: [StreamedBody.Segment] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(escaped(part.name))\""
            switch part.content {
            case .text(let value):
                head += "\r\n\r\n"
                segments.append(.data(Data(head.utf8) + Data(value.utf8) + Data("\r\n".utf8)))
            case .file(let url, let filename, let contentType):
                try RequestValidation.validateField(
                    name: "Content-Type", value: contentType, in: "the multipart part \"\(part.name)\"")
                let size = try StreamedBody.size(ofReadableFile: url)
                head += "; filename=\"\(escaped(filename))\"\r\nContent-Type: \(contentType)\r\n\r\n"
                segments.append(.data(Data(head.utf8)))
                segments.append(.file(url, size: size))
                segments.append(.data(Data("\r\n".utf8)))
            }
        }
        segments.append(.data(Data("--\(boundary)--\r\n".utf8)))
        return (StreamedBody(segments: segments), "multipart/form-data; boundary=\(boundary)")
    }

    /// Names and filenames escaped as browsers do (WHATWG HTML, multipart/form-data
    /// encoding): `"`, CR and LF percent-encoded, so no value can end the header or the part.
    ///
    /// Scalar by scalar, not with `replacingOccurrences`, which matches whole Characters and
    /// so leaves a quote or a line break that a combining mark follows (`"\u{301}` is one
    /// Character, and no quote).
    static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result.append(contentsOf: "%22".unicodeScalars)
            case "\r": result.append(contentsOf: "%0D".unicodeScalars)
            case "\n": result.append(contentsOf: "%0A".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
