import Foundation

extension HAR {
    /// A header field or a query item: a name and a value (HAR 1.2 `headers`, `queryString`).
    public struct NameValue: Sendable, Hashable, Codable {
        /// The name.
        public var name: String
        /// The value.
        public var value: String
        /// A comment.
        public var comment: String?
        /// The custom fields, and the others Kringle does not model, as read (see ``HAR``).
        public var custom: [String: HARValue]

        /// The fields HAR 1.2 defines for this object, which Kringle models; any other is kept in
        /// ``custom``.
        static let fields: Set<String> = ["name", "value", "comment"]

        /// A pair.
        public init(name: String, value: String, comment: String? = nil, custom: [String: HARValue] = [:]) {
            self.name = name
            self.value = value
            self.comment = comment
            self.custom = custom
        }

        /// Reads a pair.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            name = try container.field("name", or: "")
            value = try container.field("value", or: "")
            comment = try container.optional("comment")
            custom = try container.customFields(besides: Self.fields)
        }

        /// Writes the pair.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(name, "name")
            try container.put(value, "value")
            try container.put(comment, "comment")
            try container.putCustom(custom, besides: Self.fields)
        }
    }

    /// A cookie sent or set (HAR 1.2 `cookies`).
    public struct Cookie: Sendable, Hashable, Codable {
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

        /// The fields HAR 1.2 defines for this object, which Kringle models; any other is kept in
        /// ``custom``.
        static let fields: Set<String> = [
            "name", "value", "path", "domain", "expires", "httpOnly", "secure", "comment",
        ]

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

        /// Reads a cookie.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            name = try container.field("name", or: "")
            value = try container.field("value", or: "")
            path = try container.optional("path")
            domain = try container.optional("domain")
            expires = try container.optional("expires")
            httpOnly = try container.optional("httpOnly")
            secure = try container.optional("secure")
            comment = try container.optional("comment")
            custom = try container.customFields(besides: Self.fields)
        }

        /// Writes the cookie.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(name, "name")
            try container.put(value, "value")
            try container.put(path, "path")
            try container.put(domain, "domain")
            try container.put(expires, "expires")
            try container.put(httpOnly, "httpOnly")
            try container.put(secure, "secure")
            try container.put(comment, "comment")
            try container.putCustom(custom, besides: Self.fields)
        }
    }

    /// A request's body (HAR 1.2 `postData`): its text, or the parameters of a form.
    public struct PostData: Sendable, Hashable, Codable {
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

        /// The fields HAR 1.2 defines for this object, which Kringle models; any other is kept in
        /// ``custom``.
        static let fields: Set<String> = ["mimeType", "params", "text", "comment"]

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

        /// Reads a body.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            mimeType = try container.field("mimeType", or: "")
            params = try container.optional("params")
            text = try container.optional("text")
            comment = try container.optional("comment")
            custom = try container.customFields(besides: Self.fields)
        }

        /// Writes the body.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(mimeType, "mimeType")
            try container.put(params, "params")
            try container.put(text, "text")
            try container.put(comment, "comment")
            try container.putCustom(custom, besides: Self.fields)
        }
    }

    /// A parameter of a posted form (HAR 1.2 `params`).
    public struct Param: Sendable, Hashable, Codable {
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

        /// The fields HAR 1.2 defines for this object, which Kringle models; any other is kept in
        /// ``custom``.
        static let fields: Set<String> = ["name", "value", "fileName", "contentType", "comment"]

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

        /// Reads a parameter.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            name = try container.field("name", or: "")
            value = try container.optional("value")
            fileName = try container.optional("fileName")
            contentType = try container.optional("contentType")
            comment = try container.optional("comment")
            custom = try container.customFields(besides: Self.fields)
        }

        /// Writes the parameter.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(name, "name")
            try container.put(value, "value")
            try container.put(fileName, "fileName")
            try container.put(contentType, "contentType")
            try container.put(comment, "comment")
            try container.putCustom(custom, besides: Self.fields)
        }
    }

    /// A response's body (HAR 1.2 `content`), decoded from any content coding.
    public struct Content: Sendable, Hashable, Codable {
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

        /// The fields HAR 1.2 defines for this object, which Kringle models; any other is kept in
        /// ``custom``.
        static let fields: Set<String> = ["size", "compression", "mimeType", "text", "encoding", "comment"]

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

        /// Reads a body.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: HARKey.self)
            size = try container.field("size", or: -1)
            compression = try container.optional("compression")
            mimeType = try container.field("mimeType", or: "")
            text = try container.optional("text")
            encoding = try container.optional("encoding")
            comment = try container.optional("comment")
            custom = try container.customFields(besides: Self.fields)
        }

        /// Writes the body.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: HARKey.self)
            try container.put(size, "size")
            try container.put(compression, "compression")
            try container.put(mimeType, "mimeType")
            try container.put(text, "text")
            try container.put(encoding, "encoding")
            try container.put(comment, "comment")
            try container.putCustom(custom, besides: Self.fields)
        }
    }
}
