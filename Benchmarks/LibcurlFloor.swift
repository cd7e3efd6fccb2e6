import CurlFloor
import Foundation
import Kringle

/// libcurl alone (Benchmarks/CurlFloor): the request the client sends, `count` times, each
/// body decoded as the client decodes it, with no Kringle code, in three forms:
///
/// - ``run(_:count:inFlight:)``: one at a time on one easy handle, or `inFlight` at once on a
///   multi handle, each body decoded on the thread that runs curl: the floor of a program that
///   does its work where the answer lands (`done`).
/// - ``runWaiting(_:count:on:)``: each of `inFlight` blocked threads with an easy handle of its
///   own, waiting in `curl_easy_perform`: the floor of threads that block until their answer is
///   in (`wait()`). With several threads, each answer wakes the thread that waits for it, where
///   one multi handle on one thread finds the next answer ready without sleeping.
/// - ``runAwaited(_:count:inFlight:)``: the same loops as `run`, each decoded answer resuming
///   one of `inFlight` tasks that await them: the floor of `await`. A task's thread belongs
///   to Swift's pool and must not block on a socket, so each answer costs a wake-up of a pool
///   thread besides the one that read it.
enum LibcurlFloor {
    /// Why libcurl could not be opened, or `nil` once it is (opened on first use).
    static let loadFailure: String? = {
        var error = [CChar](repeating: 0, count: 512)
        guard cfl_load(&error, error.count) != 1 else { return nil }
        return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    /// Sends `request`'s URL and header fields; returns how many requests failed (all of them
    /// when libcurl could not be opened).
    static func run(_ request: HTTPRequest, count: Int, inFlight: Int) -> Int {
        guard loadFailure == nil else { return count }
        return withCurlArguments(request) { url, headers, headerCount in
            let failed =
                inFlight == 1
                ? cfl_sequential(url, headers, headerCount, Int32(count), decode, nil)
                : cfl_multi(url, headers, headerCount, Int32(count), Int32(inFlight), decode, nil)
            return Int(failed)
        }
    }

    /// `request` from each of `lanes`' threads, each on an easy handle of its own.
    static func runWaiting(_ request: HTTPRequest, count: Int, on lanes: BlockedLanes) -> Int {
        guard loadFailure == nil else { return count }
        let handles = withCurlArguments(request) { url, headers, headerCount in
            (0..<lanes.count).map { _ in Handle(pointer: cfl_open(url, headers, headerCount)) }
        }
        defer { for handle in handles { handle.pointer.map { cfl_close($0) } } }
        return lanes.run(count: count) { lane in
            guard let pointer = handles[lane].pointer else { return false }
            return cfl_get(pointer, decode, nil) == 1
        }
    }

    /// `request` sent as ``run(_:count:inFlight:)`` sends it, each decoded answer handed to one
    /// of `inFlight` tasks in turn, which await their share.
    static func runAwaited(_ request: HTTPRequest, count: Int, inFlight: Int) -> Int {
        guard loadFailure == nil else { return count }
        let answers = AwaitedAnswers(lanes: inFlight)
        let finished = DispatchSemaphore(value: 0)
        Task {
            await withTaskGroup(of: Void.self) { group in
                for lane in 0..<inFlight {
                    group.addTask {
                        for _ in stride(from: lane, to: count, by: inFlight) { await answers.next(lane: lane) }
                    }
                }
            }
            finished.signal()
        }
        let context = Unmanaged.passUnretained(answers).toOpaque()
        let failed = withCurlArguments(request) { url, headers, headerCount in
            inFlight == 1
                ? cfl_sequential(url, headers, headerCount, Int32(count), decodeAndHandOver, context)
                : cfl_multi(url, headers, headerCount, Int32(count), Int32(inFlight), decodeAndHandOver, context)
        }
        // curl calls the handler only for answers that arrived: the tasks are owed the rest.
        answers.handOver(upTo: count)
        finished.wait()
        return Int(failed)
    }

    /// An easy handle that one lane uses at a time (`@unchecked`: a pointer, which only the
    /// lane it belongs to touches between `cfl_open` and `cfl_close`).
    private struct Handle: @unchecked Sendable {
        let pointer: OpaquePointer?
    }

    /// `request`'s URL and header lines as C strings, for the length of `body`.
    private static func withCurlArguments<Result>(
        _ request: HTTPRequest,
        _ body: (String, UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> Result
    ) -> Result {
        let lines = request.headers.map { "\($0.name): \($0.value)" }
        let pointers = lines.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        let constant: [UnsafePointer<CChar>?] = pointers.map { $0.map { UnsafePointer($0) } }
        return constant.withUnsafeBufferPointer { body(request.url.absoluteString, $0.baseAddress, Int32(lines.count)) }
    }

    /// Decodes one body as the client's `get(…, as:)` does: into `Data`, then `JSONDecoder`.
    private static let decode: cfl_body_handler = { bytes, length, _ in
        decodes(bytes, length) ? 1 : 0
    }

    /// Decodes one body, then resumes the task awaiting it (the context is the
    /// ``AwaitedAnswers``).
    private static let decodeAndHandOver: cfl_body_handler = { bytes, length, context in
        let decoded = decodes(bytes, length)
        if let context { Unmanaged<AwaitedAnswers>.fromOpaque(context).takeUnretainedValue().handOver() }
        return decoded ? 1 : 0
    }

    /// Whether `length` bytes decode, read as the client reads a body.
    private static func decodes(_ bytes: UnsafePointer<CChar>?, _ length: Int) -> Bool {
        guard let bytes else { return false }
        let body = Data(bytes: bytes, count: length)
        return (try? Overhead.decoder.decode(Overhead.Item.self, from: body)) != nil
    }
}
