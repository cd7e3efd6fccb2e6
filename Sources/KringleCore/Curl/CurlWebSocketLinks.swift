import CCurlShim
import Foundation

/// The WebSockets of one curl engine, on its driving thread: their handshakes and frames move
/// when their sockets are ready, which the same wait as the transfers' watches, with no thread
/// of their own.
///
/// Owned by the ``CurlDriver``, which hands it the connect-only transfers curl connected and
/// the sockets its wait found ready; everything here runs on the driving thread
/// (``ThreadConfinement``).
final class CurlWebSocketLinks {
    /// Unowned, and unchecked (no reference count to keep on every use): the engine owns the driver, which owns the links.
    private unowned(unsafe) let engine: CurlEngine
    private let multi: OpaquePointer
    /// Open WebSockets (and ones in their opening handshake), by request.
    private var links: [UInt64: CurlWebSocketLink] = [:]
    /// Links whose last turn stopped with bytes still to read (they get the next one without
    /// waiting for their sockets), and links whose sockets the wait found ready.
    private var due: Set<UInt64> = []
    /// Whether the multi handle watches with poll(), level-triggered: each link's socket is
    /// watched for what it waits for now (``CurlWebSocketLink/pollEvents``), which changes
    /// with each turn. Edge-triggered epoll watches every socket for both, once.
    private let watchesLevels: Bool
    /// Where a link's bytes are read to; made with the first link.
    private var scratch: UnsafeMutableRawBufferPointer?

    init(engine: CurlEngine, multi: OpaquePointer) {
        self.engine = engine
        self.multi = multi
        watchesLevels = kcurl_multi_is_portable(multi) == 1
    }

    deinit {
        scratch?.deallocate()
    }

    var isEmpty: Bool { links.isEmpty }

    /// Whether a link needs a turn without waiting for its socket.
    var hasDue: Bool { !due.isEmpty }

    /// Turns a CONNECT_ONLY transfer that curl connected into a link, which writes the
    /// opening handshake at once. The handle stays in the multi handle: taking it out would
    /// close the connection (multi.c, curl_multi_remove_handle).
    func open(_ transfer: CurlTransfer) {
        engine.drivingLock.assertHeld()
        let submission = transfer.submission
        let socket = kcurl_easy_active_socket(transfer.easy.pointer)
        guard let opening = engine.takeOpening(for: submission.id), socket >= 0 else {
            let error = CurlError(code: CurlError.failedInitialization, message: "curl gave no connected socket")
            submission.promise.reject(KringleError.transport(error))
            submission.channel?.finish(throwing: error)
            discard(transfer)
            return
        }
        let link = CurlWebSocketLink(
            id: submission.id, transfer: transfer, socket: socket, engine: engine, opening: opening)
        links[submission.id] = link
        let events = watchesLevels ? link.pollEvents : Int32(KCURL_WATCH_IN | KCURL_WATCH_OUT)
        guard kcurl_multi_watch(multi, socket, events, submission.id) == 0 else {
            let error = CurlError(code: CurlError.failedInitialization, message: "the socket could not be watched")
            link.end(KringleError.transport(error))
            close(link)
            return
        }
        service(link)
    }

    /// Gives the link `id` a turn (a command from another thread asked for one); `false`
    /// when there is no such link.
    @discardableResult
    func service(_ id: UInt64) -> Bool {
        engine.drivingLock.assertHeld()
        guard let link = links[id] else { return false }
        service(link)
        return true
    }

    private func service(_ link: CurlWebSocketLink) {
        if scratch == nil { scratch = .allocate(byteCount: 64 << 10, alignment: 16) }
        if let scratch, link.service(scratch: scratch) { due.insert(link.id) }
        if link.ended {
            close(link)
        } else if watchesLevels {
            kcurl_multi_watch(multi, link.socket, link.pollEvents, link.id)
        }
    }

    /// Notes that the wait found the socket of link `id` ready.
    func socketIsReady(_ id: UInt64) {
        due.insert(id)
    }

    /// Gives a turn to every link whose socket was ready or whose last turn stopped short.
    func serviceDue() {
        engine.drivingLock.assertHeld()
        guard !due.isEmpty else { return }
        let turns = due
        due.removeAll(keepingCapacity: true)
        for id in turns { service(id) }
    }

    /// Ends the link `id` with `error` (its call was cancelled); `false` when there is none.
    func end(_ id: UInt64, with error: any Error) -> Bool {
        engine.drivingLock.assertHeld()
        guard let link = links[id] else { return false }
        link.end(error)
        close(link)
        return true
    }

    /// Ends every link with `error` (the poll itself failed).
    func endAll(with error: any Error) {
        for link in Array(links.values) {
            link.end(error)
            close(link)
        }
    }

    /// Closes an ended link's connection and frees its handle.
    private func close(_ link: CurlWebSocketLink) {
        guard links.removeValue(forKey: link.id) != nil else { return }
        due.remove(link.id)
        kcurl_multi_unwatch(multi, link.socket)
        discard(link.transfer)
    }

    /// Takes a WebSocket's handle out of the multi handle (which closes its connection) and
    /// frees it with its share.
    private func discard(_ transfer: CurlTransfer) {
        kcurl_multi_remove(multi, transfer.easy.pointer)
        transfer.releaseConnectionShare()
    }
}
