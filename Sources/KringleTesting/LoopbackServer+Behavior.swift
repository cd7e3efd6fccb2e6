import Foundation
import Synchronization

extension LoopbackServer {
    /// How a ``Response`` is written, including ways to fail on purpose.
    ///
    /// ```swift
    /// let server = try LoopbackServer { request in
    ///     switch request.path {
    ///     case "/truncated": return .text(String(repeating: "x", count: 1000)).withBehavior(.closeMidBody)
    ///     case "/hang-up": return .status(200).withBehavior(.closeWithoutResponse)
    ///     default: return .text("ok").withBehavior(.chunked(chunkSize: 4))
    ///     }
    /// }
    /// ```
    public enum Behavior: Sendable, Equatable {
        /// Send the whole response; keep the connection open if both sides allow it.
        case normal

        /// Send the body with the chunked transfer coding (RFC 9112 §7.1), in chunks of at
        /// most `chunkSize` bytes, instead of with a `Content-Length`. HTTP/1.0 clients cannot
        /// decode chunks, so they get the body delimited by closing the connection instead.
        case chunked(chunkSize: Int = 16_384)

        /// Send the header section with the full `Content-Length`, then the first half of the
        /// body, then close the connection: the client sees a truncated body. Give it a
        /// non-empty body, otherwise nothing is missing.
        case closeMidBody

        /// Like ``closeMidBody``, but the connection ends with a reset (TCP RST) instead of an
        /// orderly close: the header section with the full `Content-Length`, the first half
        /// of the body, then the reset. (The bytes sent before it still reach the client:
        /// the server's socket sends every segment at once, and a reset does not overtake
        /// data already queued at the receiver.)
        case resetMidBody

        /// Close the connection (orderly FIN) without sending anything.
        case closeWithoutResponse

        /// Reset the connection (TCP RST) without sending anything.
        case resetWithoutResponse

        /// Send the header section with the full `Content-Length`, then the body step by step
        /// (each step's bytes, then its pause), then what `afterLast` says: the rest of the
        /// body, or nothing more until the client hangs up (a stalled transfer). A client
        /// that hangs up during a pause is noticed at once and counted in
        /// ``Statistics/connectionsClosedByPeer``.
        ///
        /// ```swift
        /// let released = LoopbackServer.Gate()
        /// let server = try LoopbackServer { _ in
        ///     .data(body).withBehavior(.paced([.init(bytes: 1_000, then: .until(released))], afterLast: .sendRest))
        /// }
        /// ```
        case paced(_ steps: [PacedStep], afterLast: PacedEnding)

        /// Accept a WebSocket opening handshake and play `peer` on the connection (RFC 6455
        /// §4.2.2); made by ``Response/webSocket(_:subprotocol:headers:)``, which says what is
        /// sent. The response goes out as `101 Switching Protocols` whatever its ``Response/status``,
        /// with no body; a request that is not an opening handshake gets `400 Bad Request`
        /// instead. After a `101` the connection never carries HTTP again.
        case webSocket(WebSocketPeer)
    }

    /// Some bytes of a ``Behavior/paced(_:afterLast:)`` body, then a pause.
    public struct PacedStep: Sendable, Equatable {
        /// How many bytes of the body to send (fewer if the body ends first).
        public var bytes: Int
        /// What to wait for before the next step.
        public var pause: Pause

        /// A step of `bytes` bytes followed by `pause`.
        public init(bytes: Int, then pause: Pause = .none) {
            self.bytes = bytes
            self.pause = pause
        }
    }

    /// A pause between the steps of a ``Behavior/paced(_:afterLast:)`` body.
    public enum Pause: Sendable, Equatable {
        /// No pause.
        case none
        /// A pause of this many seconds of real time.
        case seconds(TimeInterval)
        /// A pause until the test opens the gate: for tests that must not depend on how
        /// fast the machine is.
        case until(Gate)
    }

    /// What a ``Behavior/paced(_:afterLast:)`` response does after its last step.
    public enum PacedEnding: Sendable, Equatable {
        /// Send the rest of the body: the response completes.
        case sendRest
        /// Send nothing more and keep the connection open until the client hangs up or the
        /// server shuts down: a transfer that stalls.
        case holdUntilHangUp
    }

    /// A latch a test opens to release a paced response (see ``Pause/until(_:)``).
    ///
    /// Once open it stays open; a response waiting on it goes on within a few milliseconds.
    public final class Gate: Sendable, Equatable {
        private let opened = Atomic(false)

        /// A closed gate.
        public init() {}

        /// Opens the gate.
        public func open() {
            opened.store(true, ordering: .releasing)
        }

        /// Whether the gate has been opened.
        public var isOpen: Bool {
            opened.load(ordering: .acquiring)
        }

        /// Whether both are the same gate.
        public static func == (lhs: Gate, rhs: Gate) -> Bool {
            lhs === rhs
        }
    }
}
