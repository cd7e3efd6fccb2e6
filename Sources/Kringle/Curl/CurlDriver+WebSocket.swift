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
        service(link)
    }

    /// Gives the link `id` a turn (a command from another thread asked for one).
    func service(_ id: UInt64) {
        ThreadConfinement.assertDriving(engine)
        guard let link = links[id] else { return }
        service(link)
    }

    private func service(_ link: CurlWebSocketLink) {
        link.service(scratch: scratch)
        if link.ended { close(link) }
    }

    /// Closes an ended link's connection and frees its handle.
    func close(_ link: CurlWebSocketLink) {
        ThreadConfinement.assertDriving(engine)
        guard links.removeValue(forKey: link.id) != nil else { return }
        discard(link.transfer)
    }

    /// Takes a WebSocket's handle out of the multi handle (which closes its connection) and
    /// frees it with its share.
    private func discard(_ transfer: CurlTransfer) {
        kcurl_multi_remove(multi, transfer.easy.pointer)
        transfer.connectionShare?.detach(from: transfer.easy)
        transfer.connectionShare = nil
    }

    /// Waits in curl's poll, with the links' sockets when there are any, and gives every link
    /// whose socket woke up a turn.
    func wait(milliseconds: Int32) -> Int32 {
        ThreadConfinement.assertDriving(engine)
        guard !links.isEmpty else { return kcurl_multi_poll(multi, milliseconds) }
        watched.removeAll(keepingCapacity: true)
        var order: [CurlWebSocketLink] = []
        order.reserveCapacity(links.count)
        for link in links.values {
            order.append(link)
            watched.append(kcurl_watched_socket(fd: link.socket, events: link.pollEvents, revents: 0))
        }
        let code = watched.withUnsafeMutableBufferPointer { sockets in
            kcurl_multi_poll_with(multi, sockets.baseAddress, UInt32(sockets.count), milliseconds)
        }
        for (index, link) in order.enumerated() where watched[index].revents != 0 {
            service(link)
        }
        return code
    }
}
