import Foundation
@_spi(KringleInternals) import KringleCore

extension RequestHead {
    /// The `Sec-WebSocket-Accept` value that answers this request, if it is a WebSocket
    /// opening handshake (RFC 6455 §4.2.1).
    ///
    /// - Throws: 400 for a request that is not one: not a GET of HTTP/1.1 or later, no
    ///   `websocket` in `Upgrade`, no `upgrade` in `Connection`, a `Sec-WebSocket-Key` that is
    ///   missing, repeated or not 16 bytes in base64, a `Sec-WebSocket-Version` other than 13.
    func webSocketAccept() throws(RequestRejection) -> String {
        // §4.2.1 items 1-4, 6 and 5 (the version is checked last: only it earns the
        // Sec-WebSocket-Version field of §4.4).
        guard method == "GET", minorVersion >= 1 else {
            throw .badRequest("a WebSocket handshake is a GET of HTTP/1.1")
        }
        guard listMembers("upgrade").contains("websocket") else { throw .badRequest("no Upgrade: websocket") }
        guard listMembers("connection").contains("upgrade") else { throw .badRequest("no Connection: Upgrade") }
        let keys = values("sec-websocket-key")
        guard keys.count == 1, let key = keys.first?.trimmingCharacters(in: .whitespaces),
            Data(base64Encoded: key)?.count == 16
        else { throw .badRequest("no Sec-WebSocket-Key of 16 bytes in base64") }
        guard values("sec-websocket-version").map({ $0.trimmingCharacters(in: .whitespaces) }) == ["13"] else {
            throw Self.unsupportedVersion
        }
        return WebSocketHandshake.acceptValue(forKey: key)
    }

    /// The rejection of a version other than 13, which ``Connection`` answers with
    /// `Sec-WebSocket-Version: 13` (§4.4).
    static let unsupportedVersion = RequestRejection.badRequest("Sec-WebSocket-Version is not 13")
}
