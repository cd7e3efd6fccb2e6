import Dispatch
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Serves the requests of one accepted connection, one after another, on its own thread.
///
/// Blocking calls keep the flow readable: read a request, call the handler, wait out any
/// delay, write the response, repeat while the connection persists (RFC 9112 §9.3); after a
/// `101` to a WebSocket handshake, play the WebSocket peer instead until the end. Every
/// exit path ends in ``finish(_:)``, which closes the socket exactly once.
final class Connection {
    /// The largest header section accepted; larger ones are answered with 431.
    private static let headLimit = 64 * 1024

    /// How the connection ends.
    private enum Ending {
        /// The peer closed between requests: the normal end of a keep-alive connection.
        case idle
        /// The peer closed or reset while a request or response was outstanding.
        case peerGone
        /// We close after a complete exchange, letting the peer read everything first.
        case graceful
        /// We close at once with an orderly FIN (server shutdown, closing behaviors).
        case abrupt
        /// We close with a TCP reset.
        case reset
    }

    /// What happened while a delayed response waited.
    private enum DelayOutcome {
        case elapsed, peerGone, shutdown
    }

    private let core: ServerCore
    private let descriptor: Int32
    private let id: Int
    private let reader: SocketReader
    private let writer: SocketWriter
    private var dateCache = DateHeaderCache()
    /// Whether this connection is over the server's connection limit, to be answered 503.
    private let refusing: Bool

    /// Creates the connection; ``run()`` does the work.
    ///
    /// - Parameter refusing: answer the first request with 503 and close, instead of serving.
    init(core: ServerCore, descriptor: Int32, id: Int, refusing: Bool = false) {
        self.core = core
        self.descriptor = descriptor
        self.id = id
        self.refusing = refusing
        reader = SocketReader(descriptor: descriptor)
        reader.bodyLimit = core.configuration.maximumRequestBodySize.map { max(0, $0) } ?? .max
        writer = SocketWriter(descriptor: descriptor)
    }

    /// Serves requests until either side ends the connection, then closes it.
    func run() {
        if refusing {
            finish(refuse())
            return
        }
        var ending: Ending?
        while ending == nil {
            ending = serveOneRequest()
        }
        finish(ending ?? .abrupt)
    }

    /// Answers a connection over ``LoopbackServer/Configuration/maximumConnections`` with
    /// 503 once its request head has arrived (RFC 9110 §15.6.4), so that the client reads an
    /// answer rather than a reset, then closes it.
    private func refuse() -> Ending {
        do throws(ReadFailure) {
            guard try reader.readHead(limit: Self.headLimit) != nil else { return .idle }
        } catch {
            // A client that went away or timed out is not counted as having given up on a
            // request; a malformed head is refused all the same.
            if case .connectionLost = error { return .abrupt }
        }
        let refusal = RequestRejection(
            status: 503,
            reason: "the server already serves its maximum of \(core.configuration.maximumConnections ?? 0) connections"
        )
        do throws(WriteFailure) {
            try writer.write(ResponseSerializer.rejection(refusal, date: currentDate()))
            try writer.flush()
        } catch {
            return .abrupt
        }
        return .graceful
    }

    /// Reads one request, answers it, and says how the connection ends, or `nil` to go on.
    private func serveOneRequest() -> Ending? {
        let head: RequestHead
        let body: Data
        do throws(ReadFailure) {
            guard let lines = try reader.readHead(limit: Self.headLimit) else { return .idle }
            head = try Self.checked { () throws(RequestRejection) in try RequestHeadParser.parse(lines: lines) }
            let framing = try Self.checked { () throws(RequestRejection) in try head.bodyFraming() }
            let expectsContinue = try Self.checked { () throws(RequestRejection) in try head.expectsContinue() }
            // RFC 9110 §15.5.14: a body over the limit is refused before any of it is read
            // (and before a 100 Continue invites it); chunked bodies are checked as they arrive.
            if case .length(let count) = framing, count > reader.bodyLimit {
                throw .rejected(.contentTooLarge(limit: reader.bodyLimit))
            }
            // RFC 9110 §10.1.1: the client waits for 100 before sending the content. The
            // server MAY skip it once content has arrived, which also avoids a stray interim
            // response when the client did not wait.
            if expectsContinue && framing != .none && !reader.hasBufferedBytes {
                do throws(WriteFailure) {
                    try writer.write(ResponseSerializer.continueResponse)
                    try writer.flush()
                } catch {
                    return .peerGone
                }
            }
            body = try readBody(framing)
        } catch {
            switch error {
            case .connectionLost: return .peerGone
            case .rejected(let rejection): return reject(rejection)
            }
        }

        if core.isShuttingDown { return .abrupt }
        core.record(.requestsReceived)
        let request = LoopbackServer.Request(
            method: head.method,
            target: head.target,
            headers: head.headers,
            body: body,
            httpVersion: head.version,
            connectionID: id
        )
        let response = Self.validated(core.handler(request))

        if response.delay > 0 {
            switch waitOut(.seconds(response.delay)) {
            case .elapsed: break
            case .peerGone: return .peerGone
            case .shutdown: return .abrupt
            }
        }
        return send(response, to: head)
    }

    private func readBody(_ framing: RequestBodyFraming) throws(ReadFailure) -> Data {
        switch framing {
        case .none:
            return Data()
        case .length(let count):
            var body = Data()
            try reader.readBody(count: count, into: &body)
            return body
        case .chunked:
            return try reader.readChunkedBody()
        }
    }

    /// Writes `response`; returns how the connection ends, or `nil` to keep it open.
    private func send(_ response: LoopbackServer.Response, to head: RequestHead) -> Ending? {
        switch response.behavior {
        case .closeWithoutResponse: return .abrupt
        case .resetWithoutResponse: return .reset
        case .webSocket(let peer): return openWebSocket(peer, response, head)
        case .normal, .chunked, .closeMidBody, .resetMidBody, .paced: break
        }
        let plan = ResponseSerializer.plan(
            for: response,
            method: head.method,
            minorVersion: head.minorVersion,
            clientKeepsAlive: head.wantsPersistentConnection,
            date: currentDate()
        )
        do throws(WriteFailure) {
            try writer.write(plan.head)
            if response.behavior == .closeMidBody || response.behavior == .resetMidBody {
                if plan.sendsBody { try writer.write(response.body.prefix(response.body.count / 2)) }
                try writer.flush()
                return response.behavior == .closeMidBody ? .abrupt : .reset
            }
            if case .paced(let steps, let ending) = response.behavior, plan.sendsBody {
                if let early = try sendPaced(response.body, steps, ending) { return early }
                core.record(.responsesCompleted)
                return plan.closesConnection ? .graceful : nil
            }
            if plan.sendsBody {
                if case .chunked(let chunkSize) = response.behavior, plan.chunked {
                    try ResponseSerializer.writeChunked(
                        response.body, chunkSize: chunkSize, trailers: response.trailers, to: writer)
                } else {
                    try writer.write(response.body)
                }
            }
            try writer.flush()
        } catch {
            return .peerGone
        }
        core.record(.responsesCompleted)
        return plan.closesConnection ? .graceful : nil
    }

    /// Answers a WebSocket opening handshake with `101 Switching Protocols` and hands the
    /// connection to the peer, whose end is the connection's (RFC 6455 §4.2.2); or answers
    /// `400 Bad Request` and closes when the request is not a handshake (§4.2.1), with
    /// `Sec-WebSocket-Version: 13` when only the version was wrong (§4.4).
    private func openWebSocket(
        _ peer: LoopbackServer.WebSocketPeer,
        _ response: LoopbackServer.Response,
        _ head: RequestHead
    ) -> Ending {
        let accept: String
        do throws(RequestRejection) {
            accept = try head.webSocketAccept()
        } catch {
            var refusal = LoopbackServer.Response.text("400 Bad Request: \(error.reason)\n", status: 400)
                .addingHeader("Connection", "close")
            if error == RequestHead.unsupportedVersion { refusal = refusal.addingHeader("Sec-WebSocket-Version", "13") }
            return send(refusal, to: head) ?? .graceful
        }
        var switching = response
        switching.status = 101
        if switching.header("Sec-WebSocket-Accept") == nil {
            switching.headers.append(("Sec-WebSocket-Accept", accept))
        }
        // A 1xx response has no content (RFC 9112 §6.3 rule 1), so the plan adds no framing.
        let plan = ResponseSerializer.plan(
            for: switching, method: head.method, minorVersion: head.minorVersion, clientKeepsAlive: true,
            date: currentDate())
        do throws(WriteFailure) {
            try writer.write(plan.head)
            try writer.flush()
        } catch {
            return .peerGone
        }
        core.record(.responsesCompleted)
        let connection = WebSocketPeerConnection(
            core: core, descriptor: descriptor, connectionID: id, reader: reader, writer: writer)
        switch connection.run(peer) {
        case .closed: return .graceful
        case .peerGone: return .peerGone
        case .shutdown: return .abrupt
        }
    }

    /// Answers a request the server refuses, then closes: after a framing error the next
    /// request cannot be found reliably (RFC 9112 §6.3 rules 4 and 5).
    private func reject(_ rejection: RequestRejection) -> Ending {
        core.record(.requestsRejected)
        do throws(WriteFailure) {
            try writer.write(ResponseSerializer.rejection(rejection, date: currentDate()))
            try writer.flush()
        } catch {
            return .abrupt  // a client sending garbage and vanishing has not "given up" on anything
        }
        return .graceful
    }

    /// Sends a paced body after its head: each step's bytes, then its pause, then the rest
    /// or nothing. Returns how the connection ends when it ends early (the peer left, the
    /// server shut down, or the response stalls on purpose), `nil` when the body is complete.
    private func sendPaced(
        _ body: Data,
        _ steps: [LoopbackServer.PacedStep],
        _ ending: LoopbackServer.PacedEnding
    ) throws(WriteFailure) -> Ending? {
        var offset = body.startIndex
        for step in steps {
            let end = min(body.endIndex, offset + max(0, step.bytes))
            try writer.write(body[offset..<end])
            try writer.flush()
            offset = end
            switch waitOut(step.pause) {
            case .elapsed: continue
            case .peerGone: return .peerGone
            case .shutdown: return .abrupt
            }
        }
        switch ending {
        case .sendRest:
            try writer.write(body[offset...])
            try writer.flush()
            return nil
        case .holdUntilHangUp:
            return waitOut(.seconds(.infinity)) == .peerGone ? .peerGone : .abrupt
        }
    }

    /// Waits out a pause (before a response, or between the steps of a paced body),
    /// watching for the peer giving up and for server shutdown (which shuts the socket down
    /// and so wakes `poll`).
    private func waitOut(_ pause: LoopbackServer.Pause) -> DelayOutcome {
        let gate: LoopbackServer.Gate?
        let delay: TimeInterval
        switch pause {
        case .none: return .elapsed
        case .seconds(let seconds): (gate, delay) = (nil, seconds)
        case .until(let waitedFor): (gate, delay) = (waitedFor, .infinity)
        }
        // Clamped so absurd delays cannot overflow the nanosecond arithmetic.
        let nanoseconds = UInt64(min(max(0, delay), 1_000_000) * 1_000_000_000)
        let deadline = DispatchTime.now().uptimeNanoseconds + nanoseconds
        var watchForData = true
        while true {
            if core.isShuttingDown { return .shutdown }
            if gate?.isOpen == true { return .elapsed }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= deadline { return .elapsed }
            // Once a pipelined request is queued, readability no longer signals a hang-up,
            // so only errors are watched and the wait is sliced to stay responsive; a gate
            // is looked at every few milliseconds.
            let sliceMilliseconds: UInt64 = gate != nil ? 5 : watchForData ? 60_000 : 50
            let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, sliceMilliseconds))
            switch Socket.waitForHangUp(descriptor, milliseconds: milliseconds, watchForData: watchForData) {
            case .quiet: continue
            case .dataPending: watchForData = false
            case .hungUp: return core.isShuttingDown ? .shutdown : .peerGone
            }
        }
    }

    /// Closes the socket the way `ending` calls for and updates the counters.
    private func finish(_ ending: Ending) {
        switch ending {
        case .idle:
            break
        case .peerGone:
            if !core.isShuttingDown { core.record(.connectionsClosedByPeer) }
        case .graceful:
            lingeringClose()
        case .abrupt:
            Socket.shutdownWrite(descriptor)
        case .reset:
            Socket.setResetOnClose(descriptor)
        }
        core.connectionDidClose(id: id, descriptor: descriptor, refused: refusing)
    }

    /// RFC 9112 §9.6: close the sending side first, then read and discard what the client
    /// still sends for a moment, so that closing with unread data does not turn into a reset
    /// that destroys the response before the client has read it.
    private func lingeringClose() {
        Socket.shutdownWrite(descriptor)
        let deadline = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        var discarded = 0
        var scratch = [UInt8](repeating: 0, count: 16_384)
        while discarded < 4 << 20, !core.isShuttingDown {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline,
                Socket.waitReadable(descriptor, milliseconds: Int32((deadline - now) / 1_000_000 + 1))
            else { return }
            let count = scratch.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return Socket.receive(descriptor, into: base, count: raw.count)
            }
            if count <= 0 { return }
            discarded += count
        }
    }

    private func currentDate() -> String {
        dateCache.value(secondsSince1970: Int(time(nil)))
    }

    /// A handler's response, or a 500 explaining why it cannot be sent as is: RFC 9112 §4
    /// requires a three-digit status code, and 1xx codes are interim responses that cannot
    /// end an exchange (RFC 9110 §15.2), except the `101` that switches to WebSocket
    /// (§15.2.2), which ends HTTP on the connection.
    private static func validated(_ response: LoopbackServer.Response) -> LoopbackServer.Response {
        if (200...999).contains(response.status) { return response }
        if case .webSocket = response.behavior { return response }
        return .text(
            "LoopbackServer: the handler returned status \(response.status), which cannot be a final response\n",
            status: 500
        )
    }

    /// Runs a parsing step, turning its rejection into a ``ReadFailure``.
    private static func checked<T>(_ step: () throws(RequestRejection) -> T) throws(ReadFailure) -> T {
        do throws(RequestRejection) {
            return try step()
        } catch {
            throw .rejected(error)
        }
    }
}
