import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// A socket that cannot be reached is named in the error, with why, rather than curl's
/// "Failed to connect to localhost port 80".
@Suite("Unix sockets: failures", .generousTimeLimit)
struct UnixSocketFailureTests {
    @Test("a missing Unix socket fails naming the socket, the URL and why, not localhost port 80")
    func missingSocketIsNamed() async throws {
        let path = freshSocketPath("missing")
        let socket = UnixSocketURL(socketPath: path).url
        let outcome = await unixSocketClient().get(ClientTestEndpoint(baseURL: socket, path: "/info"), as: Data.self)
            .outcome()

        guard case .failure(KringleError.transport(let underlying as CurlError)) = outcome else {
            Issue.record("expected transport(CurlError), got \(outcome)")
            return
        }
        #expect(underlying.code == CurlError.couldNotConnect)
        #expect(underlying.message.contains(path), "\(underlying)")
        #expect(underlying.message.contains("for /info"), "\(underlying)")
        #expect(underlying.message.contains("no such socket"), "\(underlying)")
        #expect(!underlying.message.contains("port 80"), "\(underlying)")
    }

    @Test("a socket file nothing listens on fails saying so")
    func socketWithoutListener() async throws {
        let path = freshSocketPath("stale")
        // A socket bound and never listened on: the file is there, connecting is refused.
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)

        let outcome = await unixSocketClient().get(
            ClientTestEndpoint(baseURL: UnixSocketURL(socketPath: path).url, path: "/"), as: Data.self
        ).outcome()

        guard case .failure(KringleError.transport(let underlying as CurlError)) = outcome else {
            Issue.record("expected transport(CurlError), got \(outcome)")
            return
        }
        #expect(underlying.message.contains(path), "\(underlying)")
        #expect(underlying.message.contains("nothing is listening"), "\(underlying)")
    }
}
