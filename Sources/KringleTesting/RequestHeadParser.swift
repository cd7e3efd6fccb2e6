@_spi(KringleInternals) import KringleCore

/// Parses the request line and header field lines of an HTTP/1.1 request (RFC 9112 §3, §5).
///
/// Strict where leniency would let a broken client pass unnoticed or open the door to
/// request smuggling; each refusal names the rule it enforces.
enum RequestHeadParser {
    /// Parses the lines of a header section, without their line terminators and without the
    /// final empty line.
    ///
    /// - Parameter lines: the request line first, then one header field line each.
    /// - Throws: a ``RequestRejection`` with status 400, or 505 for a version other than 1.x.
    static func parse(lines: [String]) throws(RequestRejection) -> RequestHead {
        guard let requestLine = lines.first else { throw .badRequest("empty request") }
        var head = try parseRequestLine(requestLine)
        head.headers.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            head.headers.append(try parseFieldLine(line))
        }
        // RFC 9112 §3.2: a server MUST respond with 400 to an HTTP/1.1 request that lacks a
        // Host header field, and to any request with more than one.
        let hostCount = head.values("host").count
        if hostCount > 1 { throw .badRequest("more than one Host header field") }
        if hostCount == 0 && head.minorVersion >= 1 { throw .badRequest("missing Host header field") }
        return head
    }

    /// RFC 9112 §3: `request-line = method SP request-target SP HTTP-version`.
    private static func parseRequestLine(_ line: String) throws(RequestRejection) -> RequestHead {
        // Exactly single spaces: §3 allows lenient whitespace parsing but warns it invites
        // smuggling, and test clients should send canonical request lines.
        let parts = line.utf8.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .badRequest("malformed request line") }
        let (methodBytes, targetBytes, versionBytes) = (parts[0], parts[1], parts[2])

        guard !methodBytes.isEmpty, methodBytes.allSatisfy(\.isHTTPTokenCharacter) else {
            throw .badRequest("invalid method")  // §3.1: method = token
        }
        let minorVersion = try parseVersion(versionBytes)
        // §3.2: the target holds no whitespace or controls; non-ASCII must be percent-encoded.
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .badRequest("invalid request-target")
        }
        let method = String(decoding: methodBytes, as: UTF8.self)
        let target = String(decoding: targetBytes, as: UTF8.self)
        try checkTargetForm(target, method: method)
        return RequestHead(
            method: method,
            target: target,
            version: String(decoding: versionBytes, as: UTF8.self),
            minorVersion: minorVersion,
            headers: []
        )
    }

    /// RFC 9112 §2.3: `HTTP-version = "HTTP" "/" DIGIT "." DIGIT`, case-sensitive.
    private static func parseVersion(_ bytes: Substring.UTF8View) throws(RequestRejection) -> Int {
        let version = Array(bytes)
        guard version.count == 8, version[0..<5].elementsEqual("HTTP/".utf8), version[6] == UInt8(ascii: "."),
            isDigit(version[5]), isDigit(version[7])
        else { throw .badRequest("malformed HTTP version") }
        // RFC 9110 §15.6.6: 505 for a major version the server does not support.
        guard version[5] == UInt8(ascii: "1") else {
            throw RequestRejection(status: 505, reason: "only HTTP/1.x is supported")
        }
        return Int(version[7] - UInt8(ascii: "0"))
    }

    /// RFC 9112 §3.2: the four request-target forms and the methods that may use them.
    private static func checkTargetForm(_ target: String, method: String) throws(RequestRejection) {
        if target.hasPrefix("/") { return }  // origin-form, §3.2.1
        if target == "*" {
            // asterisk-form, §3.2.4: only for a server-wide OPTIONS.
            if method == "OPTIONS" { return }
            throw .badRequest("asterisk-form target is only allowed with OPTIONS")
        }
        if method == "CONNECT" { return }  // authority-form, §3.2.3
        if target.contains("://") { return }  // absolute-form, §3.2.2
        throw .badRequest("invalid request-target")
    }

    /// RFC 9112 §5: `field-line = field-name ":" OWS field-value OWS`.
    private static func parseFieldLine(_ line: String) throws(RequestRejection) -> (name: String, value: String) {
        let bytes = line.utf8
        // §5.2: obsolete line folding; a server MAY reject it with 400, and we do, because
        // no current client folds and unfolding would hide a client bug.
        if let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            throw .badRequest("obsolete line folding in header section")
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else {
            throw .badRequest("header field line without a colon")
        }
        let nameBytes = bytes[..<colon]
        // §5.1: no whitespace is allowed between the field name and the colon; a server MUST
        // reject such a request with 400. The name is a token, which covers that case.
        guard !nameBytes.isEmpty, nameBytes.allSatisfy(\.isHTTPTokenCharacter) else {
            throw .badRequest("invalid header field name")
        }
        var valueBytes = bytes[bytes.index(after: colon)...]
        while let first = valueBytes.first, isOptionalWhitespace(first) { valueBytes = valueBytes.dropFirst() }
        while let last = valueBytes.last, isOptionalWhitespace(last) { valueBytes = valueBytes.dropLast() }
        // RFC 9110 §5.5: a field value containing CR, LF or NUL MUST be rejected (or the
        // characters replaced); §2.2 of RFC 9112 forbids a bare CR anywhere in the head.
        guard !valueBytes.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) else {
            throw .badRequest("invalid character in header field value")
        }
        return (String(decoding: nameBytes, as: UTF8.self), String(decoding: valueBytes, as: UTF8.self))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
