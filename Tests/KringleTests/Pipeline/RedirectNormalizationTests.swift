import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `Location` with its scheme or host in upper case (RFC 3986 §3.1, §3.2.2 make both
/// case-insensitive) is followed, in lower case, on every transport.
@Suite("Redirect URLs normalised", .generousTimeLimit)
struct RedirectNormalizationTests {
    @Test(
        "RFC 3986 §6.2.2.1: scheme and host in lower case, the rest as it was",
        arguments: [
            ("HTTP://127.0.0.1:8080/next", "http://127.0.0.1:8080/next"),
            ("HtTpS://Example.COM/A/B?Q=C#D", "https://example.com/A/B?Q=C#D"),
            ("http://User:Secret@LOCALHOST/Path", "http://User:Secret@localhost/Path"),
            ("HTTP://[FE80::1]:81/x", "http://[fe80::1]:81/x"),
            ("http://example.com/Already/Lower?Case=1", "http://example.com/Already/Lower?Case=1"),
            ("http://a.example/%7Euser%2Fx", "http://a.example/%7Euser%2Fx"),
        ])
    func normalized(_ location: String, _ expected: String) {
        #expect(clientURL(location).withLowercaseSchemeAndHost().absoluteString == expected)
    }

    @Test("the next hop's request carries the normalised URL, relative or absolute")
    func nextHopRequest() throws {
        let answered = clientURL("http://a.example/from")
        for (location, expected) in [
            ("HTTP://LOCALHOST:8080/next", "http://localhost:8080/next"),
            ("/Next", "http://a.example/Next"),
        ] {
            let response = HTTPResponse(
                statusCode: 302, headers: HTTPHeaders([("Location", location)]), url: answered)
            let redirect = try #require(try Redirect(after: response, to: HTTPRequest(url: answered)))
            #expect(redirect.request.url.absoluteString == expected, "Location \(location)")
        }
    }

    @Test(
        "Location: HTTP://… is followed",
        arguments: TransportUnderTest.allCases, ["HTTP://127.0.0.1", "HTTP://LOCALHOST", "http://LocalHost"])
    func upperCaseLocation(_ transport: TransportUnderTest, origin: String) async throws {
        let received = ReceivedRequests()
        let location = LocationBox()
        let server = try LoopbackServer { request in
            received.append(request)
            return request.path == "/from" ? .redirect(to: location.value, status: 302) : .text("landed")
        }
        defer { server.shutdown() }
        location.value = "\(origin):\(server.port)/next"

        let response = try await transport.client().request(.get, server.clientEndpoint("/from"), as: Data.self)
            .valueWithin()

        #expect(response.value == Data("landed".utf8))
        #expect(received.all.map(\.path) == ["/from", "/next"])
        #expect(response.url.scheme == "http")
        #expect(response.url.host == origin.dropFirst("http://".count).lowercased())
    }

    @Test("an endpoint's base URL in upper case is sent in lower case", arguments: TransportUnderTest.allCases)
    func upperCaseBaseURL(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .text("reached") }
        defer { server.shutdown() }
        let endpoint = ClientTestEndpoint(baseURL: clientURL("HTTP://LOCALHOST:\(server.port)"), path: "/Path")

        let response = try await transport.client().request(.get, endpoint, as: Data.self).valueWithin()

        #expect(response.value == Data("reached".utf8))
        #expect(response.url.absoluteString == "http://localhost:\(server.port)/Path")
    }
}
