import Foundation
@_spi(KringleInternals) import KringlePromise

/// A WebSocket call's side of the opening handshake, carried to the transport with the call's
/// stream channels (``StreamChannels/webSocket``): the fields the request adds, the checks
/// the `101` must pass, and the session the transport hands back.
package final class WebSocketUpgrade: Sendable {
    package let options: WebSocketOptions
    package let clock: any KringleClock
    private let channel = Locked<(any WebSocketChannel)?>(nil)

    init(options: WebSocketOptions, clock: any KringleClock) {
        self.options = options
        self.clock = clock
    }

    /// The fields the handshake writes itself, in lower case: a caller's are left out.
    static let ownFields: Set<String> = [
        "host", "upgrade", "connection", "content-length", "transfer-encoding", "sec-websocket-key",
        "sec-websocket-version", "sec-websocket-protocol", "sec-websocket-extensions",
    ]

    /// The handshake's fields (§4.1): a new `Sec-WebSocket-Key` on every hop.
    package func handshakeFields(key: String) -> [(String, String)] {
        var fields = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", key),
            ("Sec-WebSocket-Version", "13"),
        ]
        if !options.subprotocols.isEmpty {
            fields.append(("Sec-WebSocket-Protocol", options.subprotocols.joined(separator: ", ")))
        }
        if options.offersCompression {
            fields.append(("Sec-WebSocket-Extensions", WebSocketCompression.offer))
        }
        return fields
    }

    /// The agreement a `101` states, after the checks of §4.1 (the client's requirements on
    /// the server's handshake): a `websocket` upgrade, the accept value of `key`, no extension
    /// that was not offered, and a subprotocol only of those offered.
    func check(_ response: HTTPResponse, key: String) throws -> WebSocketAgreement {
        func refuse(_ reason: String) -> KringleError {
            .webSocketRefused(Response(response, redaction: .default), reason: reason)
        }
        let upgrade = response.headers.values(for: "Upgrade").joined(separator: ",")
        guard Self.tokens(upgrade).contains("websocket") else {
            throw refuse(
                "the 101 response upgrades to \(upgrade.isEmpty ? "nothing" : upgrade.debugDescription), not websocket")
        }
        let connection = response.headers.values(for: "Connection").joined(separator: ",")
        guard Self.tokens(connection).contains("upgrade") else {
            throw refuse("the 101 response's Connection field does not name upgrade")
        }
        let accept = response.headers.values(for: "Sec-WebSocket-Accept").first
        guard accept == WebSocketHandshake.acceptValue(forKey: key) else {
            throw refuse("Sec-WebSocket-Accept is \(accept?.debugDescription ?? "missing"), not the key's accept value")
        }
        let extensions = response.headers.values(for: "Sec-WebSocket-Extensions")
        let compression: WebSocketCompression?
        do {
            compression = try WebSocketCompression.agreed(inResponse: extensions)
        } catch {
            throw refuse(error.reason)
        }
        if compression != nil, !options.offersCompression {
            throw refuse("the server uses permessage-deflate, which was not offered")
        }
        let chosen = response.headers.values(for: "Sec-WebSocket-Protocol")
        guard chosen.count <= 1 else { throw refuse("the server chose more than one subprotocol") }
        if let subprotocol = chosen.first, !options.subprotocols.contains(subprotocol) {
            throw refuse("the server chose the subprotocol \(subprotocol.debugDescription), which was not offered")
        }
        return WebSocketAgreement(subprotocol: chosen.first, compression: compression)
    }

    /// The comma-separated tokens of a field, in lower case.
    private static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    deinit {
        // A connection nobody took (its call was cancelled as the 101 came) closes.
        takeChannel()?.abandon()
    }

    /// Called by the transport when the connection is open, before the call's promise
    /// settles.
    package func opened(_ channel: any WebSocketChannel) {
        self.channel.withLock { $0 = channel }
    }

    /// The open connection, once.
    func takeChannel() -> (any WebSocketChannel)? {
        channel.withLock { channel in
            defer { channel = nil }
            return channel
        }
    }
}
