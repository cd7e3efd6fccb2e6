import Foundation
import Kringle
import NginxTestServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `kringle-benchmarks speed-guard [done|wait] [count] [rounds]`: the requests whose
/// instructions `Scripts/speed-guard.sh` counts under callgrind, the default client called as
/// the README calls it, and its transport alone doing the same exchange.
///
/// Two workloads share one process, one server and one transport:
/// - the client: `NetworkClient()` (so `CurlTransport` on Linux) getting the overhead
///   benchmark's 200-byte JSON, decoded into a struct, in the `done` style (the default) with
///   `client.get(endpoint, as:)` and `done`/`catch` handlers, or in the `wait` style with
///   `try client.get(endpoint, as:).wait()`;
/// - the transport alone: the same transport's `send` of the GET the client sends (its
///   default header fields included, validated once), completed the same way (`done`/`catch`,
///   or `wait()`), the response decoded with `JSONDecoder` where the user's code gets it.
/// Kringle's own cost is the difference: the client's pipeline, its decode step and the
/// promises between them, and nothing the transport, libcurl or the decoder do for either.
///
/// The server is nginx, in a process of its own, which callgrind does not follow (no
/// `--trace-children`): only this process's instructions are counted, on all its threads.
/// `count` requests of each workload are measured in `rounds` blocks that take turns, client
/// first, each block between two calls of `kringle_speed_guard_checkpoint`, a C symbol
/// callgrind is told to dump its counters before (`--dump-before`). So dump 1 holds the start
/// of the process, nginx's start and the warm-up (first connection, lazy initialisation), dumps
/// 2, 4, … the client's blocks, dumps 3, 5, … the transport's, and the last one the
/// shutdown. Taking turns puts both workloads in the same state of the process (its heap, its
/// connection, its threads) rather than one before the other; each block ends with a pause
/// (`settleBeforeCheckpoint`). Every request must succeed: a failed request costs less, and
/// would pass for a speed-up.
func runSpeedGuard(_ arguments: [String]) throws -> Int32 {
    guard arguments.count <= 3,
        let style = SpeedGuard.Style(rawValue: arguments.first ?? SpeedGuard.Style.done.rawValue),
        let count = arguments.count > 1 ? Int(arguments[1]) : SpeedGuard.defaultCount,
        let rounds = arguments.count > 2 ? Int(arguments[2]) : SpeedGuard.defaultRounds,
        rounds > 0, count >= rounds
    else { throw SpeedGuard.Usage() }
    let nginx: NginxServer
    switch NginxServer.start(serving: CurlBenchmark.payload) {
    case .success(let server): nginx = server
    case .failure(let reason):
        print("speed-guard: needs nginx, so that the server's instructions are not counted: \(reason)")
        return 1
    }
    defer { nginx.stop() }
    let endpoint = BenchmarkEndpoint(baseURL: nginx.url.deletingLastPathComponent(), path: nginx.url.lastPathComponent)
    // What `NetworkClient()` makes, with its transport at hand for the baseline.
    let transport = NetworkClient.makeDefaultTransport()
    let client = NetworkClient(transport: transport)
    let workloads = [
        SpeedGuard.Workload.client(client, endpoint),
        .transport(transport, try SpeedGuard.request(for: nginx.url)),
    ]
    var failures = workloads.reduce(0) { $0 + $1.requests(SpeedGuard.warmUp, style: style) }
    for round in 0..<rounds {
        // Spread the requests over the rounds; both workloads get the same number in each.
        let size = count / rounds + (round < count % rounds ? 1 : 0)
        for workload in workloads {
            settleBeforeCheckpoint()
            kringleSpeedGuardCheckpoint()
            failures += workload.requests(size, style: style)
        }
    }
    settleBeforeCheckpoint()
    kringleSpeedGuardCheckpoint()
    guard failures == 0 else {
        print("speed-guard: \(failures) of \(2 * (SpeedGuard.warmUp + count)) requests failed")
        return 1
    }
    print(
        "speed-guard: \(count) GETs through the client and \(count) through its transport alone, in the"
            + " \(style.rawValue) style, in \(rounds) rounds, after \(SpeedGuard.warmUp) unmeasured of each")
    return 0
}

/// The point callgrind dumps its counters before (`--dump-before=*SpeedGuardCheckpoint*`: Swift
/// calls the mangled function, not the C name, and its mangling folds a word the module name
/// shares, `kringle`, so the pattern names only what stays); never inlined, so that the call
/// stays where it is written; it flushes the output streams, a side effect the
/// optimiser cannot drop (nothing is buffered there at a checkpoint: no system call).
@_cdecl("kringle_speed_guard_checkpoint")
@inline(never)
func kringleSpeedGuardCheckpoint() {
    fflush(nil)
}

/// Lets the threads that finish a block's last request (the handler's thread releasing its
/// promises, the transport's driving thread) finish before the checkpoint, so that their work
/// is counted with the block it belongs to, not the next one, which may be the other
/// workload's: without the pause Kringle's own cost (`done` style) moved by 2.5% from run to
/// run, with it by 1.4%. Under valgrind, 10 ms of sleep leave the other threads ample time,
/// and sleeping costs a few hundred instructions.
func settleBeforeCheckpoint() {
    usleep(10_000)
}

enum SpeedGuard {
    /// Measured requests of each workload per run: the per-request counts are the dumps'
    /// totals divided by it.
    static let defaultCount = 200
    /// Blocks of each workload per run.
    static let defaultRounds = 4
    /// Unmeasured requests of each workload first: the connection, the transport's driving
    /// thread, lazily built state and the first use of each code path.
    static let warmUp = 20

    /// How each request is completed.
    enum Style: String {
        /// `get(…).done { }.catch { }`, the README's style; this thread waits for the handler.
        case done
        /// `try get(…).wait()`, the README's style in a script.
        case wait
    }

    /// Bad arguments.
    struct Usage: Error, CustomStringConvertible {
        var description: String { "usage: kringle-benchmarks speed-guard [done|wait] [count] [rounds]" }
    }

    /// The GET the client sends for the endpoint at `url`: its default header fields, checked
    /// once, as the client checks what it sends.
    static func request(for url: URL) throws -> ValidatedRequest {
        var request = HTTPRequest(url: url)
        for (name, value) in NetworkClient.Configuration().defaultHeaders {
            request.headers[name] = value
        }
        return try ValidatedRequest(request)
    }

    /// What sends the measured requests.
    enum Workload {
        /// The client, as the README calls it.
        case client(NetworkClient, BenchmarkEndpoint)
        /// The client's transport alone, and what the user's code decodes itself.
        case transport(any Transport, ValidatedRequest)

        private static let decoder = JSONDecoder()

        /// Sends `count` GETs one after another in `style`; returns how many failed.
        func requests(_ count: Int, style: Style) -> Int {
            var failures = 0
            for _ in 0..<count where !succeeds(style) { failures += 1 }
            return failures
        }

        private func succeeds(_ style: Style) -> Bool {
            switch (self, style) {
            case (.client(let client, let endpoint), .done):
                return Self.handled { succeeded, finished in
                    client.get(endpoint, as: Overhead.Item.self)
                        .done { item in
                            succeeded.set(item.id == 12_345)
                            finished.signal()
                        }
                        .catch { _ in finished.signal() }
                }
            case (.client(let client, let endpoint), .wait):
                return (try? client.get(endpoint, as: Overhead.Item.self).wait())?.id == 12_345
            case (.transport(let transport, let request), .done):
                return Self.handled { succeeded, finished in
                    transport.send(request)
                        .done { response in
                            succeeded.set(try Self.decode(response).id == 12_345)
                            finished.signal()
                        }
                        .catch { _ in finished.signal() }
                }
            case (.transport(let transport, let request), .wait):
                return (try? Self.decode(transport.send(request).wait()))?.id == 12_345
            }
        }

        /// Starts a request with `start`, whose handlers set `succeeded` and signal `finished`,
        /// and waits for them; whether it succeeded.
        private static func handled(_ start: (_ succeeded: Locked<Bool>, _ finished: DispatchSemaphore) -> Void) -> Bool
        {
            let finished = DispatchSemaphore(value: 0)
            let succeeded = Locked(false)
            start(succeeded, finished)
            finished.wait()
            return succeeded.get()
        }

        /// The user's decode of what the transport alone got: what the client checks (a
        /// success status) and decodes.
        private static func decode(_ response: HTTPResponse) throws -> Overhead.Item {
            guard response.statusCode == 200 else { throw URLError(.badServerResponse) }
            return try decoder.decode(Overhead.Item.self, from: response.body)
        }
    }
}
