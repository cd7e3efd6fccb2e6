import Foundation

/// Buffered writes to one connected socket, owned by a single connection thread.
///
/// Small pieces (status line, header fields, a short body, chunk framing) are gathered so a
/// typical response leaves in one `send(2)`; with TCP_NODELAY set, separate sends would mean
/// separate packets. Large bodies bypass the buffer and are sent straight from their storage.
final class SocketWriter {
    /// Pieces up to this size are copied into the buffer; larger ones are sent directly.
    private static let coalescingLimit = 65_536

    private let descriptor: Int32
    private var pending: [UInt8] = []

    /// Creates a writer for `descriptor`, which it writes to but never closes.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        pending.reserveCapacity(Self.coalescingLimit)
    }

    /// Queues bytes, sending the buffer first if they would overflow it.
    func write(_ bytes: [UInt8]) throws(WriteFailure) {
        // The closure APIs rethrow untyped errors, so the failure is passed out as a value.
        let failure = bytes.withUnsafeBytes { raw in Result { () throws(WriteFailure) in try write(raw) } }
        try failure.get()
    }

    /// Queues a body or a slice of one; large ones are sent directly after the buffer.
    func write(_ data: Data) throws(WriteFailure) {
        let failure = data.withUnsafeBytes { raw in Result { () throws(WriteFailure) in try write(raw) } }
        try failure.get()
    }

    /// Sends everything queued so far.
    func flush() throws(WriteFailure) {
        guard !pending.isEmpty else { return }
        let failure = pending.withUnsafeBytes { Socket.sendAll(descriptor, $0) }
        pending.removeAll(keepingCapacity: true)
        if let failure { throw WriteFailure(errno: failure) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws(WriteFailure) {
        if pending.count + bytes.count <= Self.coalescingLimit {
            pending.append(contentsOf: bytes)
            return
        }
        try flush()
        if bytes.count <= Self.coalescingLimit {
            pending.append(contentsOf: bytes)
        } else if let failure = Socket.sendAll(descriptor, bytes) {
            throw WriteFailure(errno: failure)
        }
    }
}
