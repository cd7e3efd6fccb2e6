import Foundation
import Kringle
import NginxTestServer

/// `kringle-benchmarks speed-guard [done|wait] [count]`: the requests whose instructions
/// `Scripts/speed-guard.sh` counts under callgrind, the default client called as the README
/// calls it.
///
/// `NetworkClient()` (so `CurlTransport` on Linux) sends `count` GETs of the overhead
/// benchmark's 200-byte JSON, one after another, each decoded into a struct: in the `done`
/// style (the default) with `client.get(endpoint, as:)` and `done`/`catch` handlers, in the
/// `wait` style with `try client.get(endpoint, as:).wait()`. The server is nginx, in a
/// process of its own, which callgrind does not follow (no `--trace-children`): only the
/// client's instructions are counted, on every thread of this process.
///
/// The measured requests lie between two calls of `kringle_speed_guard_checkpoint`, a C
/// symbol callgrind is told to dump its counters before (`--dump-before`), so that the
/// second dump holds the measured requests and nothing else: not the start of the process,
/// nginx's start or the warm-up (first connection, lazy initialisation), which come before
/// the first dump, nor the shutdown, after the second. Every request must succeed: a failed
/// request costs less, and would pass for a speed-up.
func runSpeedGuard(_ arguments: [String]) throws -> Int32 {
    guard let style = SpeedGuard.Style(rawValue: arguments.first ?? SpeedGuard.Style.done.rawValue),
        let count = arguments.count > 1 ? Int(arguments[1]) : SpeedGuard.defaultCount, count > 0,
        arguments.count <= 2
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
    let client = NetworkClient()
    let warmUpFailures = SpeedGuard.requests(SpeedGuard.warmUp, style: style, client: client, endpoint: endpoint)
    kringleSpeedGuardCheckpoint()
    let failures = SpeedGuard.requests(count, style: style, client: client, endpoint: endpoint)
    kringleSpeedGuardCheckpoint()
    guard warmUpFailures + failures == 0 else {
        print("speed-guard: \(warmUpFailures + failures) of \(SpeedGuard.warmUp + count) requests failed")
        return 1
    }
    print("speed-guard: \(count) GETs in the \(style.rawValue) style after \(SpeedGuard.warmUp) unmeasured")
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

enum SpeedGuard {
    /// Measured requests per run: the per-request count is the dump's total divided by it.
    static let defaultCount = 200
    /// Unmeasured requests first: the connection, the transport's driving thread, lazily
    /// built state and the first use of each code path.
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
        var description: String { "usage: kringle-benchmarks speed-guard [done|wait] [count]" }
    }

    /// Sends `count` GETs one after another in `style`; returns how many failed.
    static func requests(_ count: Int, style: Style, client: NetworkClient, endpoint: BenchmarkEndpoint) -> Int {
        var failures = 0
        for _ in 0..<count {
            switch style {
            case .done:
                let finished = DispatchSemaphore(value: 0)
                let succeeded = Locked(false)
                client.get(endpoint, as: Overhead.Item.self)
                    .done { item in
                        succeeded.set(item.id == 12_345)
                        finished.signal()
                    }
                    .catch { _ in finished.signal() }
                finished.wait()
                if !succeeded.get() { failures += 1 }
            case .wait:
                if (try? client.get(endpoint, as: Overhead.Item.self).wait())?.id != 12_345 { failures += 1 }
            }
        }
        return failures
    }
}
