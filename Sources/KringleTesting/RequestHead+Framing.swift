extension RequestHead {
    /// Works out where this request's body ends, refusing framings that are ambiguous.
    ///
    /// - Throws: 400 for conflicting or malformed framing, 501 for transfer codings other
    ///   than chunked.
    func bodyFraming() throws(RequestRejection) -> RequestBodyFraming {
        let codings = listMembers("transfer-encoding")
        let hasContentLength = !values("content-length").isEmpty
        if !values("transfer-encoding").isEmpty {
            // §6.3 rule 3: both fields at once "ought to be handled as an error" because it is
            // the classic request-smuggling pattern; we refuse rather than let TE override.
            if hasContentLength { throw .badRequest("both Transfer-Encoding and Content-Length") }
            // §6.1: Transfer-Encoding in an HTTP/1.0 message means the framing is faulty.
            if minorVersion == 0 { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            // §6.3 rule 4: if chunked is not the final coding the length cannot be determined;
            // the server MUST respond with 400 and close the connection.
            guard codings.last == "chunked" else { throw .badRequest("chunked is not the final transfer coding") }
            // §7: chunked MUST NOT be applied more than once.
            guard codings.filter({ $0 == "chunked" }).count == 1 else {
                throw .badRequest("chunked transfer coding applied more than once")
            }
            // §6.1: a server SHOULD answer 501 to a transfer coding it does not understand;
            // this server decodes only chunked.
            guard codings.count == 1 else { throw RequestRejection(status: 501, reason: "unsupported transfer coding") }
            return .chunked
        }
        guard hasContentLength else { return .none }
        // §6.3 rule 5: several fields or a list of identical valid values may be accepted as
        // that one value; anything else is unrecoverable and gets 400.
        let lengths = listMembers("content-length")
        guard let first = lengths.first, lengths.allSatisfy({ $0 == first }),
            first.utf8.count <= 18, first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let length = Int(first)
        else { throw .badRequest("invalid Content-Length") }
        return length == 0 ? .none : .length(length)
    }

    /// Whether the client asked to keep the connection open after this exchange (§9.3):
    /// HTTP/1.1 persists unless `Connection: close`; HTTP/1.0 only with `keep-alive`.
    var wantsPersistentConnection: Bool {
        let options = listMembers("connection")
        if options.contains("close") { return false }
        return minorVersion >= 1 || options.contains("keep-alive")
    }

    /// What the `Expect` header field asks for (RFC 9110 §10.1.1).
    ///
    /// - Returns: `true` when the client waits for `100 Continue` before sending its body.
    /// - Throws: 417 for an expectation other than `100-continue`.
    func expectsContinue() throws(RequestRejection) -> Bool {
        let expectations = listMembers("expect")
        if expectations.isEmpty { return false }
        // §10.1.1: a server that receives 100-continue in an HTTP/1.0 request MUST ignore it.
        if minorVersion == 0 { return false }
        guard expectations.allSatisfy({ $0 == "100-continue" }) else {
            throw RequestRejection(status: 417, reason: "unsupported expectation")
        }
        return true
    }
}
