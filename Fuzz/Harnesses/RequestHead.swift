import Foundation

@testable import KringleTesting

/// LoopbackServer's reading of requests, as a connection does it: `SocketReader.readHead`
/// splits the header section into lines, `RequestHeadParser.parse` reads them (RFC 9112 §3,
/// §5), the head's framing (§6.3), `Expect` and `Connection` are worked out, and the body is
/// read, chunked or by length, before the next pipelined request.
///
/// The input is what a client sends on one connection. Beyond not crashing: a head the
/// parser accepts has a token method, a target without whitespace or controls, an HTTP/1.x
/// version, token field names, values without CR, LF or NUL or surrounding whitespace, and
/// exactly one `Host` in HTTP/1.1; a body is never longer than the bytes that were sent.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let sockets = SocketPair()
    sockets.send(UnsafeBufferPointer(start: data, count: size))
    sockets.endStream()
    // A small buffer, so that lines straddle refills and the buffer is moved and grown.
    let reader = SocketReader(descriptor: sockets.reading, initialCapacity: 32)
    do throws(ReadFailure) {
        // Every request takes at least a request line, so this bounds the loop.
        for _ in 0...size {
            guard let lines = try reader.readHead(limit: 8_192) else { return 0 }
            require(lines.allSatisfy { !$0.isEmpty && !$0.utf8.contains(0x0A) }, "readHead gave \(lines)")
            let head: RequestHead
            do throws(RequestRejection) {
                head = try RequestHeadParser.parse(lines: lines)
            } catch {
                require([400, 505].contains(error.status), "a head refused with \(error.status)")
                return 0
            }
            check(head)
            let framing: RequestBodyFraming
            do throws(RequestRejection) {
                framing = try head.bodyFraming()
                _ = try head.expectsContinue()
            } catch {
                require([400, 417, 501].contains(error.status), "framing refused with \(error.status)")
                return 0
            }
            _ = head.wantsPersistentConnection
            switch framing {
            case .none:
                break
            case .length(let count):
                require(count > 0, "a body of length \(count)")
                // A length past the input cannot arrive; reading it would only reserve memory.
                guard count <= size else { return 0 }
                var body = Data()
                try reader.readBody(count: count, into: &body)
                require(body.count == count, "read \(body.count) of \(count) bytes")
            case .chunked:
                let body = try reader.readChunkedBody()
                require(body.count < size, "a chunked body of \(body.count) bytes from \(size)")
            }
        }
        fatalError("more requests than bytes")
    } catch {
        switch error {
        case .connectionLost: break
        case .rejected(let rejection):
            require([400, 431].contains(rejection.status), "the reader refused with \(rejection.status)")
        }
    }
    return 0
}

/// Checks what RFC 9112 says a parsed head holds.
private func check(_ head: RequestHead) {
    require(!head.method.isEmpty && head.method.utf8.allSatisfy(isTokenCharacter), "the method \(head.method)")
    require(!head.target.isEmpty && head.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "the target \(head.target)")
    require(head.version == "HTTP/1.\(head.minorVersion)", "the version \(head.version)")
    for (name, value) in head.headers {
        require(!name.isEmpty && name.utf8.allSatisfy(isTokenCharacter), "the field name \(name.debugDescription)")
        require(!value.utf8.contains { $0 == 0 || $0 == 0x0D || $0 == 0x0A }, "CR, LF or NUL in \(name)")
        require(isTrimmed(value), "the untrimmed value of \(name)")
    }
    let hosts = head.values("host").count
    require(hosts <= 1 && (hosts == 1 || head.minorVersion == 0), "\(hosts) Host fields in HTTP/1.\(head.minorVersion)")
}

/// RFC 9110 §5.6.2 tchar.
private func isTokenCharacter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        return true
    default:
        return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}
