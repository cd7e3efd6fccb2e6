import CCurlShim
import Foundation

// A WebSocket on the driving thread: its handshake and frames move through the poll the
// transfers wait in, socket by socket, with no thread of their own.

extension CurlDriver {
    /// Turns a CONNECT_ONLY transfer that curl connected into a link, which writes the
    /// opening handshake at once. The handle stays in the multi handle: taking it out would
    /// close the connection (multi.c, curl_multi_remove_handle). Its turn ends, since a
    /// WebSocket is not one of the host's pooled connections.
    func openLink(_ transfer: CurlTransfer) {
        ThreadConfinement.assertDriving(engine)
        let submission = transfer.submission
        admission.end(hostKey: submission.hostKey)
        let socket = kcurl_easy_active_socket(transfer.easy.pointer)
        guard let opening = submission.opening, socket >= 0 else {
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
            link.end(
                KringleError.transport(
                    CurlError(code: CurlError.failedInitialization, message: "epoll refused the socket")))
            close(link)
            return
        }
        #endif
        service(link)
    }

    /// Gives the link `id` a turn (a command from another thread asked for one).
    func service(_ id: UInt64) {
        ThreadConfinement.assertDriving(engine)
        guard let link = links[id] else { return }
        service(link)
    }

    private func service(_ link: CurlWebSocketLink) {
        if link.service(scratch: scratch) { unfinished.insert(link.id) }
        if link.ended { close(link) }
    }

    /// Closes an ended link's connection and frees its handle.
    func close(_ link: CurlWebSocketLink) {
        ThreadConfinement.assertDriving(engine)
        guard links.removeValue(forKey: link.id) != nil else { return }
        #if os(Linux)
        readiness?.remove(link.socket)
        #endif
        discard(link.transfer)
    }

    /// Takes a WebSocket's handle out of the multi handle (which closes its connection) and
    /// frees it with its share.
    private func discard(_ transfer: CurlTransfer) {
        kcurl_multi_remove(multi, transfer.easy.pointer)
        transfer.connectionShare?.detach(from: transfer.easy)
        transfer.connectionShare = nil
    }

    /// Waits in curl's poll, and for the links' sockets when there are any, then gives every
    /// link whose socket woke up (or whose last turn stopped short) a turn.
    func wait(milliseconds: Int32) -> Int32 {
        ThreadConfinement.assertDriving(engine)
        guard !links.isEmpty else { return kcurl_multi_poll(multi, milliseconds) }
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
