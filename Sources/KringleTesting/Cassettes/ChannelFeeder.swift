import Dispatch
import Foundation
@_spi(KringleInternals) import KringlePromise

/// Offers a body's chunks to a reader's ``/KringleCore/ResponseBodyChannel`` as the built-in
/// transports do: a chunk the full channel refuses is held back, and offered again once the
/// reader has made room (curl pauses and unpauses in the same way), so whoever feeds the
/// channel goes no faster than its reader.
///
/// The recorder's relay and the replayed body feed a channel through one of these, one chunk
/// at a time: the next chunk is offered only once the last was taken.
final class ChannelFeeder: Sendable {
    let channel: ResponseBodyChannel
    private let state = Locked(State())

    private struct State: Sendable {
        /// The refused chunk, and what to run once it is taken.
        var held: (chunk: Data, taken: @Sendable () -> Void)?
        /// Room was made before the refused chunk was held (the reader ran in between).
        var roomMade = false
    }

    /// A feeder for `channel`; ``close()`` it when done (it is the channel's room handler
    /// until then).
    init(_ channel: ResponseBodyChannel) {
        self.channel = channel
        channel.onRoom { self.roomMade() }
    }

    /// Offers `chunk`: `true` when the channel took it now; `false` when it is held until the
    /// reader makes room (then `taken` runs, on another thread) or for good if the reader
    /// has gone (then `taken` never runs).
    func offer(_ chunk: Data, whenTakenLater taken: @escaping @Sendable () -> Void) -> Bool {
        while true {
            if channel.offer(chunk) { return true }
            if channel.isCancelled { return false }
            let retry = state.withLock { state -> Bool in
                guard !state.roomMade else {
                    state.roomMade = false
                    return true
                }
                state.held = (chunk, taken)
                return false
            }
            if !retry { return false }
        }
    }

    /// Ends the body (cut short by `error`, if given) and lets go of the channel.
    func finish(throwing error: (any Error)? = nil) {
        channel.finish(throwing: error)
        close()
    }

    /// Lets go of the channel's room handler, which holds this feeder (and what its held
    /// chunk's `taken` holds): once the body ended or the reader left.
    func close() {
        channel.onRoom {}
        state.withLock { $0.held = nil }
    }

    /// The reader made room after a refusal: the held chunk goes again, off the reader's
    /// thread (the channel asks its room handler to return quickly).
    private func roomMade() {
        let held = state.withLock { state -> (chunk: Data, taken: @Sendable () -> Void)? in
            guard let held = state.held else {
                state.roomMade = true
                return nil
            }
            state.held = nil
            return held
        }
        guard let held else { return }
        DispatchQueue.global().async {
            if self.offer(held.chunk, whenTakenLater: held.taken) { held.taken() }
        }
    }
}
