import Foundation

extension HAR {
    /// A header field or a query item: a name and a value (HAR 1.2 `headers`, `queryString`).
    public struct NameValue: Sendable, Hashable, Codable, HARObject {
        /// The name.
        public var name: String
        /// The value.
        public var value: String
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<NameValue>(
            blank: NameValue(name: "", value: ""),
            [
                .field("name", \.name, or: ""),
                .field("value", \.value, or: ""),
                .optional("comment", \.comment),
            ])

        /// A pair.
        public init(name: String, value: String, comment: String? = nil, custom: [String: HARValue] = [:]) {
            self.name = name
            self.value = value
            self.comment = comment
            self.custom = custom
        }
    }

    /// A cookie sent or set (HAR 1.2 `cookies`).
    public struct Cookie: Sendable, Hashable, Codable, HARObject {
        /// The name.
        public var name: String
        /// The value.
        public var value: String
        /// The `Path` attribute.
        public var path: String?
        /// The `Domain` attribute.
        public var domain: String?
        /// The `Expires` attribute (ISO 8601).
        public var expires: String?
        /// Whether `HttpOnly` was set.
        public var httpOnly: Bool?
        /// Whether `Secure` was set.
        public var secure: Bool?
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Cookie>(
            blank: Cookie(name: "", value: ""),
            [
                .field("name", \.name, or: ""),
                .field("value", \.value, or: ""),
                .optional("path", \.path),
                .optional("domain", \.domain),
                .optional("expires", \.expires),
                .optional("httpOnly", \.httpOnly),
                .optional("secure", \.secure),
                .optional("comment", \.comment),
            ])

        /// A cookie.
        public init(
            name: String, value: String, path: String? = nil, domain: String? = nil, expires: String? = nil,
            httpOnly: Bool? = nil, secure: Bool? = nil, comment: String? = nil, custom: [String: HARValue] = [:]
        ) {
            self.name = name
            self.value = value
            self.path = path
            self.domain = domain
            self.expires = expires
            self.httpOnly = httpOnly
            self.secure = secure
            self.comment = comment
            self.custom = custom
        }
    }

    /// A request's body (HAR 1.2 `postData`): its text, or the parameters of a form.
    public struct PostData: Sendable, Hashable, Codable, HARObject {
        /// The body's media type.
        public var mimeType: String
        /// A form's parameters (`application/x-www-form-urlencoded`, `multipart/form-data`).
        public var params: [Param]?
        /// The body as text; Kringle writes a body that is not UTF-8 in base64 and says so in
        /// the custom field `_encoding` (HAR 1.2 gives `postData` no `encoding`).
        public var text: String?
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<PostData>(
            blank: PostData(mimeType: "", text: nil),
            [
                .field("mimeType", \.mimeType, or: ""),
                .optional("params", \.params),
                .optional("text", \.text),
                .optional("comment", \.comment),
            ])

        /// A body.
        public init(
            mimeType: String, text: String?, params: [Param]? = nil, comment: String? = nil,
            custom: [String: HARValue] = [:]
        ) {
            self.mimeType = mimeType
            self.text = text
            self.params = params
            self.comment = comment
            self.custom = custom
        }
    }

    /// A parameter of a posted form (HAR 1.2 `params`).
    public struct Param: Sendable, Hashable, Codable, HARObject {
        /// The name.
        public var name: String
        /// The value, or a file's content.
        public var value: String?
        /// The name of a posted file.
        public var fileName: String?
        /// The media type of a posted file.
        public var contentType: String?
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Param>(
            blank: Param(name: ""),
            [
                .field("name", \.name, or: ""),
                .optional("value", \.value),
                .optional("fileName", \.fileName),
                .optional("contentType", \.contentType),
                .optional("comment", \.comment),
            ])

        /// A parameter.
        public init(
            name: String, value: String? = nil, fileName: String? = nil, contentType: String? = nil,
            comment: String? = nil, custom: [String: HARValue] = [:]
        ) {
            self.name = name
            self.value = value
            self.fileName = fileName
            self.contentType = contentType
            self.comment = comment
            self.custom = custom
        }
    }

    /// A response's body (HAR 1.2 `content`), decoded from any content coding.
    public struct Content: Sendable, Hashable, Codable, HARObject {
        /// Bytes of the decoded body.
        public var size: Int
        /// Bytes saved by the content coding (``size`` minus the bytes transferred), when known.
        public var compression: Int?
        /// The body's media type (the `Content-Type` value).
        public var mimeType: String
        /// The decoded body, as text or, when ``encoding`` is `base64`, in base64.
        public var text: String?
        /// `base64` for a body written in base64; `nil` for text.
        public var encoding: String?
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models, in the order they are
        /// written; any other is kept in ``custom``.
        static let coding = HARFields<Content>(
            blank: Content(),
            [
                .field("size", \.size, or: -1),
                .optional("compression", \.compression),
                .field("mimeType", \.mimeType, or: ""),
                .optional("text", \.text),
                .optional("encoding", \.encoding),
                .optional("comment", \.comment),
            ])

        /// A body.
        public init(
            size: Int = 0, mimeType: String = "", text: String? = nil, encoding: String? = nil,
            compression: Int? = nil, comment: String? = nil, custom: [String: HARValue] = [:]
        ) {
            self.size = size
            self.compression = compression
            self.mimeType = mimeType
            self.text = text
            self.encoding = encoding
            self.comment = comment
            self.custom = custom
        }
    }
}
