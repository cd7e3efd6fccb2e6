import Foundation
@_spi(KringleInternals) import KringlePromise
import Synchronization

/// The RFC 6455 protocol of one open connection over a byte link: messages out as masked
/// frames, frames in as messages, automatic pongs, pings on a timer, the closing handshake,
/// and the two buffers that hold a fast side back (§5, §7).
///
/// Callers (``WebSocket``) send and receive from any thread; the link delivers bytes from its
/// own. Shared state sits behind one lock; promises are settled after it is released.
final class WebSocketSession: Sendable {
    let url: URL
    let options: WebSocketOptions
    /// The subprotocol the server picked, if any.
    let subprotocol: String?
    private let clock: any KringleClock
    private let link: any WebSocketByteLink
    private let reader: WebSocketReader
    /// Compresses sent messages when `permessage-deflate` was agreed; made for the first
    /// message long enough to gain from it.
    private let deflater = Mutex<WebSocketDeflater?>(nil)
    private let state = Locked(State())

    /// How the messages end: cleanly after a closing handshake, or with an error.
    enum Ending: Sendable {
        case closed(WebSocketCloseFrame)
        case failed(any Error)
    }

    private struct State: Sendable {
        var inbox: [WebSocketMessage] = []
        var inboxHead = 0
        var inboxBytes = 0
        var receivers: [Promise<WebSocketMessage?>] = []
        var readingPaused = false
        /// Bytes handed to the link and not yet written to the socket.
        var unsentBytes = 0
        var senders: [Promise<Void>] = []
        /// Set when this side sent its close frame; no data frame may follow (§5.5.1).
        var sentClose = false
        var ending: Ending?
        /// The server's close frame, once it came.
        var receivedClose: WebSocketCloseFrame?
        /// Whether the link is gone: nothing more arrives or leaves.
        var linkEnded = false
        var closers: [Promise<Void>] = []
        var pingTimer: ClockTimer?
        var pongTimer: ClockTimer?
        var closeTimer: ClockTimer?
        /// The payload of the ping whose pong is awaited.
        var awaitedPong: [UInt8]?
        var pingsSent: UInt64 = 0
        var pongWaiters: [Promise<Void>] = []
    }

    /// What to do once the lock is released.
    private struct Actions {
        var fulfilled: [(Promise<WebSocketMessage?>, WebSocketMessage?)] = []
        var rejected: [(Promise<WebSocketMessage?>, any Error)] = []
        var released: [Promise<Void>] = []
        var failed: [(Promise<Void>, any Error)] = []
        var resumeReading = false
        var shutdown: Bool?  // flushing?
        var cancelled: [ClockTimer] = []

        func run(for session: WebSocketSession) {
            for timer in cancelled { session.clock.cancel(timer) }
            if let flushing = shutdown { session.link.shutdown(flushing: flushing) }
            if resumeReading { session.link.resumeReading() }
            for (promise, message) in fulfilled {
                promise.fulfill(message)
                // Cancelled after it was chosen, before it settled: the message is not lost.
                if let message, promise.isCancelled { session.putBack(message) }
            }
            for (promise, error) in rejected { promise.reject(error) }
            // Failures first: a close's promise (released) says the sends before it settled.
            for (promise, error) in failed { promise.reject(error) }
            for promise in released { promise.fulfill(()) }
        }
    }

    /// - Throws: ``KringleError/compressionFailed(_:)`` when `permessage-deflate` was agreed
    ///   and zlib cannot inflate.
    init(url: URL, agreement: WebSocketAgreement, upgrade: WebSocketUpgrade, link: any WebSocketByteLink)
        throws(KringleError)
    {
        self.url = url
        options = upgrade.options
        subprotocol = agreement.subprotocol
        isCompressed = agreement.compression != nil
        clock = upgrade.clock
        self.link = link
        reader = try WebSocketReader(
            maximumMessageLength: upgrade.options.maximumMessageLength, compression: agreement.compression)
    }

    /// Whether `permessage-deflate` was agreed.
    let isCompressed: Bool

    /// Starts the ping timer, if the options ask for one.
    func start() {
        schedulePing()
    }

    // MARK: - Sending

    /// Sends `message` as one frame; the promise settles once it is queued within the send
    /// buffer, or waits until the socket has taken enough.
    func send(_ message: WebSocketMessage) -> Promise<Void> {
        switch message {
        case .text(let text): sendFrame(.text, Array(text.utf8))
        case .binary(let data): sendFrame(.binary, Array(data))
        }
    }

    /// Sends a ping; the promise settles when its pong arrives (§5.5.2, §5.5.3).
    func ping() -> Promise<Void> {
        let pong = Promise<Void>.pending()
        var actions = Actions()
        state.withLock { state in
            guard let error = unavailable(state) else {
                state.pongWaiters.append(pong)
                if state.awaitedPong == nil { sendPing(&state, &actions) }
                return
            }
            actions.failed.append((pong, error))
        }
        actions.run(for: self)
        return pong
    }

    /// Starts the closing handshake (§7.1.2): sends a close frame and lets the server answer
    /// within ``WebSocketOptions/closeTimeout``; the promise settles when the connection is
    /// closed. Messages already received are still delivered; the messages then end. `code`
    /// and `reason` are valid (``WebSocket/close(code:reason:)`` checked them).
    func close(code: WebSocketCloseCode, reason: String) -> Promise<Void> {
        let closed = Promise<Void>.pending()
        var actions = Actions()
        state.withLock { state in
            guard !state.linkEnded else {
                actions.released.append(closed)
                return
            }
            state.closers.append(closed)
            // The server's close frame must be read, whatever waits unread before it.
            if state.readingPaused {
                state.readingPaused = false
                actions.resumeReading = true
            }
            armCloseTimer(&state)
            guard !state.sentClose else { return }
            sendClose(WebSocketCloseFrame(code: code, reason: reason), &state)
            // The user asked for the end: it is a clean one, whatever the server does now.
            end(.closed(WebSocketCloseFrame(code: code, reason: reason)), &state, &actions)
        }
        actions.run(for: self)
        return closed
    }

    /// The last reference to the connection is gone: it closes with 1001 (Going Away,
    /// RFC 6455 §7.4.1) without waiting for the server.
    func abandon() {
        var actions = Actions()
        state.withLock { state in
            guard !state.linkEnded else { return }
            let frame = WebSocketCloseFrame(code: .goingAway, reason: "")
            if !state.sentClose { sendClose(frame, &state) }
            end(.closed(frame), &state, &actions)
            shutDownAfterFlushing(&state, &actions)
        }
        actions.run(for: self)
    }

    private func sendFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> Promise<Void> {
        let frame: WebSocketFrame
        do {
            frame = try compressed(WebSocketFrame(opcode: opcode, payload: payload))
        } catch {
            return Promise(error: error)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frame.payload.count + 14)
        WebSocketFrameEncoder.encode(frame, maskingKey: WebSocketFrameEncoder.randomMaskingKey(), into: &bytes)
        let queued = Promise<Void>.pending()
        var actions = Actions()
        state.withLock { state in
            if let error = unavailable(state) {
                actions.failed.append((queued, error))
                return
            }
            state.unsentBytes += bytes.count
            link.write(bytes)
            if state.unsentBytes <= options.sendBufferBytes {
                actions.released.append(queued)
            } else {
                state.senders.append(queued)
            }
        }
        actions.run(for: self)
        return queued
    }

    /// `frame` compressed (RFC 7692 §7.2.1) when `permessage-deflate` was agreed and its
    /// message is long enough to gain; as it is otherwise.
    private func compressed(_ frame: WebSocketFrame) throws(KringleError) -> WebSocketFrame {
        guard isCompressed, frame.payload.count >= WebSocketCompression.smallestCompressed else { return frame }
        let payload = try deflater.withLock { deflater throws(KringleError) -> [UInt8] in
            if let deflater { return try deflater.compress(frame.payload) }
            let made = try WebSocketDeflater()
            deflater = made
            return try made.compress(frame.payload)
        }
        return WebSocketFrame(isFinal: true, isCompressed: true, opcode: frame.opcode, payload: payload)
    }

    /// Why nothing can be sent now, or `nil` when it can.
    private func unavailable(_ state: State) -> (any Error)? {
        guard state.sentClose || state.linkEnded else { return nil }
        return endingError(state)
    }

    /// What a send meets once the connection is closing or closed.
    private func endingError(_ state: State) -> any Error {
        switch state.ending {
        case .failed(let error)?:
            return error
        case .closed(let frame)?:
            return KringleError.webSocketClosed(url, frame.code ?? .noStatusReceived, reason: frame.reason)
        case nil:
            return KringleError.webSocketClosed(url, .abnormalClosure, reason: "")
        }
    }

    private func writeControl(_ opcode: WebSocketOpcode, _ payload: [UInt8], _ state: inout State) {
        var bytes: [UInt8] = []
        WebSocketFrameEncoder.encode(
            WebSocketFrame(opcode: opcode, payload: payload), maskingKey: WebSocketFrameEncoder.randomMaskingKey(),
            into: &bytes)
        state.unsentBytes += bytes.count
        link.write(bytes)
    }

    private func sendClose(_ frame: WebSocketCloseFrame, _ state: inout State) {
        state.sentClose = true
        writeControl(.close, frame.payload(), &state)
    }

    /// Closes the socket once what is queued has gone, within ``WebSocketOptions/closeTimeout``
    /// (a server that stopped reading would otherwise hold it forever).
    private func shutDownAfterFlushing(_ state: inout State, _ actions: inout Actions) {
        if actions.shutdown == nil { actions.shutdown = true }
        armCloseTimer(&state)
    }

    private func armCloseTimer(_ state: inout State) {
        guard state.closeTimer == nil, !state.linkEnded else { return }
        state.closeTimer = clock.schedule(after: options.closeTimeout) { [weak self] in
            self?.closeTimedOut()
        }
    }

    private func sendPing(_ state: inout State, _ actions: inout Actions) {
        state.pingsSent += 1
        let payload = withUnsafeBytes(of: state.pingsSent.bigEndian, Array.init)
        state.awaitedPong = payload
        writeControl(.ping, payload, &state)
        if let timer = state.pongTimer { actions.cancelled.append(timer) }
        state.pongTimer = clock.schedule(after: options.pongTimeout) { [weak self] in
            self?.pongTimedOut(payload)
        }
    }

    // MARK: - Receiving

    /// The next message, `nil` once the messages ended cleanly, or the error that ended them.
    func receive() -> Promise<WebSocketMessage?> {
        let next = Promise<WebSocketMessage?>.pending()
        var actions = Actions()
        state.withLock { state in
            if state.inboxHead < state.inbox.count {
                actions.fulfilled.append((next, take(&state, &actions)))
            } else if let ending = state.ending {
                switch ending {
                case .closed: actions.fulfilled.append((next, nil))
                case .failed(let error): actions.rejected.append((next, error))
                }
            } else {
                state.receivers.append(next)
            }
        }
        actions.run(for: self)
        // A cancelled wait leaves at once, rather than when the next message comes.
        next.onCancel { [weak self] in
            self?.state.withLock { $0.receivers.removeAll { $0 === next } }
        }
        return next
    }

    /// Puts back a message whose receiver was cancelled as it was handed over: the next
    /// receiver gets it first.
    private func putBack(_ message: WebSocketMessage) {
        var actions = Actions()
        state.withLock { state in
            if let receiver = state.receivers.first {
                state.receivers.removeFirst()
                actions.fulfilled.append((receiver, message))
                return
            }
            if state.inboxHead > 0 {
                state.inboxHead -= 1
                state.inbox[state.inboxHead] = message
            } else {
                state.inbox.insert(message, at: 0)
            }
            state.inboxBytes += Self.length(of: message)
        }
        actions.run(for: self)
    }

    /// The oldest buffered message, taken out; asks the link to read again once the buffer has
    /// room.
    private func take(_ state: inout State, _ actions: inout Actions) -> WebSocketMessage {
        let message = state.inbox[state.inboxHead]
        state.inboxHead += 1
        state.inboxBytes -= Self.length(of: message)
        if state.inboxHead == state.inbox.count {
            state.inbox.removeAll(keepingCapacity: true)
            state.inboxHead = 0
        }
        if state.readingPaused, state.inboxBytes < options.receiveBufferBytes {
            state.readingPaused = false
            actions.resumeReading = true
        }
        return message
    }

    private static func length(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }

    // MARK: - The link's side

    /// Takes bytes from the socket; `false` asks the link to pause reading until
    /// ``WebSocketByteLink/resumeReading()``.
    func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let events: [WebSocketEvent]
        var violation: WebSocketProtocolError?
        do {
            events = try reader.read(bytes)
        } catch {
            events = []
            violation = error
        }
        var actions = Actions()
        let keepReading = state.withLock { state -> Bool in
            for event in events { handle(event, &state, &actions) }
            if let violation {
                // §7.1.7: fail the connection, telling the server why in a close frame.
                if !state.sentClose { sendClose(WebSocketCloseFrame(code: violation.closeCode, reason: ""), &state) }
                end(.failed(KringleError.webSocketProtocolViolation(url, violation)), &state, &actions)
                shutDownAfterFlushing(&state, &actions)
            }
            guard state.ending == nil else {
                // After this side's close frame, only the server's matters: read on for it.
                return !state.linkEnded && actions.shutdown == nil && state.receivedClose == nil
            }
            state.readingPaused = state.inboxBytes >= options.receiveBufferBytes
            return !state.readingPaused
        }
        actions.run(for: self)
        return keepReading
    }

    private func handle(_ event: WebSocketEvent, _ state: inout State, _ actions: inout Actions) {
        switch event {
        case .text(let text): deliver(.text(text), &state, &actions)
        case .binary(let bytes): deliver(.binary(Data(bytes)), &state, &actions)
        case .compressed:
            // Not reachable: compression is never negotiated without an inflater.
            break
        case .ping(let payload):
            // §5.5.2: answer with a pong of the same payload, unless this side is closing, or
            // its sends are backed up (a server that pings without reading would fill memory
            // with pongs; §5.5.3 lets an endpoint answer only the latest ping).
            if !state.sentClose, state.unsentBytes <= options.sendBufferBytes { writeControl(.pong, payload, &state) }
        case .pong(let payload):
            // §5.5.3: an unsolicited pong is allowed and ignored.
            guard payload == state.awaitedPong else { return }
            state.awaitedPong = nil
            if let timer = state.pongTimer {
                actions.cancelled.append(timer)
                state.pongTimer = nil
            }
            actions.released += state.pongWaiters
            state.pongWaiters.removeAll()
        case .close(let frame):
            state.receivedClose = frame
            // §5.5.1: echo the status code, unless this side's close frame is on its way; then
            // close TCP once that frame has gone (§7.1.1: the server may close first, but
            // there is no reason to wait for it).
            if !state.sentClose { sendClose(WebSocketCloseFrame(code: frame.code, reason: ""), &state) }
            shutDownAfterFlushing(&state, &actions)
            end(.closed(frame), &state, &actions)
        }
    }

    private func deliver(_ message: WebSocketMessage, _ state: inout State, _ actions: inout Actions) {
        // Data after this side's close frame is still the server's to send (§7.1.2); after the
        // messages ended it has nowhere to go.
        guard state.ending == nil else { return }
        while !state.receivers.isEmpty {
            let receiver = state.receivers.removeFirst()
            // A receiver that was cancelled has left; the message waits for the next one.
            guard receiver.isPending else { continue }
            actions.fulfilled.append((receiver, message))
            return
        }
        state.inbox.append(message)
        state.inboxBytes += Self.length(of: message)
    }

    /// Bytes the link wrote to the socket: senders waiting for room may go on.
    func wrote(_ count: Int) {
        var actions = Actions()
        state.withLock { state in
            state.unsentBytes -= count
            guard state.unsentBytes <= options.sendBufferBytes else { return }
            actions.released = state.senders
            state.senders.removeAll()
        }
        actions.run(for: self)
    }

    /// The socket is gone, after `error` or once closed; nothing more arrives or leaves.
    func linkEnded(_ error: (any Error)?) {
        var actions = Actions()
        state.withLock { state in
            state.linkEnded = true
            // Without a close frame, the connection closed abnormally (§7.1.5: 1006).
            end(.failed(error ?? KringleError.webSocketClosed(url, .abnormalClosure, reason: "")), &state, &actions)
            let gone = endingError(state)
            actions.failed += state.senders.map { ($0, gone) }
            actions.failed += state.pongWaiters.map { ($0, gone) }
            state.senders.removeAll()
            state.pongWaiters.removeAll()
            actions.released += state.closers
            state.closers.removeAll()
            for timer in [state.pingTimer, state.pongTimer, state.closeTimer].compactMap({ $0 }) {
                actions.cancelled.append(timer)
            }
            state.pingTimer = nil
            state.pongTimer = nil
            state.closeTimer = nil
        }
        actions.run(for: self)
    }

    /// Ends the messages (the first ending wins): waiting receivers get it once the buffered
    /// messages are gone, which they are for every waiting receiver.
    private func end(_ ending: Ending, _ state: inout State, _ actions: inout Actions) {
        guard state.ending == nil else { return }
        state.ending = ending
        for receiver in state.receivers {
            switch ending {
            case .closed: actions.fulfilled.append((receiver, nil))
            case .failed(let error): actions.rejected.append((receiver, error))
            }
        }
        state.receivers.removeAll()
    }

    // MARK: - Timers

    private func schedulePing() {
        guard let interval = options.pingInterval else { return }
        state.withLock { state in
            guard !state.linkEnded, !state.sentClose else { return }
            state.pingTimer = clock.schedule(after: interval) { [weak self] in
                self?.pingDue()
            }
        }
    }

    private func pingDue() {
        var actions = Actions()
        state.withLock { state in
            state.pingTimer = nil
            guard !state.linkEnded, !state.sentClose, state.awaitedPong == nil else { return }
            sendPing(&state, &actions)
        }
        actions.run(for: self)
        schedulePing()
    }

    /// No pong came for the ping with `payload`: the server (or the path to it) is gone.
    private func pongTimedOut(_ payload: [UInt8]) {
        var actions = Actions()
        state.withLock { state in
            guard state.awaitedPong == payload, !state.linkEnded else { return }
            state.pongTimer = nil
            // A reader that fell behind holds the pong in the socket: not the server's fault.
            if state.readingPaused {
                state.pongTimer = clock.schedule(after: options.pongTimeout) { [weak self] in
                    self?.pongTimedOut(payload)
                }
                return
            }
            end(.failed(KringleError.webSocketUnresponsive(url, silence: options.pongTimeout)), &state, &actions)
            actions.shutdown = false
        }
        actions.run(for: self)
    }

    private func closeTimedOut() {
        var actions = Actions()
        state.withLock { state in
            state.closeTimer = nil
            guard !state.linkEnded else { return }
            actions.shutdown = false
        }
        actions.run(for: self)
    }

    /// How many bytes of received messages wait for the reader.
    var bufferedBytes: Int {
        state.withLock { $0.inboxBytes }
    }

    /// The close frame the server sent, once it has; `nil` before.
    var closeFrame: WebSocketCloseFrame? {
        state.withLock { $0.receivedClose }
    }
}
