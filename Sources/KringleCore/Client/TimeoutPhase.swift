/// Which time limit a request ran out of, as ``KringleError/timedOut(_:)`` reports it.
///
/// Each phase has its own setting on ``NetworkClient/Configuration-swift.struct``:
/// ``NetworkClient/Configuration-swift.struct/connectTimeout``,
/// ``NetworkClient/Configuration-swift.struct/idleTimeout`` and
/// ``NetworkClient/Configuration-swift.struct/timeout``.
public enum TimeoutPhase: String, Sendable, Hashable, CustomStringConvertible {
    /// No connection was ready in time: name resolution, the TCP handshake and the TLS
    /// handshake (or a proxy's tunnel) together took longer than the connect timeout.
    case connect
    /// The connection was open but nothing moved on it, in either direction, for longer
    /// than the idle timeout (a server that stopped answering mid-response, say).
    case idle
    /// The whole request took longer than its timeout: a wait for a connection in the
    /// transport's queue, connecting, sending, waiting and receiving, every redirect hop.
    case total

    /// The phase, for a person: "connecting took too long", and so on.
    public var description: String {
        switch self {
        case .connect: return "no connection within the connect timeout"
        case .idle: return "nothing moved on the connection for the idle timeout"
        case .total: return "the request took longer than its timeout"
        }
    }
}
