import Foundation
@_spi(KringleInternals) import KringlePromise

/// The client's side of the opening handshake over a byte link (RFC 6455 §4.1): the request's
/// head to write, then the server's answer read until its head (and, for a refusal, its body)
/// is complete.
///
/// A `101` that meets §4.1's checks opens a ``WebSocketSession``; any other status is an
/// HTTP response like any other, which the client's pipeline handles (a redirect, a `401` an
/// interceptor answers, an unacceptable status).
final class WebSocketOpening: @unchecked Sendable {
    // Unchecked: made by the caller's thread, then handed (through a lock, the transport's
    // queue) to the one thread that moves its link's bytes, which alone uses it from then on.
    let url: URL
    /// The request's head, as written on the connection.
    let requestHead: [UInt8]
    private let key: String
    let upgrade: WebSocketUpgrade
    private let promise: Promise<HTTPResponse>
    private let channel: ResponseBodyChannel?
    private var head: [UInt8] = []
    /// A refusal's response, while its body is read.
    private var refusal: (response: HTTPResponse, body: [UInt8], length: Int)?
    private var settled = false
    /// The `101`, until the session is handed over.
    private var switching: HTTPResponse?

    /// The most a response head may hold.
    static let maximumHeadBytes = 64 << 10
    /// The most of a refusal's body that is read.
    static let maximumRefusalBodyBytes = 64 << 10

    /// What the bytes so far amount to.
    enum Progress {
        case waiting
        /// The promise settled without a connection: a refusal or a failure.
        case refused
        /// The server agreed: the caller makes the session and hands it to
        /// ``complete(with:)``; `rest` holds the bytes after the head (the first frames).
        case opened(WebSocketAgreement, rest: [UInt8])
    }

    /// - Parameters:
    ///   - request: The request as the client's pipeline made it (fields, cookies included).
    ///   - target: The URL the connection goes to, for the `Host` field and the request line
    ///     (for a Unix socket, curl's `http://localhost/…` form).
    init(
        request: HTTPRequest, target: URL, upgrade: WebSocketUpgrade, promise: Promise<HTTPResponse>,
        channel: ResponseBodyChannel?
    ) {
        url = request.url
        key = WebSocketHandshake.makeKey()
        self.upgrade = upgrade
        self.promise = promise
        self.channel = channel
        requestHead = Self.head(of: request, target: target, key: key, upgrade: upgrade)
    }

    /// The request's head (RFC 9112 §3, RFC 6455 §4.1): a GET with the caller's fields and
    /// the handshake's own.
    private static func head(of request: HTTPRequest, target: URL, key: String, upgrade: WebSocketUpgrade) -> [UInt8] {
        let components = URLComponents(url: target, resolvingAgainstBaseURL: true)
        var path = components?.percentEncodedPath ?? "/"
        if path.isEmpty { path = "/" }
        if let query = components?.percentEncodedQuery { path += "?" + query }
        var host = components?.percentEncodedHost ?? "localhost"
        if host.contains(":") { host = "[" + host + "]" }  // an IPv6 literal
        if let port = components?.port, port != (target.scheme == "https" ? 443 : 80) { host += ":\(port)" }
        var lines = ["GET \(path) HTTP/1.1", "Host: \(host)"]
        for field in request.headers where !WebSocketUpgrade.ownFields.contains(field.name.lowercased()) {
            lines.append("\(field.name): \(field.value)")
        }
        lines += upgrade.handshakeFields(key: key).map { "\($0.0): \($0.1)" }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Takes the server's bytes.
    func received(_ bytes: UnsafeRawBufferPointer) -> Progress {
        guard !settled else { return .refused }
        if refusal != nil { return readRefusalBody(bytes) }
        head.append(contentsOf: bytes)
        guard let end = Self.endOfHead(in: head) else {
            if head.count > Self.maximumHeadBytes {
                fail(KringleError.malformedResponse(url, reason: "the response head is longer than 64 KiB"))
                return .refused
            }
            return .waiting
        }
        let rest = Array(head[end...])
        let response: HTTPResponse
        do {
            response = try Self.response(from: head[..<end], url: url)
        } catch {
            fail(error)
            return .refused
        }
        head = []
        guard response.statusCode == 101 else {
            let length = Int(response.headers.values(for: "Content-Length").first ?? "") ?? 0
            refusal = (response, [], min(max(0, length), Self.maximumRefusalBodyBytes))
            return rest.withUnsafeBytes(readRefusalBody)
        }
        do {
            let agreement = try upgrade.check(response, key: key)
            switching = response
            return .opened(agreement, rest: rest)
        } catch {
            fail(error)
            return .refused
        }
    }

    /// Hands the open connection's session to the caller of the handshake.
    func complete(with session: WebSocketSession) {
        guard !settled, let switching else { return }
        settled = true
        upgrade.opened(session)
        channel?.finish()
        promise.fulfill(switching)
    }

    private func readRefusalBody(_ bytes: UnsafeRawBufferPointer) -> Progress {
        guard case (var response, var body, let length)? = refusal else { return .refused }
        body.append(contentsOf: bytes.prefix(length - body.count))
        guard body.count >= length else {
            refusal = (response, body, length)
            return .waiting
        }
        refusal = nil
        settled = true
        if let channel {
            if !body.isEmpty { _ = channel.offer(Data(body)) }
            channel.finish()
        } else {
            response.body = Data(body)
        }
        promise.fulfill(response)
        return .refused
    }

    /// Settles the handshake with `error`, unless it has settled.
    func fail(_ error: any Error) {
        guard !settled else { return }
        settled = true
        channel?.finish(throwing: error)
        promise.reject(error)
    }

    /// The index after the head's blank line, if it has come.
    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// The status line and fields of a head (RFC 9112 §4, §5).
    private static func response(from head: ArraySlice<UInt8>, url: URL) throws -> HTTPResponse {
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map {
            $0.last == 13 ? $0.dropLast() : $0
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first, statusLine.withUnsafeBytes({ CurlHeaderLine(bytes: $0) }) == .statusLine
        else {
            throw KringleError.malformedResponse(
                url, reason: "the answer to the opening handshake has no valid status line")
        }
        let code = Int(String(decoding: statusLine.split(separator: 32).dropFirst().first ?? [], as: UTF8.self)) ?? 0
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            switch line.withUnsafeBytes({ CurlHeaderLine(bytes: $0) }) {
            case .field(let name, let value): headers.add(name: name, value: value)
            default:
                throw KringleError.malformedResponse(
                    url, reason: "the answer to the opening handshake has a malformed field line")
            }
        }
        return HTTPResponse(statusCode: code, headers: headers, url: url)
    }
}
