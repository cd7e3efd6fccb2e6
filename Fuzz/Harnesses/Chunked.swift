import Foundation

@testable import KringleTesting

/// LoopbackServer's decoder of chunked request bodies, `SocketReader.readChunkedBody`
/// (RFC 9112 §7.1), on the bytes after a request's head.
///
/// Beyond not crashing: a decoded body is shorter than what was sent. Then a round trip: the input, sent as
/// a body by the server's own chunked encoder (`ResponseSerializer.writeChunked`, with a
/// chunk size taken from the input and a trailer field), decodes to itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    decodeRaw(bytes)
    roundTrip(bytes)
    return 0
}

/// The input as it comes from a client.
private func decodeRaw(_ bytes: [UInt8]) {
    let sockets = SocketPair()
    sockets.send(bytes)
    sockets.endStream()
    // A small buffer, so that lines straddle refills and the buffer is moved and grown.
    let reader = SocketReader(descriptor: sockets.reading, initialCapacity: 32)
    let body: Data
    do throws(ReadFailure) {
        body = try reader.readChunkedBody()
    } catch {
        if case .rejected(let rejection) = error {
            require(rejection.status == 400, "refused with \(rejection.status)")
        }
        return
    }
    require(body.count < bytes.count, "a body of \(body.count) bytes from \(bytes.count)")
}

/// The input, chunked by the server's encoder, read back.
private func roundTrip(_ bytes: [UInt8]) {
    let chunkSize = 1 + Int(bytes.first ?? 0) % 64
    let sockets = SocketPair()
    let writer = SocketWriter(descriptor: sockets.writing)
    do throws(WriteFailure) {
        try ResponseSerializer.writeChunked(Data(bytes), chunkSize: chunkSize, trailers: [("X-Fuzz", "1")], to: writer)
        try writer.flush()
    } catch {
        fatalError("the chunked encoder could not write \(bytes.count) bytes: \(error)")
    }
    sockets.endStream()
    let reader = SocketReader(descriptor: sockets.reading, initialCapacity: 32)
    do throws(ReadFailure) {
        let body = try reader.readChunkedBody()
        require(body == Data(bytes), "\(bytes.count) bytes in chunks of \(chunkSize) decoded as \(body.count)")
        require(!reader.hasBufferedBytes, "bytes left after the encoded body")
    } catch {
        fatalError("the decoder refused the encoder's \(bytes.count) bytes in chunks of \(chunkSize): \(error)")
    }
}
