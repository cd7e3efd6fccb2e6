import Foundation
import Kringle
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A one-trick HTTP/1.1 server on 127.0.0.1 that sends a response body in timed steps.
///
/// `LoopbackServer` writes a body all at once (after an optional delay), so it cannot show
/// a transfer that keeps going, or one that stalls after the first bytes. This server can:
/// it answers every request with the same script — the header section with the full
/// `Content-Length`, then each step's bytes followed by its pause — and then either closes
/// or holds the connection open, sending nothing more, until the client hangs up.
///
/// Pauses are spent in `poll(2)` on the connection, so a client that gives up is noticed at
/// once and reported through ``peerHungUp``.
final class StreamingPacedServer: Sendable {
    /// Some bytes, then a pause before the next step.
    struct Step: Sendable {
        var bytes: Data
        var pauseAfter: TimeInterval
    }

    /// What happens after the last step.
    enum Ending: Sendable {
        /// Close the connection (the body is complete when the steps add up to it).
        case close
        /// Send nothing more and keep the connection open until the client hangs up (or the
        /// server shuts down): a stalled transfer.
        case holdUntilHangUp
    }

    /// The port the server listens on.
    let port: Int
    /// `http://127.0.0.1:<port>`.
    let baseURL: URL
    /// Fulfilled the first time a client hangs up before the script is over.
    let peerHungUp = Promise<Void>.pending()

    private let listener: Int32
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)
    private let heads = Mutex<[String]>([])

    /// Starts serving `steps` (whose bytes make up a body of `contentLength` bytes) to every
    /// request, on a thread of its own.
    init(contentLength: Int, steps: [Step], ending: Ending) throws {
        let (listener, port) = try Self.makeListener()
        self.listener = listener
        self.port = port
        baseURL = URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: \(contentLength)\r\nConnection: close\r\n\r\n"
        Thread { [self] in
            serve(head: Data(head.utf8), steps: steps, ending: ending)
            finished.signal()
        }.start()
    }

    /// The request heads received so far (request line and header fields), in order.
    var requestHeads: [String] {
        heads.withLock { $0 }
    }

    /// Stops serving and waits for the server thread to finish (at most a few seconds).
    /// Call it when done (`defer`): the serving thread keeps the server alive until then.
    func shutdown() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        _ = finished.wait(timeout: .now() + 5)
        close(listener)
    }

    // MARK: - Serving

    private func serve(head: Data, steps: [Step], ending: Ending) {
        while !stopping.load(ordering: .sequentiallyConsistent) {
            guard Self.waitReadable(listener, milliseconds: 50) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            answer(connection, head: head, steps: steps, ending: ending)
            close(connection)
        }
    }

    private func answer(_ connection: Int32, head: Data, steps: [Step], ending: Ending) {
        guard let requestHead = readHead(connection) else { return }
        heads.withLock { $0.append(requestHead) }
        guard Self.sendAll(connection, head) else { return hungUp() }
        for step in steps {
            guard Self.sendAll(connection, step.bytes) else { return hungUp() }
            if step.pauseAfter > 0, !waitQuietly(connection, seconds: step.pauseAfter) { return hungUp() }
        }
        if case .holdUntilHangUp = ending, !waitQuietly(connection, seconds: 60) {
            hungUp()
        }
    }

    private func hungUp() {
        peerHungUp.fulfill(())
    }

    /// Reads up to the blank line that ends the request head (GET requests have no body).
    private func readHead(_ connection: Int32) -> String? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = Data("\r\n\r\n".utf8)
        while received.range(of: end) == nil {
            guard Self.waitReadable(connection, milliseconds: 5_000) else { return nil }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits `seconds` (in slices, watching for shutdown); `false` when the peer hung up.
    private func waitQuietly(_ connection: Int32, seconds: TimeInterval) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while !stopping.load(ordering: .sequentiallyConsistent) {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return true }
            let slice = Int32(min(50, (deadline - now) / 1_000_000 + 1))
            guard Self.waitReadable(connection, milliseconds: slice) else { continue }
            // Readable while we hold the connection: end of stream or reset means the client
            // is gone; anything else it sends is ignored.
            let count = scratch.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return false }
        }
        return true
    }

    // MARK: - Sockets

    private static func makeListener() throws -> (Int32, Int) {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw StreamingPacedServerError(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var named = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let gotName = withUnsafeMutablePointer(to: &named) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, listen(descriptor, 16) == 0, gotName == 0 else {
            close(descriptor)
            throw StreamingPacedServerError(call: "bind/listen")
        }
        return (descriptor, Int(UInt16(bigEndian: named.sin_port)))
    }

    private static func waitReadable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Linux suppresses SIGPIPE per call; Darwin would need `SO_NOSIGPIPE` instead.
    private static var sendFlags: Int32 {
        #if canImport(Darwin)
        return 0
        #else
        return Int32(MSG_NOSIGNAL)
        #endif
    }

    private static func sendAll(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            guard var pointer = raw.baseAddress else { return true }
            var remaining = raw.count
            while remaining > 0 {
                let sent = send(descriptor, pointer, remaining, sendFlags)
                if sent < 0 && errno == EINTR { continue }
                guard sent > 0 else { return false }
                pointer += sent
                remaining -= sent
            }
            return true
        }
    }
}

/// A socket call failed while starting a ``StreamingPacedServer``.
struct StreamingPacedServerError: Error, CustomStringConvertible {
    var call: String
    var code = errno

    var description: String {
        "StreamingPacedServer: \(call) failed: \(String(cString: strerror(code)))"
    }
}
