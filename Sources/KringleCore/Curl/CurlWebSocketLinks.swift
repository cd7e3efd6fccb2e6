import CCurlShim
import Foundation

/// The WebSockets of one curl engine, on its driving thread: their handshakes and frames move
/// through the poll the transfers wait in, socket by socket, with no thread of their own.
///
/// Owned by the ``CurlDriver``, which hands it the connect-only transfers curl connected and
/// lets it wait in the poll while it has links; everything here runs on the driving thread
/// (``ThreadConfinement``), except ``register(_:for:)``.
final class CurlWebSocketLinks {
    private let engine: CurlEngine
    private let multi: OpaquePointer
    /// Open WebSockets (and ones in their opening handshake), by request.
    private var links: [UInt64: CurlWebSocketLink] = [:]
    /// Links whose last turn stopped with bytes still to read: they get the next one without
    /// waiting for their sockets.
    private var unfinished: Set<UInt64> = []
    #if os(Linux)
    /// The links' sockets, watched through one descriptor; made with the first link.
    private var readiness: SocketReadiness?
    #endif
    /// Where a link's bytes are read to; made with the first link.
    private var scratch: UnsafeMutableRawBufferPointer?

    init(engine: CurlEngine, multi: OpaquePointer) {
        self.engine = engine
        self.multi = multi
    }

    deinit {
        scratch?.deallocate()
    }

    var isEmpty: Bool { links.isEmpty }

    /// Turns a CONNECT_ONLY transfer that curl connected into a link, which writes the
    /// opening handshake at once. The handle stays in the multi handle: taking it out would
    /// close the connection (multi.c, curl_multi_remove_handle).
    func open(_ transfer: CurlTransfer) {
        ThreadConfinement.assertDriving(engine)
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
        #if os(Linux)
        if readiness == nil { readiness = SocketReadiness() }
        guard let readiness, readiness.add(socket, id: submission.id) else {
            let error = CurlError(code: CurlError.failedInitialization, message: "epoll refused the socket")
            link.end(KringleError.transport(error))
            close(link)
            return
        }
        #endif
        service(link)
    }

    /// Gives the link `id` a turn (a command from another thread asked for one); `false`
    /// when there is no such link.
    @discardableResult
    func service(_ id: UInt64) -> Bool {
        ThreadConfinement.assertDriving(engine)
        guard let link = links[id] else { return false }
        service(link)
        return true
    }

    private func service(_ link: CurlWebSocketLink) {
        if scratch == nil { scratch = .allocate(byteCount: 64 << 10, alignment: 16) }
        if let scratch, link.service(scratch: scratch) { unfinished.insert(link.id) }
        if link.ended { close(link) }
    }

    /// Ends the link `id` with `error` (its call was cancelled); `false` when there is none.
    func end(_ id: UInt64, with error: any Error) -> Bool {
        ThreadConfinement.assertDriving(engine)
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
        unfinished.remove(link.id)
        #if os(Linux)
        readiness?.remove(link.socket)
        #endif
        discard(link.transfer)
    }

    /// Takes a WebSocket's handle out of the multi handle (which closes its connection) and
    /// frees it with its share.
    private func discard(_ transfer: CurlTransfer) {
        kcurl_multi_remove(multi, transfer.easy.pointer)
        transfer.releaseConnectionShare()
    }

    /// Waits in curl's poll, and for the links' sockets, then gives every link whose socket
    /// woke up (or whose last turn stopped short) a turn.
    func wait(milliseconds: Int32) -> Int32 {
        ThreadConfinement.assertDriving(engine)
        let timeout = unfinished.isEmpty ? milliseconds : 0
        var due = unfinished
        unfinished.removeAll(keepingCapacity: true)
        #if os(Linux)
        // One descriptor stands for every socket (``SocketReadiness``).
        guard let readiness else { return kcurl_multi_poll(multi, timeout) }
        var watched = kcurl_watched_socket(fd: readiness.descriptor, events: Int16(KCURL_WAIT_POLLIN), revents: 0)
        let code = kcurl_multi_poll_with(multi, &watched, 1, timeout)
        due.formUnion(readiness.ready())
        #else
        // Without epoll, every socket is handed to the poll, and every link gets a turn.
        var watched = links.values.map { kcurl_watched_socket(fd: $0.socket, events: $0.pollEvents, revents: 0) }
        let code = watched.withUnsafeMutableBufferPointer { sockets in
            kcurl_multi_poll_with(multi, sockets.baseAddress, UInt32(sockets.count), timeout)
        }
        due.formUnion(links.keys)
        #endif
        for id in due { service(id) }
        return code
    }
}
