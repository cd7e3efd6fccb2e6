import Foundation
@_spi(KringleInternals) import KringlePromise

/// A transport that opens WebSockets: ``CurlTransport``.
package protocol WebSocketConnecting: Sendable {
    /// Connects, writes the opening handshake of `transfer`'s request, and settles with the
    /// server's answer: a `101` once the connection is open and handed to `upgrade`, or
    /// another response, whose body goes to the transfer's channel.
    func openWebSocket(_ transfer: TransferRequest, upgrade: WebSocketUpgrade) -> Promise<HTTPResponse>
}
