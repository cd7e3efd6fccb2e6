import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which redirects a request on a Unix socket follows, and where to (Redirect+UnixSocket.swift).
@Suite("Unix socket redirects", .generousTimeLimit)
struct UnixSocketRedirectTests {
    /// The next hop's URL after a 302 from `from` with `location`, or `nil` when not followed.
    ///
    /// - Throws: `KringleError.insecureRedirect` when the hop is refused.
    private func hop(from: String, to location: String) throws -> String? {
        let answered = try parsedURL(from)
        let response = HTTPResponse(statusCode: 302, headers: HTTPHeaders([("Location", location)]), url: answered)
        return try Redirect(after: response, to: HTTPRequest(url: answered))?.request.url.absoluteString
    }

    @Test(
        "a Location on the socket stays there: relative, back to the localhost it was sent, or the same socket",
        arguments: [
            ("/next?x=1", "http+unix://%2Ftmp%2FD.sock/next?x=1"),
            ("next", "http+unix://%2Ftmp%2FD.sock/v1/next"),
            ("http://localhost/dir/", "http+unix://%2Ftmp%2FD.sock/dir/"),
            ("HTTP://LOCALHOST:80/dir/", "http+unix://%2Ftmp%2FD.sock/dir/"),
            ("http+unix://%2Ftmp%2FD.sock/other", "http+unix://%2Ftmp%2FD.sock/other"),
        ])
    func staysOnSocket(_ location: String, _ expected: String) throws {
        #expect(try hop(from: "http+unix://%2Ftmp%2FD.sock/v1/from", to: location) == expected)
    }

    @Test("https+unix keeps TLS: https://localhost maps back onto the socket, http://localhost does not")
    func tlsSocket() throws {
        #expect(
            try hop(from: "https+unix://%2Ftmp%2FD.sock/a", to: "https://localhost/b")
                == "https+unix://%2Ftmp%2FD.sock/b")
        #expect(try hop(from: "https+unix://%2Ftmp%2FD.sock/a", to: "http://localhost/b") == "http://localhost/b")
        let source = try parsedURL("https+unix://%2Ftmp%2FD.sock/a")
        #expect(Redirect.isDowngrade(from: source, to: try parsedURL("http://localhost/b")))
        #expect(!Redirect.isDowngrade(from: source, to: try parsedURL("https://example.com/")))
    }

    @Test(
        "a hop onto a socket is refused from the network, from another socket, or with another scheme",
        arguments: [
            ("https://example.com/a", "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json"),
            ("http://localhost/a", "http+unix://%2Fvar%2Frun%2Fdocker.sock/"),
            ("http+unix://%2Ftmp%2FD.sock/a", "http+unix://%2Fvar%2Frun%2Fdocker.sock/"),
            ("http+unix://%2Ftmp%2FD.sock/a", "http+unix://%2Ftmp%2Fd.sock/"),
            ("https+unix://%2Ftmp%2FD.sock/a", "http+unix://%2Ftmp%2FD.sock/b"),
        ])
    func refusedOntoSocket(_ from: String, _ location: String) throws {
        let error = #expect(throws: KringleError.self) { try hop(from: from, to: location) }
        guard case .insecureRedirect(let source, let target)? = error else {
            Issue.record("expected insecureRedirect, got \(String(describing: error))")
            return
        }
        #expect(source.absoluteString == from)
        #expect(target.absoluteString == location)
        #expect(error?.description.contains("onto a Unix socket") == true, "\(String(describing: error))")
    }

    @Test(
        "a server on the network that redirects onto a Unix socket is refused with insecureRedirect; the socket hears nothing",
        arguments: TransportUnderTest.allCases)
    func networkRedirectOntoSocketIsRefused(_ transport: TransportUnderTest) async throws {
        let socket = try unixSocketServer { _ in .text("the daemon") }
        defer { socket.shutdown() }
        let socketURL = UnixSocketURL(socketPath: socket.unixSocketPath ?? "").url.appending(path: "containers/json")
        let server = try LoopbackServer { _ in .redirect(to: socketURL.absoluteString, status: 302) }
        defer { server.shutdown() }

        let outcome = await transport.client().get(server.clientEndpoint("/start"), as: Data.self).outcome()

        guard case .failure(KringleError.insecureRedirect(let source, let target)) = outcome else {
            Issue.record("expected insecureRedirect, got \(outcome)")
            return
        }
        #expect(source == server.url("/start"))
        #expect(target == socketURL)
        #expect(server.statistics.requestsReceived == 1)
        #expect(socket.statistics.connectionsAccepted == 0)
    }

    @Test("a hop from a socket to the network is followed, as to another origin: credentials stay behind")
    func toNetwork() throws {
        let answered = try parsedURL("http+unix://%2Ftmp%2FD.sock/a")
        var request = HTTPRequest(url: answered)
        request.headers["Authorization"] = "Bearer abc"
        for location in ["https://example.com/b", "http://localhost:8080/b", "http://127.0.0.1/b"] {
            let response = HTTPResponse(
                statusCode: 302, headers: HTTPHeaders([("Location", location)]), url: answered)
            let redirect = try #require(try Redirect(after: response, to: request))
            #expect(redirect.request.url.absoluteString == location)
            #expect(redirect.request.headers["Authorization"] == nil)
            #expect(!redirect.keepsUserCookie)
        }
        let home = HTTPResponse(
            statusCode: 302, headers: HTTPHeaders([("Location", "http://localhost/b")]), url: answered)
        let same = try #require(try Redirect(after: home, to: request))
        #expect(
            same.request.headers["Authorization"] == "Bearer abc", "the same socket, the same origin")
    }
}
