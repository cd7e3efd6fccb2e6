import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
import KringleTestSupport
#endif

/// A failure inside a test helper, with a message saying what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A blocking TCP client that sends exact bytes and reads exact bytes back, for checking
/// what actually crosses the wire (separate header lines, truncated bodies, closes).
///
/// Every read times out after `timeout` seconds, so a misbehaving server fails the test
/// instead of hanging it.
final class RawClient {
    private(set) var descriptor: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:`port`.
    init(port: Int, timeout: TimeInterval = 10) throws {
        descriptor = makeTCPSocket()
        guard descriptor >= 0 else { throw TestFailure("socket failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            // `close()`, not `closeSocket`: a throwing init still runs `deinit`, which would
            // close the number a second time — by then perhaps another thread's socket.
            close()
            throw ConnectFailure(errno: code)
        }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// `connect` failed, with its errno (`ECONNREFUSED` once a server has shut down).
    struct ConnectFailure: Error {
        var errno: Int32
    }

    deinit { close() }

    /// Sends `text` as UTF-8.
    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends every byte, or throws if the connection fails.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return sendWithoutSignal(descriptor, base + offset, raw.count - offset)
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw TestFailure("send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Reads one response: status line, header fields and a body delimited by
    /// Content-Length, chunked coding, or (failing both) the connection closing.
    ///
    /// - Parameter isHead: the request was HEAD, so no body follows whatever the headers say.
    func readResponse(isHead: Bool = false) throws -> RawResponse {
        let headBytes = try readHead()
        let head = String(decoding: headBytes, as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw TestFailure("bad status line: \(statusLine)")
        }
        let headers = lines.filter { !$0.isEmpty }.map { line -> (String, String) in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            let value = line[colon...].dropFirst().trimmingCharacters(in: .whitespaces)
            return (String(line[..<colon]), value)
        }
        var response = RawResponse(status: status, head: head, headers: headers, body: [])
        if isHead || status == 204 || status == 304 || (100...199).contains(status) { return response }
        if let length = response.header("content-length").flatMap({ Int($0) }) {
            response.body = try read(count: length)
        } else if response.header("transfer-encoding")?.lowercased() == "chunked" {
            response.body = try readChunkedBody()
        } else {
            response.body = readUntilClose()
        }
        return response
    }

    /// Reads up to and including the empty line ending a header section.
    func readHead() throws -> [UInt8] {
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let range = buffered.firstRange(of: terminator) {
                let head = Array(buffered[..<range.upperBound])
                buffered.removeFirst(range.upperBound)
                return head
            }
            guard try fill() else {
                throw TestFailure(
                    "connection closed before a complete header section: \(String(decoding: buffered, as: UTF8.self))")
            }
        }
    }

    /// Reads exactly `count` bytes, or throws if the connection ends first.
    func read(count: Int) throws -> [UInt8] {
        while buffered.count < count {
            guard try fill() else { throw TestFailure("connection closed after \(buffered.count) of \(count) bytes") }
        }
        let bytes = Array(buffered[..<count])
        buffered.removeFirst(count)
        return bytes
    }

    /// Reads everything until the server closes the connection (or the read times out).
    func readUntilClose() -> [UInt8] {
        while (try? fill()) == true {}
        defer { buffered.removeAll() }
        return buffered
    }

    /// Whether the server closed the connection: a read returns end of stream (or a reset)
    /// with no further bytes, within the client's read timeout.
    func serverClosedConnection() -> Bool {
        guard buffered.isEmpty else { return false }
        var byte: UInt8 = 0
        while true {
            let count = recv(descriptor, &byte, 1, 0)
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return false }  // timed out: still open
            return count <= 0
        }
    }

    /// Whether any byte is ready to read right now, without waiting.
    func hasDataAvailable() -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return !buffered.isEmpty || poll(&entry, 1, 0) > 0
    }

    /// Shuts down the sending side: the server reads end of stream.
    func shutdownWrite() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Closes with a TCP reset instead of a FIN.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    /// Closes the connection; later calls do nothing.
    func close() {
        if descriptor >= 0 {
            closeSocket(descriptor)
            descriptor = -1
        }
    }

    private func readChunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeLine = String(decoding: try readLine(), as: UTF8.self)
            let sizeText = sizeLine.split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw TestFailure("bad chunk-size line: \(sizeLine)")
            }
            if size == 0 {
                while try !readLine().isEmpty {}
                return body
            }
            body += try read(count: size)
            guard try readLine().isEmpty else { throw TestFailure("chunk not followed by CRLF") }
        }
    }

    private func readLine() throws -> [UInt8] {
        while true {
            if let range = buffered.firstRange(of: [13, 10]) {
                let line = Array(buffered[..<range.lowerBound])
                buffered.removeFirst(range.upperBound)
                return line
            }
            guard try fill() else { throw TestFailure("connection closed mid-line") }
        }
    }

    /// Receives more bytes; `false` at end of stream, throws on timeout or error.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw TestFailure("read timed out") }
            if count < 0 && errno == ECONNRESET { return false }
            guard count >= 0 else { throw TestFailure("recv failed: errno \(errno)") }
            if count == 0 { return false }
            buffered += chunk[..<count]
            return true
        }
    }
}

/// A response as read off a raw socket.
struct RawResponse {
    /// The status code.
    var status: Int
    /// The status line and header section exactly as received, including the final CRLF.
    var head: String
    /// Header fields in order.
    var headers: [(String, String)]
    /// The body, de-chunked if it was chunked.
    var body: [UInt8]

    /// The first value of a header field, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Every value of a header field, in order.
    func headers(named name: String) -> [String] {
        headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
    }

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

private func closeSocket(_ descriptor: Int32) {
    #if canImport(Darwin)
    _ = Darwin.close(descriptor)
    #else
    _ = Glibc.close(descriptor)
    #endif
}

/// `send` that reports a reset peer as an error instead of raising SIGPIPE.
private func sendWithoutSignal(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
    var one: Int32 = 1
    _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    return Darwin.send(descriptor, buffer, count, 0)
    #else
    return Glibc.send(descriptor, buffer, count, Int32(MSG_NOSIGNAL))
    #endif
}

/// A new IPv4 TCP socket (the constant's type differs between Glibc and Darwin).
func makeTCPSocket() -> Int32 {
    #if canImport(Darwin)
    return socket(AF_INET, SOCK_STREAM, 0)
    #else
    return socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #endif
}
