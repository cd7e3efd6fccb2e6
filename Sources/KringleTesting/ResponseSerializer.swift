import Foundation

/// Turns a handler's ``LoopbackServer/Response`` into HTTP/1.1 bytes (RFC 9112 §4, §6, §7).
enum ResponseSerializer {
    /// The interim response that lets an `Expect: 100-continue` client send its body
    /// (RFC 9110 §10.1.1, §15.2.1).
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Plans the response to a request.
    ///
    /// Adds the fields the handler left out: `Content-Length` or `Transfer-Encoding`, `Date`
    /// (RFC 9110 §6.6.1) and `Connection`. Handler fields are sent first, exactly as given.
    ///
    /// - Parameters:
    ///   - response: what the handler returned.
    ///   - method: the request method; HEAD responses carry no content (RFC 9110 §9.3.2).
    ///   - minorVersion: the request's HTTP/1.x minor version; chunked needs 1.1 (RFC 9112 §6.1).
    ///   - clientKeepsAlive: whether the request allows a persistent connection (§9.3).
    ///   - date: the `Date` value to send unless the handler set one.
    static func plan(
        for response: LoopbackServer.Response,
        method: String,
        minorVersion: Int,
        clientKeepsAlive: Bool,
        date: String
    ) -> ResponsePlan {
        var hasLength = false, hasTransferEncoding = false, hasDate = false, hasConnection = false
        var handlerCloses = false
        var text =
            (response.statusLine ?? "HTTP/1.1 \(response.status) \(HTTPStatus.reasonPhrase(for: response.status))")
            + "\r\n"
        for (name, value) in response.headers {
            text += "\(name): \(value)\r\n"
            switch name.lowercased() {
            case "content-length": hasLength = true
            case "transfer-encoding": hasTransferEncoding = true
            case "date": hasDate = true
            case "connection":
                hasConnection = true
                handlerCloses =
                    handlerCloses
                    || value.lowercased().split(separator: ",").contains {
                        Substring($0).normalizedListMember() == "close"
                    }
            default: break
            }
        }

        let forbidsContent = HTTPStatus.forbidsContent(response.status)
        var chunked = false
        var closeDelimited = false
        if case .chunked = response.behavior, !forbidsContent {
            if minorVersion >= 1 {
                chunked = true
                if !hasTransferEncoding { text += "Transfer-Encoding: chunked\r\n" }
            } else {
                // §6.1: a server MUST NOT send Transfer-Encoding to an HTTP/1.0 client; the body
                // is delimited by closing the connection instead (§6.3 rule 8).
                closeDelimited = true
            }
        } else if !forbidsContent && !hasLength && !hasTransferEncoding {
            // RFC 9110 §8.6: sent for HEAD too, announcing the size a GET would return.
            text += "Content-Length: \(response.body.count)\r\n"
        }
        if !hasDate { text += "Date: \(date)\r\n" }

        let diesMidBody = response.behavior == .closeMidBody || response.behavior == .resetMidBody
        let closesConnection = !clientKeepsAlive || handlerCloses || closeDelimited || diesMidBody
        if !hasConnection {
            // closeMidBody and resetMidBody imitate a server that dies mid-response, so they
            // do not announce the close. RFC 9112 §9.6: otherwise a server that is about to
            // close SHOULD send `close`; an HTTP/1.0 client needs `keep-alive` echoed to keep
            // it open (§9.3).
            if closesConnection && !diesMidBody {
                text += "Connection: close\r\n"
            } else if !closesConnection && minorVersion == 0 {
                text += "Connection: keep-alive\r\n"
            }
        }
        text += "\r\n"
        return ResponsePlan(
            head: Array(text.utf8),
            sendsBody: method != "HEAD" && !forbidsContent,
            chunked: chunked,
            closesConnection: closesConnection
        )
    }

    /// Writes `body` as chunks of at most `chunkSize` bytes, then the last chunk, the
    /// trailer fields and the empty line that ends the message (RFC 9112 §7.1, §7.1.2).
    static func writeChunked(
        _ body: Data, chunkSize: Int, trailers: [(String, String)], to writer: SocketWriter
    ) throws(WriteFailure) {
        let size = max(1, chunkSize)
        var offset = body.startIndex
        while offset < body.endIndex {
            let chunkEnd = body.index(offset, offsetBy: size, limitedBy: body.endIndex) ?? body.endIndex
            try writer.write(Array("\(String(chunkEnd - offset, radix: 16))\r\n".utf8))
            try writer.write(body[offset..<chunkEnd])
            try writer.write(crlf)
            offset = chunkEnd
        }
        var end = "0\r\n"
        for (name, value) in trailers { end += "\(name): \(value)\r\n" }
        try writer.write(Array((end + "\r\n").utf8))
    }

    /// A complete response refusing a request, closing the connection afterwards.
    static func rejection(_ rejection: RequestRejection, date: String) -> [UInt8] {
        let body = "\(rejection.status) \(HTTPStatus.reasonPhrase(for: rejection.status)): \(rejection.reason)\n"
        let text =
            "HTTP/1.1 \(rejection.status) \(HTTPStatus.reasonPhrase(for: rejection.status))\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\n"
            + "Date: \(date)\r\n"
            + "Connection: close\r\n\r\n"
            + body
        return Array(text.utf8)
    }

    private static let crlf = Array("\r\n".utf8)
}
