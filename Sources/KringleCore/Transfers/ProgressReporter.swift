import Foundation
@_spi(KringleInternals) import KringlePromise

/// Turns a transport's raw byte counts into the progress callbacks users see: at most about
/// twenty a second plus the final one, never going backwards, on a serial queue of their
/// own (never the transport's threads).
final class ProgressReporter: Sendable {
    enum Direction: Sendable {
        /// Counts bytes sent, out of the body's length when it is known (not for a body
        /// compressed as it is sent).
        /// For a body compressed as it is sent, `source` counts the bytes read before
        /// compression, which `total` (the body's length) then measures.
        case upload(total: Int64?, source: CompressionCounter? = nil)
        /// Counts bytes received, out of the `Content-Length` when there is one.
        case download
    }

    private struct State {
        var delivered: Int64 = -1
        /// The clock's uptime at the last callback; `nil` before the first, which goes at once.
        var lastDelivery: UInt64?
        var finished = false
        /// The bytes sent at the last report, for the final callback of a compressed upload.
        var sent: Int64?
    }

    private static let interval: UInt64 = 50_000_000  // 50 ms: 20 callbacks a second

    private let direction: Direction
    private let callback: @Sendable (TransferProgress) -> Void
    private let state = Locked(State())
    private let queue = DispatchQueue(label: "kringle.progress")
    /// Nanoseconds on a monotonic clock; tests pass a clock they move by hand.
    private let clock: any KringleClock

    init(
        _ direction: Direction,
        clock: any KringleClock,
        callback: @escaping @Sendable (TransferProgress) -> Void
    ) {
        self.direction = direction
        self.clock = clock
        self.callback = callback
    }

    /// What a transport reports, from any thread, as often as it likes.
    ///
    /// A download counts only the body of a response with an acceptable status: the body of
    /// a redirect or of an error that will be retried is not the file.
    func update(_ report: TransferReport, acceptable: Range<Int>) {
        if case .download = direction, !(report.statusCode.map(acceptable.contains) ?? false) { return }
        let progress = progress(of: report)
        state.withLock { state in
            // The clock is read under the lock, so the times compared never go backwards, and
            // callbacks are queued under it too, so they arrive in the order decided here.
            let now = clock.uptimeNanoseconds
            if progress.bytesSent != nil { state.sent = progress.bytesSent }
            guard !state.finished, progress.completedBytes > max(state.delivered, 0),
                state.lastDelivery.map({ now &- $0 >= Self.interval }) ?? true
            else { return }
            state.delivered = progress.completedBytes
            state.lastDelivery = now
            queue.async { [callback] in callback(progress) }
        }
    }

    /// The last callback: the transfer is complete with `completed` bytes (all of them).
    func finish(completed: Int64) {
        state.withLock { state in
            guard !state.finished else { return }
            state.finished = true
            let bytes = max(completed, state.delivered)
            state.delivered = bytes
            let final = TransferProgress(completedBytes: bytes, totalBytes: bytes, bytesSent: state.sent)
            queue.async { [callback] in callback(final) }
        }
    }

    /// `transfer`, settled only once every callback queued before it settled has run, so that
    /// whoever awaits the transfer has seen all of its progress, the final callback included.
    func deliveringFirst<Value: Sendable>(_ transfer: Promise<Value>) -> Promise<Value> {
        transfer.flatMapResultInline { [queue] result in
            let drained = Promise<Void>.pending()
            // The queue is serial: this runs after the callbacks already on it.
            queue.async { drained.fulfill(()) }
            return drained.mapResultInline { _ in try result.get() }
        }
    }

    private func progress(of report: TransferReport) -> TransferProgress {
        let sent = report.sent
        switch direction {
        case .upload(let total, let source?):
            var read = source.bytesRead
            // A body compressed whole before its first byte went (URLSession sends a spooled
            // copy) was read at once: the share of the copy sent, scaled to the file, moves
            // as the upload does.
            if let total, let wire = report.expectedToSend, wire > 0 {
                read = Int64((Double(min(sent, wire)) / Double(wire) * Double(total)).rounded(.down))
            }
            return TransferProgress(
                completedBytes: total.map { min(read, $0) } ?? read, totalBytes: total, bytesSent: sent)
        case .upload(let total, nil):
            return TransferProgress(completedBytes: total.map { min(sent, $0) } ?? sent, totalBytes: total)
        case .download: return TransferProgress(completedBytes: report.received, totalBytes: report.expectedToReceive)
        }
    }
}
