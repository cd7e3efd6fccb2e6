import Foundation
import Kringle
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `http+unix` URL form, and what each stage of the pipeline makes of it, without a
/// server: parsing, what curl is told, redirects, cookies and the cache key.
@Suite("Unix socket URLs")
struct UnixSocketURLTests {
    @Test(
        "the socket is the percent-encoded host; the scheme says whether TLS is spoken",
        arguments: [
            ("http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json", "/var/run/docker.sock", false),
            ("HTTPS+Unix://%2Frun%2FApp.sock", "/run/App.sock", true),
            ("http+unix://%2ftmp%2fa%20b.sock/", "/tmp/a b.sock", false),
            ("http+unix://relative.sock/x", "relative.sock", false),
        ])
    func parses(_ text: String, path: String, usesTLS: Bool) throws {
        let socket = try #require(UnixSocketURL(try parsedURL(text)))
        #expect(socket.socketPath == path)
        #expect(socket.usesTLS == usesTLS)
    }

    @Test(
        "other schemes, a port, user information or no host name no socket",
        arguments: [
            "http://localhost/x", "https://example.com", "unix:///var/run/docker.sock", "http+unixx://%2Fa",
            "http+unix://%2Ftmp%2Fa.sock:80/x", "http+unix://me@%2Ftmp%2Fa.sock/x", "http+unix:///x",
        ])
    func refuses(_ text: String) throws {
        let url = try parsedURL(text)
        #expect(UnixSocketURL(url) == nil)
    }

    @Test("a path becomes a base URL and back, every byte but unreserved ones encoded, hex in upper case")
    func roundTrip() throws {
        let socket = UnixSocketURL(socketPath: "/run/user/1000/Podman é+x.sock")
        #expect(socket.url.absoluteString == "http+unix://%2Frun%2Fuser%2F1000%2FPodman%20%C3%A9%2Bx.sock")
        #expect(UnixSocketURL(socket.url) == socket)
        let secure = UnixSocketURL(socketPath: "/a.sock", usesTLS: true)
        #expect(secure.url.absoluteString == "https+unix://%2Fa.sock")
    }

    @Test("only http+unix and https+unix count as Unix sockets, whatever the case")
    func schemeCheck() throws {
        for (text, expected) in [
            ("http://a.example", false), ("https://a.example", false), ("HTTP+UNIX://%2Fa", true),
            ("https+unix://%2Fa", true), ("ftp+unix://%2Fa", false), ("httpsxunix://a", false),
        ] {
            #expect(UnixSocketURL.isUnixSocket(try parsedURL(text)) == expected, "\(text)")
        }
    }

    @Test("curl is told the socket, and http://localhost with the path and query, encoding intact")
    func curlPlan() throws {
        let url = try parsedURL("http+unix://%2Ftmp%2FK.sock/containers/a%2Fb/json?all=1&x=%26")
        let plan = try CurlRequestPlan(HTTPRequest(url: url), timeLimit: .deadline(nil))
        #expect(plan.url == "http://localhost/containers/a%2Fb/json?all=1&x=%26")
        #expect(plan.unixSocketPath == "/tmp/K.sock")
        #expect(plan.isHTTPS == false)
        #expect(plan.requestURL == url)
        #expect(plan.admissionURL == url.absoluteString, "each socket waits in a queue of its own")

        let root = try CurlRequestPlan(
            HTTPRequest(url: try parsedURL("https+unix://%2Ftmp%2Fk.sock")), timeLimit: .deadline(nil))
        #expect(root.url == "https://localhost/")
        #expect(root.isHTTPS)

        let tcp = try CurlRequestPlan(HTTPRequest(url: try parsedURL("http://a.example/x")), timeLimit: .deadline(nil))
        #expect(tcp.unixSocketPath == nil)
        #expect(tcp.admissionURL == "http://a.example/x")
    }

    @Test(
        "an http+unix URL curl cannot use is refused before anything is sent",
        arguments: [
            "http+unix://%2Ftmp%2Fa.sock:8080/x", "http+unix://user:secret@%2Ftmp%2Fa.sock/x",
            "http+unix://%2F" + String(repeating: "d", count: 120) + ".sock/x", "http+unix://%2Ftmp%2Fa%00b.sock/",
        ])
    func refusedPlans(_ text: String) throws {
        let url = try parsedURL(text)
        let error = #expect(throws: KringleError.self) {
            try CurlRequestPlan(HTTPRequest(url: url), timeLimit: .deadline(nil))
        }
        guard case .invalidRequest(let reason)? = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(!reason.contains("secret"), "the message shows the URL redacted")
    }

    @Test("assembling an endpoint's URL keeps the socket path's case")
    func assembly() throws {
        let base = try parsedURL("http+unix://%2Ftmp%2FDocker.sock")
        let url = try URLAssembly.url(
            base: base, path: "/containers/json", queryItems: [URLQueryItem(name: "all", value: "1")])
        #expect(url.absoluteString == "http+unix://%2Ftmp%2FDocker.sock/containers/json?all=1")
        let upper = try parsedURL("HTTP+UNIX://%2Ftmp%2FDocker.sock/x")
        #expect(upper.withLowercaseSchemeAndHost().absoluteString == "http+unix://%2Ftmp%2FDocker.sock/x")
    }

    @Test("the cache key is the whole URL, the socket path's case kept")
    func cacheKey() throws {
        let upper = try parsedURL("http+unix://%2Ftmp%2FA.sock/x#frag")
        let lower = try parsedURL("http+unix://%2Ftmp%2Fa.sock/x")
        #expect(HTTPCache.key(for: upper) == "http+unix://%2Ftmp%2FA.sock/x")
        #expect(HTTPCache.key(for: upper) != HTTPCache.key(for: lower))
    }

    @Test("the cookie host is the encoded socket path; https+unix is a secure scheme")
    func cookieHost() throws {
        let plain = try #require(CookieRequestURL(try parsedURL("http+unix://%2Fvar%2Frun%2Fd.sock/a/b")))
        #expect(plain.host == "%2fvar%2frun%2fd.sock")
        #expect(plain.path == "/a/b")
        #expect(!plain.isSecure)
        #expect(!plain.hostIsIPAddress)
        let secure = try #require(CookieRequestURL(try parsedURL("https+unix://%2Fvar%2Frun%2Fd.sock")))
        #expect(secure.host == plain.host)
        #expect(secure.isSecure)
    }

    @Test("a jar keeps a socket's cookies for that socket only")
    func cookieJar() throws {
        let jar = CookieJar()
        let docker = try parsedURL("http+unix://%2Fvar%2Frun%2Fdocker.sock/login")
        let other = try parsedURL("http+unix://%2Frun%2Fother.sock/login")
        jar.store(setCookieHeaders: ["sid=31d4; Path=/"], from: docker)
        #expect(jar.cookieHeader(for: try parsedURL("http+unix://%2Fvar%2Frun%2Fdocker.sock/containers")) == "sid=31d4")
        #expect(jar.cookieHeader(for: other) == nil)
        #expect(jar.cookieHeader(for: try parsedURL("http://localhost/login")) == nil)
    }
}

/// What the request log shows for a request to a Unix socket.
@Suite("Unix socket URLs in curl command lines")
struct UnixSocketCurlDescriptionTests {
    @Test("curlDescription names the socket with --unix-socket and the localhost URL, redacted")
    func curlDescription() throws {
        var request = HTTPRequest(
            url: try parsedURL("http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json?all=1&token=abc#top"))
        request.headers["Authorization"] = "Bearer a1"
        #expect(
            request.curlDescription
                == "curl --unix-socket '/var/run/docker.sock' 'http://localhost/containers/json?all=1&token=***' -H 'Authorization: ***'"
        )
        let secure = HTTPRequest(url: try parsedURL("https+unix://%2Frun%2Fa%27b.sock"))
        #expect(secure.curlDescription == #"curl --unix-socket '/run/a'\''b.sock' 'https://localhost/'"#)
    }
}
