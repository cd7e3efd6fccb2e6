import Foundation
@_spi(KringleInternals) import KringlePromise

/// Carries a streamed response body from the recorded transport to the reader, chunk by
/// chunk as it arrives, keeping a copy and a ``StreamTimeline`` for the cassette: the reader
/// of a Server-Sent Events stream sees each event while it is recorded, and a stream that
/// never ends is recorded up to when the reader leaves.
///
/// The recorded transport writes into ``inner``, a channel as big as the reader's; the relay
/// takes a chunk from it only once the reader's channel took the last one, so a slow reader
/// holds the transport back as it would without the recorder. The reader leaving cancels
/// ``inner``, which stops the transfer.
///
/// The exchange is recorded once both its head and the end of its body are known (in either
/// order: a transport that cannot stream offers the whole body before its head settles):
/// then the reader's channel is finished, so a reader that saw the end finds the entry in
/// the cassette.
final class RecordingRelay: Sendable {
    /// The channel the recorded transport offers the body to.
    let inner: ResponseBodyChannel
    private let feeder: ChannelFeeder
    private let clock: any KringleClock
    private let started: UInt64
    private let describe: @Sendable (any Error) -> String
    private let record: @Sendable (HTTPResponse, Data, StreamTimeline) throws(KringleError) -> Void
    private let state = Locked(State())

    private struct State: Sendable {
        var body = Data()
        var timeline = StreamTimeline()
        /// Whether the body ended (or the reader left).
        var ended = false
        /// What cut it short, if anything.
        var endError: (any Error)?
        var head: HTTPResponse?
        /// Recorded already, or nothing to record (the exchange got no head).
        var settled = false
    }

    /// A relay to `reader`, timing chunks on `clock` from `started` (its uptime at the
    /// exchange's start); `describe` words a transfer's error for the cassette, `record`
    /// writes the entry.
    init(
        reader: ResponseBodyChannel, clock: any KringleClock, started: UInt64,
        describe: @escaping @Sendable (any Error) -> String,
        record: @escaping @Sendable (HTTPResponse, Data, StreamTimeline) throws(KringleError) -> Void
    ) {
        inner = ResponseBodyChannel(capacity: reader.capacity)
        feeder = ChannelFeeder(reader)
        self.clock = clock
        self.started = started
        self.describe = describe
        self.record = record
    }

    /// Starts relaying: call before the recorded transport starts.
    func start() {
        // Weak: the channel keeps its handler after a normal end, and would keep the relay.
        feeder.channel.onCancel { [weak self] in self?.readerLeft() }
        relay()
    }

    /// The recorded transport's response head (its body empty).
    func headArrived(_ head: HTTPResponse) {
        settle { $0.head = head }
    }

    /// The exchange got no response head: nothing of the body is recorded (the recorder
    /// records the failure), and the transfer is let go.
    func headFailed() {
        settle { $0.settled = true }
        inner.cancel()
        feeder.close()
    }

    // MARK: Relaying

    /// Takes chunks from ``inner`` and offers them to the reader, one at a time, until one
    /// is held back or has not arrived yet; looping rather than recursing when chunks are
    /// waiting, so that a long queue of small chunks does not deepen the stack.
    private func relay() {
        while true {
            let handoff = Locked(Handoff.waiting)
            inner.next { result in
                let later = handoff.withLock { handoff -> Bool in
                    guard case .waiting = handoff else { return true }
                    handoff = .delivered(result)
                    return false
                }
                if later, self.take(result) { self.relay() }
            }
            let now = handoff.withLock { handoff -> Result<Data?, any Error>? in
                defer { handoff = .returned }
                guard case .delivered(let result) = handoff else { return nil }
                return result
            }
            guard let now, take(now) else { return }
        }
    }

    /// Whether a chunk was delivered during the call to `next` or after it returned.
    private enum Handoff: Sendable {
        case waiting
        case delivered(Result<Data?, any Error>)
        case returned
    }

    /// Keeps and forwards what ``inner`` gave: `true` when the next can be taken now.
    private func take(_ result: Result<Data?, any Error>) -> Bool {
        switch result {
        case .success(let chunk?):
            let time = elapsed()
            state.withLock { state in
                state.body.append(chunk)
                state.timeline.chunks.append(StreamTimeline.Chunk(size: chunk.count, time: time))
            }
            return feeder.offer(chunk) { self.relay() }
        case .success(nil):
            bodyEnded(nil)
            return false
        case .failure(let error):
            bodyEnded(error)
            return false
        }
    }

    /// Seconds since the exchange started, on the recorder's clock.
    private func elapsed() -> TimeInterval {
        let now = clock.uptimeNanoseconds
        return Double(now >= started ? now - started : 0) / 1e9
    }

    private func bodyEnded(_ error: (any Error)?) {
        let time = elapsed()
        settle { state in
            guard !state.ended else { return }
            state.ended = true
            state.timeline.endTime = time
            state.endError = error
            if let error {
                state.timeline.end = error is PromiseError ? .cancelled : .failed(describe(error))
            }
        }
    }

    /// The reader left: the transfer stops, and what arrived is recorded, marked cancelled.
    private func readerLeft() {
        let time = elapsed()
        settle { state in
            guard !state.ended else { return }
            state.ended = true
            state.timeline.endTime = time
            state.endError = PromiseError.cancelled
            state.timeline.end = .cancelled
        }
        inner.cancel()
        feeder.close()
    }

    /// Applies `change`; then, once the head and the end of the body are both known, records
    /// the exchange (once) and ends the reader's body as the transfer's ended, or with the
    /// cassette's error (inside `KringleError.transport`) when it could not be written (a
    /// recording that silently lost an exchange would fail later, far from the cause). A
    /// reader that left hears nothing; the entry stays for the next
    /// ``RecordingTransport/flush()`` if the write failed.
    ///
    /// The entry is written under the lock, so that whoever finds the exchange settled
    /// (a reader leaving just after the end, say) finds its entry in the cassette. Recording
    /// takes only the recorder's locks, never this one, so the order is always the same.
    private func settle(_ change: (inout State) -> Void) {
        let end = state.withLock { state -> (any Error)?? in
            change(&state)
            guard state.ended, let head = state.head, !state.settled else { return .none }
            state.settled = true
            let error = state.endError
            let written = Result { () throws(KringleError) in try record(head, state.body, state.timeline) }
            if case .failure(let failure) = written, error == nil { return .some(failure) }
            return .some(error)
        }
        if case .some(let error) = end { feeder.finish(throwing: error) }
    }
}
