import Foundation

/// How a ``WebSocket`` reconnects when its connection drops, if it does
/// (``WebSocketOptions/reconnection``); modelled on ``EventStream/Reconnection``.
///
/// After a connection that dropped (no closing handshake, a transport error, no pong in
/// time) or that the server closed with 1001 (Going Away), 1012 (Service Restart) or 1013
/// (Try Again Later), the socket waits ``delay`` on the client's clock (doubled after each
/// attempt that failed, up to ``maximumDelay``) and opens a new connection to the same
/// endpoint: a new opening handshake, through the interceptors and the cookie jar again.
/// Each reconnection is a retry the client's ``RetryBudget`` must allow for the host. Once
/// ``maximumAttempts`` in a row have failed, or the budget says no, the messages end with
/// the last error.
///
/// Reading and sending go on across a reconnection: a ``WebSocket/receive()`` or a
/// ``WebSocket/send(_:)`` made meanwhile waits for the new connection. A message in flight
/// when the old one dropped may be lost: the protocol has no acknowledgements.
public struct WebSocketReconnection: Sendable, Hashable {
    /// The wait before the first reconnection: 1 s.
    public var delay: TimeInterval = 1
    /// The longest wait between attempts: 30 s.
    public var maximumDelay: TimeInterval = 30
    /// How many reconnections in a row may fail (or end before a message was received or
    /// sent) before the socket gives up: 10.
    public var maximumAttempts = 10

    /// The defaults, as each property states.
    public init() {}

    /// The wait before attempt `attempt` (from 1).
    func wait(before attempt: Int) -> TimeInterval {
        min(delay * pow(2, Double(attempt - 1)), max(delay, maximumDelay))
    }

    /// Whether a connection that ended with `error` (or, for `nil`, a close frame with
    /// `code`) should be replaced. A protocol violation, a refusal, a TLS failure or a
    /// cancellation would only come again.
    static func reconnects(after error: (any Error)?, closedWith code: WebSocketCloseCode?) -> Bool {
        guard let error else {
            return code.map {
                [.goingAway, WebSocketCloseCode(rawValue: 1012), WebSocketCloseCode(rawValue: 1013)].contains($0)
            }
                ?? false
        }
        switch error as? KringleError {
        case .webSocketClosed(_, let closedCode, _)?:
            return closedCode == .abnormalClosure || reconnects(after: nil, closedWith: closedCode)
        case .webSocketUnresponsive?, .timedOut?:
            return true
        case .transport(let underlying)?:
            return underlying is any TransportFailure
        default:
            return false
        }
    }
}
