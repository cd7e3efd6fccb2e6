import Foundation
import Kringle
import Synchronization

/// What a soak phase saw of each request: when it was called, when the caller got its
/// result and which, and how many times the promise's handlers ran (exactly once, or the
/// promise is broken).
final class SoakRecorder: Sendable {
    private struct Request {
        var start: UInt64
        var end: UInt64?
        var succeeded = false
        var handlerRuns = 0
    }

    private struct State {
        var requests: [Request] = []
        var errorKinds: [String: Int] = [:]
        var untypedKinds: Set<String> = []
    }

    private let state = Mutex(State())

    /// Notes a request about to be made; returns its identifier.
    func begin() -> Int {
        let start = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            state.requests.append(Request(start: start))
            return state.requests.count - 1
        }
    }

    /// Notes that a handler of request `id`'s promise ran.
    func handlerRan(_ id: Int) {
        state.withLock { $0.requests[id].handlerRuns += 1 }
    }

    /// Notes the caller's result: `nil` for a value, else the error.
    func returned(_ id: Int, error: (any Error)?) {
        let end = DispatchTime.now().uptimeNanoseconds
        let kind = error.map(SoakErrorKind.init)
        state.withLock { state in
            state.requests[id].end = end
            state.requests[id].succeeded = error == nil
            if let kind {
                state.errorKinds[kind.name, default: 0] += 1
                if !kind.isTyped { state.untypedKinds.insert(kind.name) }
            }
        }
    }

    /// Makes one `get` of `endpoint` as a user would, with `call` (`await …value` or
    /// `wait()`), and records it.
    func record<Value: Sendable>(_ makePromise: () -> Promise<Value>, call: (Promise<Value>) throws -> Value) {
        let id = begin()
        let promise = makePromise()
        promise.always { self.handlerRan(id) }
        do {
            _ = try call(promise)
            returned(id, error: nil)
        } catch {
            returned(id, error: error)
        }
    }

    /// The same for a caller that awaits.
    func record<Value: Sendable>(
        _ makePromise: () -> Promise<Value>, call: (Promise<Value>) async throws -> Value
    ) async {
        let id = begin()
        let promise = makePromise()
        promise.always { self.handlerRan(id) }
        do {
            _ = try await call(promise)
            returned(id, error: nil)
        } catch {
            returned(id, error: error)
        }
    }

    /// The time of the first success that settled after `instant` (uptime nanoseconds).
    func firstSuccess(after instant: UInt64) -> UInt64? {
        state.withLock { state in
            state.requests.lazy.filter { $0.succeeded }.compactMap(\.end).filter { $0 > instant }.min()
        }
    }

    /// How many requests succeeded between two instants (uptime nanoseconds).
    func successes(between start: UInt64, and end: UInt64) -> Int {
        state.withLock { state in
            state.requests.count { request in
                request.succeeded && request.end.map { $0 > start && $0 < end } == true
            }
        }
    }

    /// The tally once every handler has had up to 2 s to run: a promise's handler may run
    /// just after its caller got the result.
    func settledTally(bound: Double) -> SoakTally {
        var tally = tally(bound: bound)
        for _ in 0..<40 where tally.handlerNeverRan > 0 {
            Thread.sleep(forTimeInterval: 0.05)
            tally = self.tally(bound: bound)
        }
        return tally
    }

    /// The tally, settlements later than `bound` seconds counted as late.
    func tally(bound: Double) -> SoakTally {
        state.withLock { state in
            var tally = SoakTally(
                requests: state.requests.count, errorKinds: state.errorKinds, untypedKinds: state.untypedKinds)
            for request in state.requests {
                guard let end = request.end else {
                    tally.neverSettled += 1
                    continue
                }
                if request.succeeded { tally.successes += 1 }
                let seconds = Double(end - request.start) / 1e9
                tally.slowest = max(tally.slowest, seconds)
                if seconds > bound { tally.late += 1 }
                if request.handlerRuns == 0 { tally.handlerNeverRan += 1 }
                if request.handlerRuns > 1 { tally.settledTwice += 1 }
            }
            return tally
        }
    }
}

/// The counts a phase reports.
struct SoakTally {
    var requests = 0
    var successes = 0
    var errorKinds: [String: Int] = [:]
    var untypedKinds: Set<String> = []
    /// The caller never got a result.
    var neverSettled = 0
    /// The caller got a result, but the promise's handler never ran.
    var handlerNeverRan = 0
    /// A handler of the promise ran more than once.
    var settledTwice = 0
    /// The slowest settlement, in seconds from the call.
    var slowest = 0.0
    /// Settlements later than the bound.
    var late = 0

    var successRate: Double { requests == 0 ? 0 : Double(successes) / Double(requests) }
}

/// A failure's name for grouping like failures: a `KringleError` case (with the transport's
/// own code under `transport`), a `PromiseError`, or the type of anything else, which is
/// "untyped": the library promises only its own two error types.
struct SoakErrorKind {
    var name: String
    var isTyped: Bool

    init(_ error: any Error) {
        if let error = error as? KringleError {
            isTyped = true
            if case .transport(let underlying) = error {
                name = "KringleError.transport(\(Self.transportName(underlying)))"
            } else if case .timedOut = error {
                name = "KringleError.timedOut"
            } else {
                // The case's name, without its payload (a URL, a response).
                let label = Mirror(reflecting: error).children.first?.label ?? "\(error)"
                name = "KringleError.\(label)"
            }
        } else if let error = error as? PromiseError {
            isTyped = true
            name = "PromiseError: \(error)"
        } else {
            isTyped = false
            name = "untyped \(type(of: error)): \(Self.transportName(error))"
        }
    }

    private static func transportName(_ error: any Error) -> String {
        switch error {
        case let curl as CurlError: "curl \(curl.code)"
        case let url as URLError: "URLError \(url.code.rawValue)"
        default: "\((error as NSError).domain) \((error as NSError).code)"
        }
    }
}
