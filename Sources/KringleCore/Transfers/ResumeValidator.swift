import Foundation

/// What identifies the version of a file that a partial download holds, sent with the
/// resumed request as `If-Range` (RFC 9110 §13.1.5).
///
/// A server whose file still matches answers with the rest (206); one whose file changed
/// answers with the whole new file (200), and the download starts over instead of gluing
/// the rest of one version onto the start of another. Keep the validator of the response
/// whose body you kept as the partial file:
///
/// ```swift
/// let validator = ResumeValidator(headers: firstResponse.headers)
/// client.download(Files.movie, to: destination, resumingFrom: partial, validator: validator)
/// ```
///
/// Only strong validators may be sent (RFC 9110 §13.1.5): an entity tag without `W/`, or a
/// `Last-Modified` date at least a second older than the response's `Date` (§8.8.2.2).
public struct ResumeValidator: Sendable, Hashable, CustomStringConvertible {
    /// Which kind of validator it is.
    public enum Kind: Sendable, Hashable {
        /// A strong entity tag, from `ETag` (RFC 9110 §8.8.3).
        case entityTag
        /// A `Last-Modified` date (RFC 9110 §8.8.2).
        case lastModified
    }

    /// Which kind of validator it is.
    public let kind: Kind
    /// The `If-Range` field value: the entity tag with its quotes, such as `"xyzzy"`, or the
    /// date as the server sent it, such as `Wed, 21 Oct 2015 07:28:00 GMT`.
    public let value: String

    /// A strong entity tag, as the server sent it in `ETag`.
    ///
    /// - Parameter entityTag: `"` + characters other than `"`, controls and DEL + `"`.
    /// - Returns: `nil` for a weak tag (`W/"…"`), which `If-Range` may not carry, or text that
    ///   is not an entity tag (RFC 9110 §8.8.3).
    public init?(entityTag: String) {
        let bytes = Array(entityTag.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\""),
            // etagc = %x21 / %x23-7E / obs-text
            bytes.dropFirst().dropLast().allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 })
        else { return nil }
        kind = .entityTag
        value = entityTag
    }

    /// A `Last-Modified` date, as the server sent it.
    ///
    /// The caller vouches that it is strong: the server's file cannot have changed twice
    /// within that second (see ``init(headers:)``, which checks).
    ///
    /// - Returns: `nil` when the text is not a date (or holds a control character).
    public init?(lastModified: String) {
        guard !lastModified.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }),
            CookieDateParser.parse(lastModified) != nil
        else { return nil }
        kind = .lastModified
        value = lastModified
    }

    /// The strong validator of a response: its `ETag` unless weak, else its
    /// `Last-Modified` when that is at least a second before its `Date` (RFC 9110 §13.1.5,
    /// §8.8.2.2).
    ///
    /// - Parameter headers: The response's header fields.
    /// - Returns: `nil` when the response has no strong validator; resume without one.
    public init?(headers: HTTPHeaders) {
        if let tag = headers["ETag"] {
            // A weak tag is not used, and neither is the date then: "no entity tag" only
            // allows a date when the server sent no tag at all (§13.1.5).
            guard let strong = ResumeValidator(entityTag: tag) else { return nil }
            self = strong
            return
        }
        guard let text = headers["Last-Modified"], let modified = CookieDateParser.parse(text),
            let sent = headers["Date"].flatMap(CookieDateParser.parse), sent.timeIntervalSince(modified) >= 1,
            let validator = ResumeValidator(lastModified: text)
        else { return nil }
        self = validator
    }

    /// The validator as the `If-Range` line would carry it, such as `ETag "xyzzy"`.
    public var description: String {
        (kind == .entityTag ? "ETag " : "Last-Modified ") + value
    }

    /// Whether a 206 response that carries a validator of this kind names another version
    /// than this one (RFC 9110 §15.3.7: a 206 carries the ETag and Last-Modified a 200
    /// would). A response without one is not held against it.
    func isContradicted(by headers: HTTPHeaders) -> Bool {
        switch kind {
        case .entityTag:
            return headers["ETag"].map { $0 != value } ?? false
        case .lastModified:
            guard let sent = headers["Last-Modified"] else { return false }
            return CookieDateParser.parse(sent) != CookieDateParser.parse(value)
        }
    }
}
