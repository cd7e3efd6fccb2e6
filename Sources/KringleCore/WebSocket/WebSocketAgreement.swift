/// What the server agreed to in its `101` (RFC 6455 §4.2.2): the subprotocol it picked, if
/// any, and `permessage-deflate` if it took the offer.
struct WebSocketAgreement: Sendable, Equatable {
    var subprotocol: String?
    var compression: WebSocketCompression?
}
