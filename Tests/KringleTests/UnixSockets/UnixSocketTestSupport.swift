import Foundation
import Kringle
import KringleTesting
import Testing

@testable import KringleCore

/// A fresh socket path for a test: short (a socket address holds about a hundred bytes, and
/// `TMPDIR` may be long), in `/tmp`, and with upper-case letters, so that every test also
/// checks that nothing lowercases the path on its way to curl.
func freshSocketPath(_ name: String = "s") -> String {
    "/tmp/Kr\(UUID().uuidString.prefix(8))-\(name).sock"
}

/// A client on a fresh `CurlTransport`, configured by `configure`.
func unixSocketClient(_ configure: (inout NetworkClient.Configuration) -> Void = { _ in }) -> NetworkClient {
    TransportUnderTest.curl.client(configure)
}

/// A server on a fresh Unix socket; shut it down (which removes its file) when done.
func unixSocketServer(
    _ handler: @escaping @Sendable (LoopbackServer.Request) -> LoopbackServer.Response
) throws -> LoopbackServer {
    try LoopbackServer(unixSocketPath: freshSocketPath(), handler: handler)
}

/// `text` as a URL; the test fails here if it is none.
func parsedURL(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
    try #require(URL(string: text), sourceLocation: sourceLocation)
}
