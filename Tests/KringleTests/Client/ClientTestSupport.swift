import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Helpers for the client tests. Names are distinct from the cookie tests' `TestSupport`, since
// both folders live in the one `KringleTests` module.

/// The transports the LoopbackServer integration tests run against. A new adapter joins every
/// parameterised test by adding one case here.
enum TransportUnderTest: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case curl

    /// A fresh transport (its own session and connection pool).
    func make() -> any Transport {
        switch self {
        case .urlSession: return URLSessionTransport()
        case .curl: return CurlTransport()
        }
    }

    /// A client on a fresh transport, configured by `configure`.
    func client(_ configure: (inout NetworkClient.Configuration) -> Void = { _ in }) -> NetworkClient {
        var configuration = NetworkClient.Configuration()
        configure(&configuration)
        return NetworkClient(configuration: configuration, transport: make())
    }

    /// A client on a fresh transport whose `timeout` runs on `clock`.
    func client(timeout: TimeInterval, clock: ManualClock) -> NetworkClient {
        client {
            $0.timeout = timeout
            $0.clock = clock
        }
    }

    var testDescription: String { rawValue }
}

/// An endpoint built from parts, so each test states exactly what it asks for.
struct ClientTestEndpoint: Endpoint {
    var baseURL: URL
    var path: String
    var queryItems: [URLQueryItem] = []
    var headers: [String: String] = [:]
    var credentialHeaders: Set<String> = []
    var coalesces = true
    var allowsCoalescing: Bool { coalesces }
}

/// A small payload for typed requests and responses.
struct ClientCat: Codable, Sendable, Equatable {
    var name: String
    var mood: String
}

/// The error payload of the test APIs.
struct ClientAPIProblem: Codable, Sendable, Equatable {
    var error: String
}

/// What the echo servers report back about the request they received.
struct EchoedRequest: Codable, Sendable, Equatable {
    var method: String
    var target: String
    var body: String
    var contentType: String?
}

extension LoopbackServer {
    /// An endpoint on this server (`http://127.0.0.1:<port>` plus `path`).
    func clientEndpoint(
        _ path: String,
        query: [URLQueryItem] = [],
        headers: [String: String] = [:]
    ) -> ClientTestEndpoint {
        ClientTestEndpoint(baseURL: baseURL, path: path, queryItems: query, headers: headers)
    }

    /// The same server reached as `localhost`: a different origin (and cookie host) than
    /// `127.0.0.1`, on the same port.
    var localhostURL: URL {
        URL(string: "http://localhost:\(port)") ?? baseURL
    }

    /// ``waitForStatistics(timeout:until:)`` on a thread of its own (``onOwnThread(_:)``), so
    /// that waiting never holds one of Swift concurrency's cooperative threads.
    func awaitStatistics(
        within seconds: TimeInterval = 15,
        until condition: @escaping @Sendable (Statistics) -> Bool
    ) async -> Bool {
        await onOwnThread { waitForStatistics(timeout: seconds, until: condition) }
    }

    /// A server that answers every request with a JSON ``EchoedRequest``.
    static func echoing(status: Int = 200) throws -> LoopbackServer {
        try LoopbackServer { request in
            echo(request, status: status)
        }
    }

    /// The JSON ``EchoedRequest`` response for `request`.
    static func echo(_ request: Request, status: Int = 200) -> Response {
        let echoed = EchoedRequest(
            method: request.method,
            target: request.target,
            body: request.bodyText,
            contentType: request.header("Content-Type")
        )
        let body = (try? JSONEncoder().encode(echoed)) ?? Data()
        return Response(status: status, headers: [("Content-Type", "application/json")], body: body)
    }
}

/// The requests a server handler saw, in arrival order.
final class ReceivedRequests: Sendable {
    private let recorder = Recorder<LoopbackServer.Request>()

    func append(_ request: LoopbackServer.Request) {
        recorder.append(request)
    }

    var all: [LoopbackServer.Request] {
        recorder.elements
    }
}

extension Promise {
    /// The outcome, moving `clock` on by `step` each time the code under test waits on it
    /// (a timeout armed, a backoff delay scheduled) until the promise settles: retries and
    /// time-outs run without sleeping. At most `rounds` steps.
    func outcome(
        advancing clock: ManualClock,
        by step: TimeInterval,
        rounds: Int = 50
    ) async -> Result<Value, any Error> {
        for _ in 0..<rounds where isPending {
            guard await eventually({ !self.isPending || clock.pendingTimers > 0 }) else { break }
            clock.advance(by: step)
        }
        return await outcome()
    }

    /// The outcome once `clock` reaches `seconds` from now, after checking that the promise
    /// is still pending a millisecond before: a timer that fires neither early nor late.
    func outcome(
        at seconds: TimeInterval,
        on clock: ManualClock,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Result<Value, any Error> {
        clock.advance(by: seconds - 0.001)
        #expect(isPending, "settled before its time", sourceLocation: sourceLocation)
        clock.advance(by: 0.001)
        return await outcome()
    }
}

extension Result {
    /// The error of a failure, or `nil`.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// The ``KringleError`` of a failure, or `nil`.
    var kringleError: KringleError? {
        failure as? KringleError
    }

    /// Whether this is a rejection with ``PromiseError/cancelled``.
    var isCancellation: Bool {
        failure?.isCancellation == true
    }

    /// The status code of an ``KringleError/unacceptableStatusCode(_:_:)`` failure, or `nil`.
    var rejectedStatus: Int? {
        if case .unacceptableStatusCode(let status, _)? = kringleError { return status }
        return nil
    }
}

extension KringleError {
    /// The case name, for readable expectations (`#expect(error?.caseName == "timedOut")`).
    var caseName: String {
        kind.rawValue
    }
}

/// A URL from a literal; records an issue (instead of trapping) when it is invalid.
func clientURL(_ string: String, sourceLocation: SourceLocation = #_sourceLocation) -> URL {
    guard let url = URL(string: string) else {
        Issue.record("invalid URL literal \(string)", sourceLocation: sourceLocation)
        return URL(fileURLWithPath: "/")
    }
    return url
}

/// `count` bytes in which no 64 KiB block repeats another (below 4 GiB), cheap to make.
///
/// A plain loop over raw bytes: building a body with `(0..<count).map { … }` costs a generic
/// call per byte in a debug build, and under ThreadSanitizer connection threads doing so at
/// once contend on a run-time lock per byte, which held an 8 MB body back for minutes.
func patternedData(count: Int) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
        var index = 0
        while index < count {
            bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8 &+ index >> 16 &+ index >> 24)
            index += 1
        }
    }
    return data
}

/// An endpoint nothing listens on: port 1 of 127.0.0.1 (tcpmux, never served here), which
/// refuses at once. Not a port a test server just gave up: another test's server, started in
/// parallel, may be handed that port next.
func refusedEndpoint(_ path: String, query: [URLQueryItem] = []) -> ClientTestEndpoint {
    ClientTestEndpoint(baseURL: URL(string: "http://127.0.0.1:1")!, path: path, queryItems: query)
}

/// Times a promise from its creation to its settlement, noting the settlement on a queue of
/// its own, so that a busy test runner resuming the test late does not count.
enum SettlementTimer {
    private static let queue = DispatchQueue(label: "kringle.tests.settlement-timer", qos: .userInteractive)

    static func measure<Value>(
        within seconds: TimeInterval = 30,
        _ start: () -> Promise<Value>
    ) async -> (Result<Value, any Error>, Duration) {
        let clock = ContinuousClock()
        let settledAt = Box<ContinuousClock.Instant?>(nil)
        let began = clock.now
        let promise = start()
        let observed = promise.always(on: queue) { settledAt.withLock { $0 = clock.now } }
        let outcome = await observed.outcome(within: seconds)
        let end = settledAt.withLock { $0 } ?? clock.now
        return (outcome, end - began)
    }
}
