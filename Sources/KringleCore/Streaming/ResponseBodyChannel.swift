import Dispatch
import Foundation
@_spi(KringleInternals) import KringlePromise

/// Carries a response body from a transport to its reader chunk by chunk, and holds the
/// transport back when the reader is slower: at most about ``capacity`` bytes wait in it.
///
/// The transport offers each chunk. A chunk offered while the channel holds less than
/// `capacity` is taken; otherwise the offer is refused and the transport stops reading
/// (curl pauses the transfer, URLSession's delegate queue waits in ``waitForRoom()``) until
/// the reader has taken the channel down to half, when ``onRoom(_:)``'s handler runs. So
/// memory stays flat whatever the body's size, and the network waits for the reader.
///
/// The reader takes chunks with ``next()`` (or ``next(_:)``) until the transport calls
/// ``finish(throwing:)``; a reader that stops early calls ``cancel()``, which runs the
/// transport's ``onCancel(_:)`` handler to stop the transfer.
public final class ResponseBodyChannel: Sendable {
    /// About how many bytes may wait for the reader before offers are refused.
    public let capacity: Int
    private let state = Locked(State())
    /// Signalled whenever room was made or the reader left, for ``waitForRoom()``.
    private let room = DispatchSemaphore(value: 0)

    private struct State: Sendable {
        var chunks: [Data] = []
        var head = 0
        var buffered = 0
        /// Set when an offer was refused: the transport waits for room.
        var refused = false
        var end: Result<Void, any Error>?
        var cancelled = false
        var reader: (@Sendable (Result<Data?, any Error>) -> Void)?
        var onRoom: (@Sendable () -> Void)?
        var onCancel: (@Sendable () -> Void)?
    }

    /// A channel that lets about `capacity` bytes wait (1 MiB by default).
    public init(capacity: Int = 1 << 20) {
        self.capacity = max(1, capacity)
    }

    // MARK: The transport's side

    /// Offers the next chunk of body: `true` when it was taken; `false` when the channel is
    /// full (nothing was taken: offer it again after ``onRoom(_:)``'s handler ran) or the
    /// reader has gone (stop the transfer: ``onCancel(_:)``'s handler runs too).
    public func offer(_ chunk: Data) -> Bool {
        let delivery = state.withLock { state -> (@Sendable (Result<Data?, any Error>) -> Void)?? in
            guard !state.cancelled, state.end == nil else { return .none }
            if let reader = state.reader {
                state.reader = nil
                return .some(reader)
            }
            guard state.buffered < capacity else {
                state.refused = true
                return .none
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return .some(nil)
        }
        guard let delivery else { return false }
        delivery?(.success(chunk))
        return true
    }

    /// Blocks the calling thread until the reader has made room after a refused offer, or
    /// has gone (`false`): for a transport whose only backpressure is to block the thread
    /// that delivers the body.
    public func waitForRoom() -> Bool {
        while true {
            // Checked anew after every signal: one may be left over from earlier room.
            let (mustWait, cancelled) = state.withLock { (!$0.cancelled && $0.refused, $0.cancelled) }
            guard mustWait else { return !cancelled }
            room.wait()
        }
    }

    /// Runs `handler` (on the reader's thread, quickly) each time room is made after a
    /// refused offer.
    public func onRoom(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onRoom = handler }
    }

    /// Runs `handler` once when the reader goes away before the end (``cancel()``): stop the
    /// transfer.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            guard !state.cancelled else { return true }
            state.onCancel = handler
            return false
        }
        if runNow { handler() }
    }

    /// Ends the body: complete (`nil`), or cut short by `error`. The reader gets the chunks
    /// still waiting first. Later calls change nothing.
    public func finish(throwing error: (any Error)? = nil) {
        let reader = state.withLock { state -> (@Sendable (Result<Data?, any Error>) -> Void)? in
            guard state.end == nil, !state.cancelled else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.reader = nil }
            return state.reader
        }
        reader?(error.map { .failure($0) } ?? .success(nil))
    }

    /// Whether the reader has gone.
    public var isCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    // MARK: The reader's side

    /// The next chunk, `nil` after the last, or the error that cut the body short
    /// (``/KringlePromise/PromiseError/cancelled`` once the reader left, or its task was
    /// cancelled). One call at a time.
    public func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                next { continuation.resume(with: $0) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Calls `completion` with the next chunk, `nil` after the last, or the error that cut
    /// the body short: at once when one is waiting, else when it arrives. One call at a time:
    /// a second while the first waits fails with ``KringleError/invalidRequest(_:)``.
    public func next(_ completion: @escaping @Sendable (Result<Data?, any Error>) -> Void) {
        let (result, roomMade) = state.withLock { state -> (Result<Data?, any Error>?, (@Sendable () -> Void)?) in
            if state.cancelled { return (.failure(PromiseError.cancelled), nil) }
            guard state.head < state.chunks.count else {
                if let end = state.end { return (end.map { nil }, nil) }
                guard state.reader == nil else {
                    return (.failure(KringleError.invalidRequest("a streamed body is read by two loops at once")), nil)
                }
                state.reader = completion
                return (nil, nil)
            }
            let chunk = state.chunks[state.head]
            state.head += 1
            state.buffered -= chunk.count
            if state.head > 64, state.head * 2 > state.chunks.count {
                state.chunks.removeFirst(state.head)
                state.head = 0
            }
            guard state.refused, state.buffered <= capacity / 2 else { return (.success(chunk), nil) }
            state.refused = false
            return (.success(chunk), state.onRoom ?? {})
        }
        if let roomMade {
            room.signal()
            roomMade()
        }
        if let result { completion(result) }
    }

    /// The reader is done before the end: the chunks waiting are dropped, later offers are
    /// refused, and the transport's ``onCancel(_:)`` handler runs (once).
    public func cancel() {
        let (handler, reader) = state.withLock {
            state -> ((@Sendable () -> Void)?, (@Sendable (Result<Data?, any Error>) -> Void)?) in
            guard !state.cancelled, state.end == nil || state.head < state.chunks.count else { return (nil, nil) }
            state.cancelled = true
            state.chunks.removeAll()
            state.head = 0
            state.buffered = 0
            defer {
                state.onCancel = nil
                state.reader = nil
            }
            return (state.onCancel, state.reader)
        }
        room.signal()
        reader?(.failure(PromiseError.cancelled))
        handler?()
    }
}

extension ResponseBodyChannel {
    /// The body's first `limit` bytes (all of it when shorter), after which the reader
    /// leaves: for an error that keeps the start of a streamed body. A body that has not
    /// reached its end or `limit` within `seconds` on `clock` gives what arrived by then.
    func collect(upTo limit: Int, within seconds: TimeInterval, clock: any KringleClock) -> Promise<Data> {
        let collected = Promise<Data>.pending()
        let arrived = Locked(Data())
        collect(into: arrived, limit: limit, collected)
        collected.onCancel { self.cancel() }
        return collected.timeout(seconds, clock: clock).recover { error in
            guard case PromiseError.timedOut = error else { throw error }
            self.cancel()
            return arrived.withLock { $0 }
        }
    }

    private func collect(into arrived: Locked<Data>, limit: Int, _ collected: Promise<Data>) {
        next { result in
            switch result {
            case .success(let chunk?):
                let start = arrived.withLock { data -> Data? in
                    data.append(chunk.prefix(limit - data.count))
                    return data.count >= limit ? data : nil
                }
                guard let start else { return self.collect(into: arrived, limit: limit, collected) }
                self.cancel()
                collected.fulfill(start)
            case .success(nil), .failure:
                // A body cut short still shows what arrived of it.
                collected.fulfill(arrived.withLock { $0 })
            }
        }
    }
}
