import Foundation
@_spi(KringleInternals) import KringlePromise

/// The exchanges in flight that identical requests share, for a client that coalesces
/// (``NetworkClient/Configuration-swift.struct/coalescesRequests``).
///
/// Requests are identical when their method, URL and every header field are: a key that
/// leaves nothing out never gives one caller another's answer (an `Authorization`, an
/// `Accept`, a `Cookie` or any field a `Vary` might name differs, and they do not share).
///
/// Each caller gets a promise of its own, which no other caller's cancellation touches; the
/// exchange is cancelled only when the last caller waiting for it is.
final class RequestCoalescer: Sendable {
    /// One exchange and the callers waiting for it.
    private final class Shared: Sendable {
        struct State: Sendable {
            /// Callers waiting that have not cancelled.
            var waiting = 1
            /// Whether a new identical request may still share this exchange: no longer once
            /// it has its answer, or once every caller has cancelled.
            var joinable = true
            /// The exchange, once its starter has begun it.
            var exchange: Promise<HTTPResponse>?
        }

        let state = Locked(State())
        /// The exchange's answer, which every caller's promise takes.
        let answer = Promise<HTTPResponse>.pending()
    }

    private let inFlight = Locked<[String: Shared]>([:])

    /// The key of `request`: method, URL and every header field, names in lower case, but
    /// the trace context, which names the caller rather than what it asks for.
    static func key(of request: ValidatedRequest) -> String {
        let fields = request.request.headers.map { ($0.name.lowercased(), $0.value) }
            .filter { $0.0 != "traceparent" && $0.0 != "tracestate" }.map { "\($0.0): \($0.1)" }
        return ([request.method.rawValue, request.url.absoluteString] + fields.sorted()).joined(separator: "\n")
    }

    /// How many callers wait for exchanges in flight.
    var waitingCallers: Int {
        inFlight.withLock { Array($0.values) }.reduce(0) { total, shared in total + shared.state.withLock { $0.waiting }
        }
    }

    /// A promise of the answer to the request `key` names, of this caller's own: the answer
    /// of the identical exchange in flight, or of the one `start` begins, which identical
    /// requests share until it is answered.
    func join(_ key: String, start: () -> Promise<HTTPResponse>) -> Promise<HTTPResponse> {
        let (shared, starts) = inFlight.withLock { inFlight -> (Shared, Bool) in
            if let shared = inFlight[key],
                shared.state.withLock({ state in
                    guard state.joinable else { return false }
                    state.waiting += 1
                    return true
                })
            {
                return (shared, false)
            }
            let shared = Shared()
            inFlight[key] = shared
            return (shared, true)
        }
        let caller = Promise<HTTPResponse>.pending()
        // Derived from the shared answer, never cancelled: a caller's cancellation stays its own.
        _ = shared.answer.mapResultInline { result in caller.resolve(result) }
        caller.onCancel { self.leave(shared, key: key) }
        if starts {
            let exchange = start()
            let abandoned = shared.state.withLock { state in
                state.exchange = exchange
                return state.waiting == 0
            }
            if abandoned { exchange.cancel() }
            _ = exchange.mapResultInline { result in
                self.forget(shared, key: key)
                shared.answer.resolve(result)
            }
        }
        return caller
    }

    /// A caller cancelled: the last one out cancels the exchange.
    private func leave(_ shared: Shared, key: String) {
        let exchange = shared.state.withLock { state -> Promise<HTTPResponse>?? in
            state.waiting -= 1
            guard state.waiting == 0, state.joinable else { return nil }
            state.joinable = false
            return .some(state.exchange)
        }
        guard let exchange else { return }
        forget(shared, key: key)
        exchange?.cancel()
    }

    /// Takes `shared` out of the exchanges to join.
    private func forget(_ shared: Shared, key: String) {
        shared.state.withLock { $0.joinable = false }
        inFlight.withLock { inFlight in
            if inFlight[key] === shared { inFlight[key] = nil }
        }
    }
}
