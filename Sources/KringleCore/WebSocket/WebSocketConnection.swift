import Foundation
@_spi(KringleInternals) import KringlePromise

/// The channel a ``WebSocket`` talks through, replaced by a new one when the policy says to
/// reconnect (``WebSocketReconnection``).
///
/// Without a policy every call goes straight to the one channel. With one, reading and
/// sending run as async code that waits out a reconnection and tries again on the new
/// channel; one reconnection serves every caller that met the same dropped channel.
final class WebSocketConnection: Sendable {
    /// Opens a new channel to the same endpoint (a new handshake through the pipeline).
    typealias Reopen = @Sendable () -> Promise<any WebSocketChannel>

    private let reopen: Reopen
    private let policy: WebSocketReconnection?
    private let clock: any KringleClock
    private let budget: RetryBudget?
    private let state: Locked<State>

    private struct State: Sendable {
        var channel: any WebSocketChannel
        /// The reconnection under way, for the channel it replaces.
        var reconnecting: (replacing: any WebSocketChannel, next: Promise<any WebSocketChannel>)?
        /// Reconnections since a message last arrived.
        var attempts = 0
        var closedByUser = false
    }

    init(
        channel: any WebSocketChannel, policy: WebSocketReconnection?, clock: any KringleClock, budget: RetryBudget?,
        reopen: @escaping Reopen
    ) {
        state = Locked(State(channel: channel))
        self.policy = policy
        self.clock = clock
        self.budget = budget
        self.reopen = reopen
    }

    /// The channel in use.
    var channel: any WebSocketChannel {
        state.withLock { $0.channel }
    }

    // With a policy, the first try still starts here, in the order of the calls (two sends
    // not awaited go out in order); only what follows a drop runs as async code.

    func receive() -> Promise<WebSocketMessage?> {
        let channel = self.channel
        let first = channel.receive()
        guard policy != nil else { return first }
        return Promise { try await self.receiveAcrossReconnections(first, on: channel) }
    }

    func send(_ message: WebSocketMessage) -> Promise<Void> {
        let channel = self.channel
        let first = channel.send(message)
        guard policy != nil else { return first }
        return Promise { try await self.sendAcrossReconnections(message, first, on: channel) }
    }

    /// Closes the channel in use; `code` and `reason` are valid (``WebSocket/close(code:reason:)``
    /// checked them).
    func close(code: WebSocketCloseCode, reason: String) -> Promise<Void> {
        let (channel, reconnecting) = state.withLock { state in
            state.closedByUser = true
            return (state.channel, state.reconnecting?.next)
        }
        // The user closed: a reconnection under way stops.
        reconnecting?.cancel()
        return channel.close(code: code, reason: reason)
    }

    private func receiveAcrossReconnections(
        _ first: Promise<WebSocketMessage?>, on firstChannel: any WebSocketChannel
    ) async throws -> WebSocketMessage? {
        var channel = firstChannel
        var received = first
        while true {
            do {
                if let message = try await received.value {
                    state.withLock { $0.attempts = 0 }
                    return message
                }
                guard try await reconnect(replacing: channel, after: nil) else { return nil }
            } catch {
                guard try await reconnect(replacing: channel, after: error) else { throw error }
            }
            channel = self.channel
            received = channel.receive()
        }
    }

    private func sendAcrossReconnections(
        _ message: WebSocketMessage, _ first: Promise<Void>, on firstChannel: any WebSocketChannel
    ) async throws {
        var channel = firstChannel
        var sent = first
        while true {
            do {
                try await sent.value
                state.withLock { $0.attempts = 0 }
                return
            } catch {
                guard try await reconnect(replacing: channel, after: error) else { throw error }
            }
            channel = self.channel
            sent = channel.send(message)
        }
    }

    /// Replaces `old`, which ended with `error` (or a close frame, for `nil`), when the
    /// policy says to: `true` once a new channel is in use, `false` when the end stands.
    /// One reconnection serves every caller that met `old`.
    private func reconnect(replacing old: any WebSocketChannel, after error: (any Error)?) async throws -> Bool {
        guard let policy else { return false }
        let next = state.withLock { state -> Promise<any WebSocketChannel>? in
            if state.channel !== old { return Promise(state.channel) }
            if let reconnecting = state.reconnecting, reconnecting.replacing === old { return reconnecting.next }
            guard !state.closedByUser,
                WebSocketReconnection.reconnects(after: error, closedWith: old.closeFrame?.code)
            else { return nil }
            let next = Promise { try await self.replacement(for: old, policy: policy, after: error) }
            state.reconnecting = (old, next)
            return next
        }
        guard let next else { return false }
        let channel = try await next.value
        let installed = state.withLock { state -> Bool in
            guard !state.closedByUser else { return false }
            if state.channel === old {
                state.channel = channel
                state.reconnecting = nil
            }
            return true
        }
        // Closed (or dropped) while the new connection opened: it ends at once.
        guard installed else {
            channel.abandon()
            return false
        }
        return true
    }

    /// A new channel, after the policy's waits, attempt after attempt; throws the last error
    /// once the attempts or the host's retry budget are spent.
    private func replacement(
        for old: any WebSocketChannel, policy: WebSocketReconnection, after cause: (any Error)?
    ) async throws -> any WebSocketChannel {
        var lastError =
            cause ?? KringleError.webSocketClosed(old.url, old.closeFrame?.code ?? .abnormalClosure, reason: "")
        while true {
            let attempt = state.withLock { state -> Int in
                state.attempts += 1
                return state.attempts
            }
            let host = old.url.host ?? ""
            guard attempt <= policy.maximumAttempts, !state.withLock({ $0.closedByUser }),
                budget?.withdrawRetry(to: host, now: clock.uptimeNanoseconds) ?? true
            else { throw lastError }
            try await Promise(()).delay(policy.wait(before: attempt), clock: clock).value
            do {
                return try await reopen().value
            } catch  where WebSocketReconnection.reconnects(after: error, closedWith: nil) {
                lastError = error
            }
        }
    }

    /// The last reference to the socket is gone.
    func abandon() {
        let (channel, reconnecting) = state.withLock { state in
            state.closedByUser = true
            return (state.channel, state.reconnecting?.next)
        }
        reconnecting?.cancel()
        channel.abandon()
    }
}
