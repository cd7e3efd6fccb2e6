import Dispatch
import Foundation
@_spi(KringleInternals) import KringleCore

/// Plays a ``LoopbackServer/WebSocketPeer`` on a connection whose opening handshake was
/// answered with `101`, on the connection's thread, until the connection ends (RFC 6455
/// §5-§7, the server's side).
///
/// Blocking reads and writes, as in ``Connection``: server shutdown shuts the socket down,
/// which wakes a blocked `recv`, `send` or `poll`, and the pauses look at the shutdown flag
/// every few milliseconds, so no thread outlives ``LoopbackServer/shutdown()``. Everything
/// the client sends is recorded in the server's transcript as it is read.
final class WebSocketPeerConnection {
    /// How the connection ends.
    enum Ending {
        /// The closing handshake is over, or the server failed the connection with a close
        /// frame: the server closes the TCP connection (first, as §7.1.1 asks of a server).
        case closed
        /// The client hung up without the closing handshake.
        case peerGone
        /// The server is shutting down.
        case shutdown
    }

    /// What the next read found.
    private enum Incoming {
        case event(LoopbackServer.WebSocketTranscriptEntry.Event)
        case violation(WebSocketProtocolError)
        /// The deadline passed first.
        case timedOut
        /// The client closed or reset the connection, or the server shut it down.
        case ended
    }

    /// How long a ``LoopbackServer/WebSocketScriptStep/close(_:reason:)`` step waits for the
    /// client's close frame: long enough for any client that answers at all, on a slow
    /// machine.
    static let closeTimeout: TimeInterval = 10

    private let core: ServerCore
    private let descriptor: Int32
    private let connectionID: Int
    private let reader: SocketReader
    private let writer: SocketWriter
    private var parser: WebSocketFrameParser
    private var assembler: WebSocketMessageAssembler
    /// The violation that stopped reading, once there is one.
    private var violation: WebSocketProtocolError?

    /// A peer on the connection `descriptor`, reading through `reader` (which may hold the
    /// client's first frames already) and writing through `writer`. A client's message, like
    /// a request body, may be as long as ``LoopbackServer/Configuration/maximumRequestBodySize``.
    init(core: ServerCore, descriptor: Int32, connectionID: Int, reader: SocketReader, writer: SocketWriter) {
        self.core = core
        self.descriptor = descriptor
        self.connectionID = connectionID
        self.reader = reader
        self.writer = writer
        parser = WebSocketFrameParser(role: .server, maximumPayloadLength: reader.bodyLimit, allowsCompression: false)
        assembler = WebSocketMessageAssembler(maximumMessageLength: reader.bodyLimit)
    }

    /// Plays `peer` until the connection ends.
    func run(_ peer: LoopbackServer.WebSocketPeer) -> Ending {
        do throws(WriteFailure) {
            switch peer {
            case .echo:
                return try echo()
            case .silent:
                return discardEverything()
            case .script(let steps):
                for step in steps {
                    if let ending = try play(step) { return ending }
                }
                return try echo()
            }
        } catch {
            return lost
        }
    }

    /// How a connection that can no longer be read or written ends.
    private var lost: Ending {
        core.isShuttingDown ? .shutdown : .peerGone
    }

    // MARK: - Peers

    /// ``LoopbackServer/WebSocketPeer/echo``: messages back whole, pings answered, a close
    /// answered.
    private func echo() throws(WriteFailure) -> Ending {
        while true {
            switch next() {
            case .event(.message(let message)): try send(message)
            case .event(let control): if let ending = try answer(control) { return ending }
            case .violation(let error): return fail(error)
            case .timedOut: continue
            case .ended: return lost
            }
        }
    }

    /// ``LoopbackServer/WebSocketPeer/silent``: reads (and records) until the client hangs
    /// up or the server shuts down, answering nothing.
    private func discardEverything() -> Ending {
        while true {
            switch next() {
            case .event, .timedOut:
                continue
            case .violation:
                // The parser is done; what comes next is discarded unread.
                while reader.readSome({ _ in }) > 0 {}
                return lost
            case .ended:
                return lost
            }
        }
    }

    /// Plays one step; returns how the connection ends when the step ends it.
    private func play(_ step: LoopbackServer.WebSocketScriptStep) throws(WriteFailure) -> Ending? {
        switch step {
        case .send(let message):
            try send(message)
        case .sendFragments(let message, let sizes):
            try sendFragments(message, sizes: sizes)
        case .sendBytes(let bytes):
            try writer.write(bytes)
            try writer.flush()
        case .ping(let payload):
            try send(WebSocketFrame(opcode: .ping, payload: payload))
        case .close(let code, let reason):
            return try closeAndWait(code, reason: reason)
        case .receive:
            return try receiveOne()
        case .pause(let seconds):
            return wait(seconds: seconds, gate: nil)
        case .pauseUntil(let gate):
            return wait(seconds: .infinity, gate: gate)
        }
        return nil
    }

    /// Answers a control frame as every peer that answers does: a pong for a ping (§5.5.2),
    /// a close frame with the same status code for a close frame (§5.5.1), which ends the
    /// connection. Other events need no answer.
    private func answer(_ event: LoopbackServer.WebSocketTranscriptEntry.Event) throws(WriteFailure) -> Ending? {
        switch event {
        case .ping(let payload):
            try send(WebSocketFrame(opcode: .pong, payload: payload))
            return nil
        case .close(let code, _):
            // The client's handshake is complete whether or not the answer reaches it.
            try? sendClose(code, reason: "")
            return .closed
        case .message, .pong, .protocolViolation:
            return nil
        }
    }

    /// Fails the connection (§7.1.7): a close frame with the violation's status code, then
    /// the TCP close.
    private func fail(_ error: WebSocketProtocolError) -> Ending {
        try? sendClose(error.closeCode, reason: "")
        return .closed
    }

    /// The closing handshake started by the server (§7.1.2): its close frame, then the
    /// client's, awaited for ``closeTimeout`` while everything else is discarded (§5.5.1: no
    /// data follows a close frame, and nothing is answered).
    private func closeAndWait(_ code: WebSocketCloseCode?, reason: String) throws(WriteFailure) -> Ending {
        try sendClose(code, reason: reason)
        let nanoseconds = UInt64(Self.closeTimeout * 1_000_000_000)
        let deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds
        while true {
            switch next(until: deadline) {
            case .event(.close): return .closed
            case .event: continue
            case .violation, .timedOut: return .closed
            case .ended: return core.isShuttingDown ? .shutdown : .closed
            }
        }
    }

    /// ``LoopbackServer/WebSocketScriptStep/receive``: waits for one message, answering
    /// control frames meanwhile.
    private func receiveOne() throws(WriteFailure) -> Ending? {
        while true {
            switch next() {
            case .event(.message): return nil
            case .event(let control): if let ending = try answer(control) { return ending }
            case .violation(let error): return fail(error)
            case .timedOut: continue
            case .ended: return lost
            }
        }
    }

    /// Waits `seconds` of real time, or until `gate` opens, without reading; ends early at
    /// shutdown or when the client resets the connection.
    private func wait(seconds: TimeInterval, gate: LoopbackServer.Gate?) -> Ending? {
        // Clamped so absurd pauses cannot overflow the nanosecond arithmetic.
        let nanoseconds = UInt64(min(max(0, seconds), 1_000_000) * 1_000_000_000)
        let deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds
        while true {
            if core.isShuttingDown { return .shutdown }
            if gate?.isOpen == true { return nil }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline { return nil }
            let slice: UInt64 = gate == nil ? 50 : 5
            let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, slice))
            if Socket.waitForHangUp(descriptor, milliseconds: milliseconds, watchForData: false) == .hungUp {
                return lost
            }
        }
    }

    // MARK: - Reading

    /// The next message or control frame from the client, recorded in the transcript; or a
    /// violation, recorded too, after which reading stops.
    ///
    /// - Parameter deadline: when to give up waiting (`DispatchTime` uptime nanoseconds), or
    ///   `nil` to wait for as long as the connection lasts.
    private func next(until deadline: UInt64? = nil) -> Incoming {
        while true {
            if let violation { return .violation(violation) }
            do throws(WebSocketProtocolError) {
                if let frame = try parser.nextFrame() {
                    guard let assembled = try assembler.consume(frame) else { continue }
                    let event = Self.transcribed(assembled)
                    core.webSocketTranscript.record(event, connectionID: connectionID)
                    return .event(event)
                }
            } catch {
                violation = error
                core.webSocketTranscript.record(.protocolViolation(error), connectionID: connectionID)
                return .violation(error)
            }
            if let deadline, !reader.hasBufferedBytes {
                let now = DispatchTime.now().uptimeNanoseconds
                if now >= deadline { return .timedOut }
                let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, 60_000))
                guard Socket.waitReadable(descriptor, milliseconds: milliseconds) else { continue }
            }
            guard reader.readSome({ parser.append($0) }) > 0 else { return .ended }
        }
    }

    /// What the transcript records of a message or control frame from the client. The server
    /// negotiates no compression, so the parser refuses a compressed frame before it gets here.
    private static func transcribed(_ event: WebSocketEvent) -> LoopbackServer.WebSocketTranscriptEntry.Event {
        switch event {
        case .text(let text): .message(.text(text))
        case .binary(let bytes): .message(.binary(Data(bytes)))
        case .compressed(_, let payload): .message(.binary(Data(payload)))
        case .ping(let payload): .ping(payload)
        case .pong(let payload): .pong(payload)
        case .close(let frame): .close(frame.code, reason: frame.reason)
        }
    }

    // MARK: - Writing

    /// Sends a message as one frame.
    private func send(_ message: WebSocketMessage) throws(WriteFailure) {
        switch message {
        case .text(let text): try send(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
        case .binary(let data): try send(WebSocketFrame(opcode: .binary, payload: Array(data)))
        }
    }

    /// Sends a message as fragments of the given sizes, the rest in one more (§5.4).
    private func sendFragments(_ message: WebSocketMessage, sizes: [Int]) throws(WriteFailure) {
        let payload = Array(message.data)
        var pieces: [ArraySlice<UInt8>] = []
        var offset = 0
        for size in sizes {
            let end = max(0, size) >= payload.count - offset ? payload.count : offset + size
            pieces.append(payload[offset..<end])
            offset = end
        }
        if offset < payload.count || pieces.isEmpty { pieces.append(payload[offset...]) }
        let opcode: WebSocketOpcode = message.text == nil ? .binary : .text
        var bytes: [UInt8] = []
        for (index, piece) in pieces.enumerated() {
            let frame = WebSocketFrame(
                isFinal: index == pieces.count - 1, opcode: index == 0 ? opcode : .continuation, payload: Array(piece))
            WebSocketFrameEncoder.encode(frame, maskingKey: nil, into: &bytes)
        }
        try writer.write(bytes)
        try writer.flush()
    }

    /// Sends a close frame (§5.5.1): the status code, big-endian, then the reason as given;
    /// no payload without a code.
    private func sendClose(_ code: WebSocketCloseCode?, reason: String) throws(WriteFailure) {
        let payload = code.map {
            [UInt8(truncatingIfNeeded: $0.rawValue >> 8), UInt8(truncatingIfNeeded: $0.rawValue)] + Array(reason.utf8)
        }
        try send(WebSocketFrame(opcode: .close, payload: payload ?? []))
    }

    /// Sends one frame, unmasked as a server's must be (§5.1).
    private func send(_ frame: WebSocketFrame) throws(WriteFailure) {
        var bytes: [UInt8] = []
        WebSocketFrameEncoder.encode(frame, maskingKey: nil, into: &bytes)
        try writer.write(bytes)
        try writer.flush()
    }
}
