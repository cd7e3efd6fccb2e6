import Foundation
import Kringle

/// Gathers one response's header fields and body as curl delivers them.
///
/// Only the driving thread touches it: curl calls the callbacks from inside
/// `curl_multi_perform`, which runs there.
final class ResponseCollector {
    /// The body bytes received so far, already decoded from any content coding.
    private(set) var body = Data()
    /// The fields of the latest header block, in order, repeats kept.
    private var fields: [(String, String)] = []
    /// Set by the empty line that ends a block: later fields are trailers, not headers.
    private var blockEnded = false

    /// The header fields of the last block received (the final response's).
    var headers: HTTPHeaders {
        HTTPHeaders(fields)
    }

    /// Takes one header line from curl.
    func receive(_ line: CurlHeaderLine) {
        switch line {
        case .statusLine:
            // A new block (after a 1xx or a proxy's CONNECT answer) replaces the fields; no
            // body bytes precede the final block, since curl does not pass on those of a
            // CONNECT answer.
            fields.removeAll(keepingCapacity: true)
            blockEnded = false
        case .field(let name, let value):
            guard !blockEnded else { return }  // trailers after a chunked body
            fields.append((name, value))
        case .continuation(let more):
            guard !blockEnded, let last = fields.indices.last else { return }
            // RFC 9112 §5.2: replace the fold with a space.
            fields[last].1 = fields[last].1.isEmpty ? more : fields[last].1 + " " + more
        case .end:
            blockEnded = true
        case .other:
            break
        }
    }

    /// Where the body goes instead of ``body``, for transfers to a file.
    var sink: ResponseFileSink?

    /// Takes body bytes from curl: into the file when there is one, else into ``body``.
    /// Returns `false` when the file refused them.
    func receive(body bytes: UnsafeRawBufferPointer) -> Bool {
        if let sink {
            return sink.write(bytes)
        }
        body.append(contentsOf: bytes)
        return true
    }
}
