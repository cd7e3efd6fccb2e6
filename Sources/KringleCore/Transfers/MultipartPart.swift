import Foundation

/// One part of a `multipart/form-data` body (RFC 7578), for ``RequestBody/multipart(_:)``.
///
/// ```swift
/// client.request(.post, Gallery.upload, body: .multipart([
///     .field(name: "title", value: "Tom asleep"),
///     .file(name: "photo", fileURL: photoURL, filename: "tom.jpg", contentType: "image/jpeg"),
/// ]), as: Photo.self)
/// ```
/// File parts are streamed from disk when the request is sent, never read whole.
public struct MultipartPart: Sendable {
    enum Content: Sendable {
        case text(String)
        case file(URL, filename: String, contentType: String)
    }

    let name: String
    let content: Content

    /// A text field.
    public static func field(name: String, value: String) -> MultipartPart {
        MultipartPart(name: name, content: .text(value))
    }

    /// A file, read from disk when the request is sent.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - fileURL: The file to send.
    ///   - filename: The name the server sees; the file's own name by default.
    ///   - contentType: The part's media type; `application/octet-stream` by default.
    public static func file(name: String, fileURL: URL, filename: String? = nil, contentType: String? = nil)
        -> MultipartPart
    {
        MultipartPart(
            name: name,
            content: .file(
                fileURL,
                filename: filename ?? fileURL.lastPathComponent,
                contentType: contentType ?? "application/octet-stream"
            ))
    }
}
