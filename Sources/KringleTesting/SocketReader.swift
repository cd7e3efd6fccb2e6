import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Buffered reads from one connected socket, owned by a single connection thread.
///
/// Header sections and chunk-size lines are scanned in a reusable buffer; large bodies are
/// received straight into their `Data` so a 100 MB upload is neither copied byte by byte nor
/// re-scanned.
final class SocketReader {
    private let descriptor: Int32
    private var storage: [UInt8]
    /// Unconsumed bytes are `storage[start..<end]`.
    private var start = 0
    private var end = 0
    /// The largest body ``readBody(count:into:)`` lets grow, in bytes
    /// (``LoopbackServer/Configuration/maximumRequestBodySize``).
    var bodyLimit = Int.max

    /// Creates a reader for `descriptor`, which it reads from but never closes.
    init(descriptor: Int32, initialCapacity: Int = 16_384) {
        self.descriptor = descriptor
        self.storage = [UInt8](repeating: 0, count: initialCapacity)
    }

    /// Whether bytes received from the peer are waiting to be parsed, such as a pipelined
    /// request.
    var hasBufferedBytes: Bool { start < end }

    /// Reads one header section: the request line and field lines, up to the empty line.
    ///
    /// RFC 9112 §2.2: empty lines before the request line are ignored, and a bare LF is
    /// accepted as a line terminator (any CR before it is dropped).
    ///
    /// - Parameter limit: the largest header section accepted; larger ones get 431.
    /// - Returns: the lines without terminators, or `nil` if the peer closed the connection
    ///   before sending anything, which is how a keep-alive connection normally ends.
    func readHead(limit: Int) throws(ReadFailure) -> [String]? {
        var lines: [String] = []
        var lineStart = 0  // offsets relative to `start`, which stay valid when storage moves
        var scanned = 0
        while true {
            while let newline = offsetOfNewline(from: scanned) {
                let line = lineBytes(from: lineStart, to: newline)
                lineStart = newline + 1
                scanned = lineStart
                if !line.isEmpty {
                    lines.append(String(decoding: line, as: UTF8.self))
                } else if !lines.isEmpty {
                    start += lineStart
                    return lines
                }
            }
            scanned = end - start
            if scanned >= limit {
                throw .rejected(RequestRejection(status: 431, reason: "header section too large"))
            }
            if fill() <= 0 {
                // Nothing but blank lines so far means the client simply went away.
                if lines.isEmpty && lineStart == end - start { return nil }
                throw .connectionLost
            }
        }
    }

    /// Reads one line (a chunk-size line or a trailer field line) without its terminator.
    ///
    /// - Parameter limit: the longest line accepted; longer ones are a 400.
    func readLine(limit: Int) throws(ReadFailure) -> [UInt8] {
        var scanned = 0
        while true {
            if let newline = offsetOfNewline(from: scanned) {
                let line = Array(lineBytes(from: 0, to: newline))
                start += newline + 1
                return line
            }
            scanned = end - start
            if scanned > limit { throw .rejected(.badRequest("line too long in chunked body")) }
            if fill() <= 0 { throw .connectionLost }
        }
    }

    /// Appends exactly `count` body bytes to `body`.
    ///
    /// Bytes already buffered are copied once; the rest are received directly into `body`,
    /// whose storage grows as data actually arrives, so a client announcing a huge length
    /// and sending little costs little.
    ///
    /// - Throws: a 413 rejection, before reading anything, when `body` would grow beyond
    ///   ``bodyLimit`` (for a chunked body, whose chunks arrive one by one, that is the
    ///   first chunk that crosses it).
    func readBody(count: Int, into body: inout Data) throws(ReadFailure) {
        guard count <= bodyLimit - min(body.count, bodyLimit) else {
            throw .rejected(.contentTooLarge(limit: bodyLimit))
        }
        var remaining = count
        let buffered = min(remaining, end - start)
        if buffered > 0 {
            storage.withUnsafeBufferPointer { buffer in
                if let base = buffer.baseAddress { body.append(base + start, count: buffered) }
            }
            start += buffered
            remaining -= buffered
        }
        // Reserving (not filling) the announced size avoids repeated reallocation for large
        // uploads; untouched reserved pages cost nothing, and the body limit checked above
        // (or 256 MiB without one) bounds what a lying client makes us reserve.
        if remaining > 65_536 { body.reserveCapacity(body.count + min(remaining, 256 << 20)) }
        while remaining > 0 {
            let filled = body.count
            let step = min(remaining, max(65_536, filled))  // doubling steps: linear total cost
            body.count = filled + step
            let complete = body.withUnsafeMutableBytes { raw -> Bool in
                guard let base = raw.baseAddress else { return false }
                var received = 0
                while received < step {
                    let count = Socket.receive(descriptor, into: base + filled + received, count: step - received)
                    if count <= 0 { return false }
                    received += count
                }
                return true
            }
            guard complete else { throw .connectionLost }
            remaining -= step
        }
    }

    /// Hands the bytes already buffered to `consume`, or else the next bytes received (one
    /// `recv(2)`, which blocks until some arrive): for a protocol that follows the HTTP
    /// exchange on the connection, such as WebSocket frames.
    ///
    /// - Returns: the number of bytes handed over; 0 at end of stream, negative on error.
    func readSome(_ consume: (UnsafeRawBufferPointer) -> Void) -> Int {
        if start == end {
            let received = fill()
            if received <= 0 { return received }
        }
        let count = end - start
        storage.withUnsafeBytes { raw in consume(UnsafeRawBufferPointer(rebasing: raw[start..<end])) }
        start = end
        return count
    }

    /// Receives more bytes into `storage`, making room first.
    ///
    /// - Returns: the number of bytes received; 0 at end of stream, negative on error.
    private func fill() -> Int {
        if start == end {
            start = 0
            end = 0
        } else if end == storage.count {
            if start > 0 {
                let pending = end - start
                storage.withUnsafeMutableBytes { raw in
                    if let base = raw.baseAddress { memmove(base, base + start, pending) }
                }
                start = 0
                end = pending
            } else {
                storage.append(contentsOf: repeatElement(0, count: storage.count))
            }
        }
        let received = storage.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return -1 }
            return Socket.receive(descriptor, into: base + end, count: raw.count - end)
        }
        if received > 0 { end += received }
        return received
    }

    /// The offset (relative to `start`) of the next LF at or after `offset`, if buffered.
    private func offsetOfNewline(from offset: Int) -> Int? {
        guard start + offset < end else { return nil }
        return storage.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress,
                let found = memchr(base + start + offset, 0x0A, end - start - offset)
            else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base + start)
        }
    }

    /// The bytes between two offsets relative to `start`, without a CR before the LF.
    private func lineBytes(from lineStart: Int, to newline: Int) -> ArraySlice<UInt8> {
        var lineEnd = start + newline
        if lineEnd > start + lineStart && storage[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        return storage[(start + lineStart)..<lineEnd]
    }
}
