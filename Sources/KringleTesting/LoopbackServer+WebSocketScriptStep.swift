import Foundation

extension LoopbackServer {
    /// One step of a scripted WebSocket peer (``WebSocketPeer/script(_:)``).
    ///
    /// Frames are sent as the step says, even ones a client must refuse, so that a test can
    /// check how a client fails a connection (RFC 6455 §7.1.7):
    ///
    /// ```swift
    /// let server = try LoopbackServer { _ in
    ///     .webSocket(.script([
    ///         .send(.text("hello")),
    ///         .sendFragments(.binary(Data(count: 10)), sizes: [4, 4]),  // 4, 4, then 2 bytes
    ///         .receive,
    ///         .sendBytes([0x83, 0x00]),  // reserved opcode 0x3: the client must fail with 1002
    ///     ]))
    /// }
    /// ```
    public enum WebSocketScriptStep: Sendable, Equatable {
        /// Sends the message as one unmasked frame, final, with the text or binary opcode
        /// (§5.6).
        case send(WebSocketMessage)

        /// Sends the message as several frames (§5.4): the first with the message's opcode,
        /// the others continuation frames, the last with FIN. Each size is one fragment's
        /// byte count, in order; the bytes the sizes leave over go in one more fragment, and a
        /// size past the message's end gives an empty fragment. Text is cut at byte
        /// boundaries, even inside a character, as the protocol allows.
        case sendFragments(WebSocketMessage, sizes: [Int])

        /// Writes the bytes exactly as given: hand-made frames for testing a client's
        /// checks (a masked frame, a reserved opcode or bit, text that is not UTF-8, a huge
        /// declared length), or a frame cut short.
        case sendBytes([UInt8])

        /// Sends a ping with this payload (§5.5.2); the client's pong shows in the
        /// transcript. The payload is sent as given, even over the 125 bytes a control frame
        /// may carry (§5.5).
        case ping([UInt8])

        /// Starts the closing handshake (§7.1.2): a close frame with the status code and
        /// reason (`nil` for a close frame without a payload, whose reason is then not sent;
        /// a reason is sent as given, even past the 123 bytes a close frame has room for,
        /// §5.5), then waits up to ten seconds for the client's close frame, discarding
        /// anything else, then closes the TCP connection. The script ends here.
        case close(WebSocketCloseCode?, reason: String)

        /// Waits for the client's next text or binary message, answering pings meanwhile.
        /// The message is recorded in the transcript and otherwise ignored. A close frame
        /// from the client is answered as ``WebSocketPeer/echo`` answers it, and ends the
        /// script.
        case receive

        /// Waits this many seconds of real time, reading nothing (the client's frames wait in
        /// the socket). Server shutdown ends the wait.
        case pause(TimeInterval)

        /// Waits until the test opens the gate, reading nothing: a pause that does not
        /// depend on how fast the machine is. Server shutdown ends the wait.
        case pauseUntil(Gate)
    }
}
