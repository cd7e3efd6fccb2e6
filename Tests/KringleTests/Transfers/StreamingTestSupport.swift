import Foundation
import Kringle
import KringleTesting
import Synchronization
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
import KringleTestSupport
#endif

// Helpers for the large-body (download, upload, multipart) tests. Every name starts with
// `Streaming`, since all test folders share the one `KringleTests` module.

/// A fresh directory for one test's files; `remove()` deletes it and everything in it.
///
/// Its name carries the process ID, so a directory left behind by a test process that died
/// (several people run this suite on one machine) can be told from a leak.
struct StreamingScratchDirectory: Sendable {
    /// The directory.
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("kringle-streaming-tests-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A file in the directory (not created).
    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    /// Writes `data` to a file in the directory and returns its URL.
    @discardableResult
    func write(_ data: Data, to name: String) throws -> URL {
        let file = file(name)
        try data.write(to: file)
        return file
    }

    /// The names of the files in the directory, hidden ones included, sorted.
    var entries: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    /// Temporary download files (`*.kringle-download`) left in the directory.
    var temporaryDownloads: [String] {
        entries.filter { $0.hasSuffix(".kringle-download") }
    }

    /// Deletes the directory. A file appearing while it is deleted (something still writing
    /// after the test is over) makes that fail: it is then recorded as an issue, and the
    /// directory deleted again.
    func remove(sourceLocation: SourceLocation = #_sourceLocation) {
        try? FileManager.default.removeItem(at: url)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        Issue.record("\(url.lastPathComponent) still held \(entries) after the test", sourceLocation: sourceLocation)
        try? FileManager.default.removeItem(at: url)
    }
}

/// The contents of a file, or `nil` when there is none.
func streamingContents(of url: URL) -> Data? {
    try? Data(contentsOf: url)
}

/// An identifier of the calling thread.
func streamingCurrentThreadID() -> UInt {
    #if canImport(Darwin)
    return UInt(bitPattern: pthread_self())
    #else
    return UInt(pthread_self())
    #endif
}

// MARK: - Transports

/// A transport that implements only ``Transport/send(_:)``, so every transfer goes through
/// the buffering default of ``Transport/transfer(_:)``.
struct StreamingSendOnlyTransport: Transport {
    let base: any Transport

    func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        base.send(request)
    }
}

/// Which threads are inside a transport's progress report right now.
final class StreamingTransportThreads: Sendable {
    private let inside = Box<[UInt: Int]>([:])
    private let reports = Atomic(0)

    /// Runs `body` (the client's progress closure) marked as running on the transport's thread.
    func report(_ body: () -> Void) {
        let thread = streamingCurrentThreadID()
        reports.add(1, ordering: .relaxed)
        inside.withLock { $0[thread, default: 0] += 1 }
        defer { inside.withLock { $0[thread, default: 1] -= 1 } }
        body()
    }

    /// Whether the calling thread is inside a transport's progress report.
    var isCurrentThreadInside: Bool {
        let thread = streamingCurrentThreadID()
        return inside.withLock { ($0[thread] ?? 0) > 0 }
    }

    /// How many progress reports the transport made.
    var reportCount: Int {
        reports.load(ordering: .relaxed)
    }
}

/// Wraps a transport and marks the threads it reports progress on, so a test can tell
/// whether a user's progress callback runs inside the transport's report.
struct StreamingProbeTransport: Transport {
    let base: any Transport
    let threads: StreamingTransportThreads

    func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        base.send(request)
    }

    func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
        var probed = transfer
        if let progress = transfer.progress {
            let threads = threads
            probed.progress = { report in
                threads.report { progress(report) }
            }
        }
        return base.transfer(probed)
    }
}

extension TransportUnderTest {
    /// A client on a fresh transport wrapped by `wrap`, configured by `configure`.
    func streamingClient(
        wrapping wrap: (any Transport) -> any Transport = { $0 },
        _ configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration()
        configure(&configuration)
        return NetworkClient(configuration: configuration, transport: wrap(make()))
    }
}

// MARK: - Progress

/// Records the progress callbacks of one transfer: values, times, threads.
final class StreamingProgressLog: Sendable {
    struct Entry: Sendable {
        var progress: TransferProgress
        var time: ContinuousClock.Instant
        var thread: UInt
        /// Whether the callback ran inside the transport's own progress report.
        var insideTransport: Bool
    }

    private let entries = Box<[Entry]>([])
    private let completed = Promise<Void>.pending()
    private let total: Int64
    private let transportThreads: StreamingTransportThreads?

    /// - Parameters:
    ///   - total: The byte count of the complete transfer: a callback with
    ///     `completedBytes == totalBytes == total` counts as the completion.
    ///   - transportThreads: The probe of the transport under test, if any.
    init(total: Int64, transportThreads: StreamingTransportThreads? = nil) {
        self.total = total
        self.transportThreads = transportThreads
    }

    /// The callback to hand to `download` or `upload`.
    var callback: @Sendable (TransferProgress) -> Void {
        { [self] progress in record(progress) }
    }

    private func record(_ progress: TransferProgress) {
        let entry = Entry(
            progress: progress,
            time: .now,
            thread: streamingCurrentThreadID(),
            insideTransport: transportThreads?.isCurrentThreadInside ?? false
        )
        entries.withLock { $0.append(entry) }
        if progress.completedBytes == total, progress.totalBytes == total { completed.fulfill(()) }
    }

    /// Whether the completion callback arrived within `seconds`.
    func awaitCompletion(within seconds: TimeInterval = 15) async -> Bool {
        (try? await completed.timeout(seconds).value) != nil
    }

    var all: [Entry] {
        entries.withLock { $0 }
    }

    var values: [TransferProgress] {
        all.map(\.progress)
    }

    /// Whether `completedBytes` never went down.
    var isMonotonic: Bool {
        let bytes = values.map(\.completedBytes)
        return zip(bytes, bytes.dropFirst()).allSatisfy { $0 <= $1 }
    }
}

/// Calls something from a thread of its own that then stays parked until ``release()``, so
/// that "the caller's thread" is a thread that can run nothing else meanwhile.
final class StreamingParkedCaller: Sendable {
    private let parked = DispatchSemaphore(value: 0)
    private let identifier = Box<UInt>(0)

    /// The caller thread's identifier (set once ``call(_:)`` has returned).
    var threadID: UInt {
        identifier.withLock { $0 }
    }

    /// Runs `body` on the parked thread and returns its result.
    func call<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread { [self] in
                identifier.withLock { $0 = streamingCurrentThreadID() }
                continuation.resume(returning: body())
                parked.wait()
            }.start()
        }
    }

    /// Lets the thread end.
    func release() {
        parked.signal()
    }
}

// MARK: - Payloads

/// What the upload test servers answer: what they received.
struct StreamingReceipt: Codable, Sendable, Equatable {
    var bytes: Int
}

extension LoopbackServer.Response {
    /// A JSON ``StreamingReceipt`` for `request`.
    static func streamingReceipt(for request: LoopbackServer.Request) -> Self {
        .json(#"{"bytes": \#(request.body.count)}"#)
    }
}

/// `count` pseudo-random bytes (a fixed-seed xorshift, so failures reproduce), made eight
/// bytes at a time.
func streamingRandomData(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
    var state = seed
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
        let words = count / 8
        let wordBuffer = raw.bindMemory(to: UInt64.self)
        for index in 0..<words {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            wordBuffer[index] = state
        }
        for index in (words * 8)..<count {
            raw[index] = UInt8(truncatingIfNeeded: state >> (8 * (index % 8)))
        }
    }
    return data
}

// MARK: - Crash containment

/// A download through a redirect whose body is not empty, for running in a child process.
///
/// FoundationNetworking traps (ending the process) on some inputs; a test that might meet
/// one runs the scenario in an exit test first, so a crash fails that test instead of
/// ending the whole test run.
enum StreamingCrashProbe {
    struct Mismatch: Error {}

    /// Downloads `/redirect` (a 302 with a 64 KB body) into `directory` with `transport`, and
    /// throws unless the file holds the target's body. The directory belongs to the parent
    /// process, which removes it even when this process dies.
    static func downloadThroughRedirect(transport name: String, into directory: String) async throws {
        guard let transport = TransportUnderTest(rawValue: name) else { throw Mismatch() }
        let file = streamingRandomData(count: 100_000, seed: 99)
        let server = try LoopbackServer { request in
            request.path == "/redirect"
                ? LoopbackServer.Response(status: 302, headers: [("Location", "/file")], body: Data(count: 65_536))
                : .data(file)
        }
        defer { server.shutdown() }
        let destination = URL(fileURLWithPath: directory).appendingPathComponent("file.bin")
        _ = try await transport.client().download(server.clientEndpoint("/redirect"), to: destination).valueWithin(20)
        guard streamingContents(of: destination) == file else { throw Mismatch() }
    }
}
