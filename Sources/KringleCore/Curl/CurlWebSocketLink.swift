import CCurlShim
import Foundation
@_spi(KringleInternals) import KringlePromise

/// A WebSocket's connection on curl: a CONNECT_ONLY handle that curl connected (TCP or a Unix
/// socket, a proxy's CONNECT tunnel, TLS with the transport's trust), whose bytes the driving
/// thread moves with `curl_easy_send` and `curl_easy_recv` when its poll says the socket is
/// ready: no thread of its own.
///
/// It first carries the opening handshake (``WebSocketOpening``), then a
/// ``WebSocketSession``'s frames. Other threads only queue bytes, ask for reading to resume
/// or for the end, under the lock, and wake the driving thread; everything else runs there.
final class CurlWebSocketLink: WebSocketByteLink, @unchecked Sendable {
    // Unchecked: `transfer`, `opening`, `current`, `currentOffset`, `isReading` and `ended`
    // belong to the driving thread (the engine's ``ThreadConfinement``); `requests` is guarded
    // by its lock; the rest is immutable.
    let id: UInt64
    let transfer: CurlTransfer
    let socket: Int32
    private weak var engine: CurlEngine?
    private var opening: WebSocketOpening?
    private var session: WebSocketSession?
    /// The chunk being written: curl (OpenSSL under it) must be given the same bytes at the
    /// same address again after `CURLE_AGAIN`, so it is not touched until it has gone.
    private var current: [UInt8] = []
    private var currentOffset = 0
    private var isReading = true
    private(set) var ended = false
    private let requests = Locked(Requests())

    /// What other threads ask of the driving thread.
    private struct Requests: Sendable {
        var queued: [[UInt8]] = []
        var queuedBytes = 0
        var resume = false
        var shutdown: Bool?
    }

    init(id: UInt64, transfer: CurlTransfer, socket: Int32, engine: CurlEngine, opening: WebSocketOpening) {
        self.id = id
        self.transfer = transfer
        self.socket = socket
        self.engine = engine
        self.opening = opening
        current = opening.requestHead
    }

    // MARK: - Any thread

    func write(_ bytes: [UInt8]) {
        requests.withLock { requests in
            requests.queued.append(bytes)
            requests.queuedBytes += bytes.count
        }
        engine?.wake(webSocket: id)
    }

    func resumeReading() {
        requests.withLock { $0.resume = true }
        engine?.wake(webSocket: id)
    }

    func shutdown(flushing: Bool) {
        requests.withLock { requests in
            // An abrupt end overrides a graceful one asked for before.
            requests.shutdown = flushing && requests.shutdown != false
        }
        engine?.wake(webSocket: id)
    }

    // MARK: - The driving thread

    /// What the poll should wait for on this socket: reading unless paused, writing while
    /// bytes wait.
    var pollEvents: Int32 {
        var events: Int32 = 0
        if isReading { events |= Int32(KCURL_WATCH_IN) }
        if currentOffset < current.count || requests.withLock({ !$0.queued.isEmpty }) {
            events |= Int32(KCURL_WATCH_OUT)
        }
        return events
    }

    /// Moves what can move: the requests of other threads, the bytes waiting to go, and the
    /// bytes waiting to be read, until the socket has no more or the link's turn is up.
    /// Reading is tried on every call (not only when the poll said so), since TLS may hold
    /// decrypted bytes the socket no longer shows.
    ///
    /// - Returns: `true` when the turn ended with bytes still to read, so that the link needs
    ///   another turn without waiting for the socket (which, edge-triggered, will not say so
    ///   again).
    @discardableResult
    func service(scratch: UnsafeMutableRawBufferPointer) -> Bool {
        guard !ended else { return false }
        let asked = requests.withLock { requests -> (resume: Bool, shutdown: Bool?) in
            defer { requests.resume = false }
            return (requests.resume, requests.shutdown)
        }
        if asked.resume { isReading = true }
        if asked.shutdown == false {
            end(nil)
            return false
        }
        flush()
        guard !ended else { return false }
        if asked.shutdown == true, currentOffset == current.count {
            end(nil)
            return false
        }
        return isReading && read(into: scratch)
    }

    /// Writes queued bytes until the socket is full.
    private func flush() {
        while !ended {
            if currentOffset == current.count {
                guard takeQueued() else { return }
            }
            var sent = 0
            let code = current.withUnsafeBytes { bytes in
                kcurl_easy_send(
                    transfer.easy.pointer, bytes.baseAddress! + currentOffset, bytes.count - currentOffset, &sent)
            }
            if code == KCURLE_AGAIN { return }
            guard code == 0 else {
                end(failure(code))
                return
            }
            currentOffset += sent
            if opening == nil { session?.wrote(sent) }
        }
    }

    /// Makes the queued chunks the current one, joined into one write; `false` when none wait.
    private func takeQueued() -> Bool {
        let queued = requests.withLock { requests -> [[UInt8]] in
            defer {
                requests.queued.removeAll(keepingCapacity: true)
                requests.queuedBytes = 0
            }
            return requests.queued
        }
        guard !queued.isEmpty else { return false }
        current = queued.count == 1 ? queued[0] : Array(queued.joined())
        currentOffset = 0
        return true
    }

    /// Reads until the socket has no more, the reader asks for a pause or the turn is up;
    /// `true` for the last.
    private func read(into scratch: UnsafeMutableRawBufferPointer) -> Bool {
        // A bound on one socket's turn, so that a busy one does not starve the others.
        for _ in 0..<16 {
            var received = 0
            let code = kcurl_easy_recv(transfer.easy.pointer, scratch.baseAddress!, scratch.count, &received)
            if code == KCURLE_AGAIN { return false }
            guard code == 0 else {
                end(failure(code))
                return false
            }
            guard received > 0 else {
                // The server closed the connection.
                opening?.fail(
                    KringleError.webSocketClosed(
                        opening?.url ?? transfer.submission.plan.requestURL,
                        .abnormalClosure, reason: "the server closed the connection during the opening handshake"))
                end(nil)
                return false
            }
            let bytes = UnsafeRawBufferPointer(rebasing: scratch[0..<received])
            if let opening {
                switch opening.received(bytes) {
                case .waiting:
                    continue
                case .refused:
                    end(nil)
                    return false
                case .opened(let agreement, let rest):
                    let session: WebSocketSession
                    do {
                        session = try WebSocketSession(
                            url: opening.url, agreement: agreement, upgrade: opening.upgrade, link: self)
                    } catch {
                        end(error)
                        return false
                    }
                    self.opening = nil
                    self.session = session
                    opening.complete(with: session)
                    session.start()
                    guard rest.isEmpty || rest.withUnsafeBytes({ session.received($0) }) else {
                        isReading = false
                        return false
                    }
                }
            } else if let session, !session.received(bytes) {
                isReading = false
                return false
            }
        }
        return true
    }

    private func failure(_ code: Int32) -> any Error {
        KringleError.transport(CurlError(code: Int(code), message: String(cString: kcurl_easy_strerror(code))))
    }

    /// Ends the connection: the session (or the opening) hears why; the driver closes the
    /// handle when it sees ``ended``.
    func end(_ error: (any Error)?) {
        guard !ended else { return }
        ended = true
        opening?.fail(error ?? KringleError.transport(CurlError(code: 56, message: "the connection ended")))
        opening = nil
        // The session holds this link; letting go of it here breaks the cycle.
        let session = self.session
        self.session = nil
        session?.linkEnded(error)
    }
}
