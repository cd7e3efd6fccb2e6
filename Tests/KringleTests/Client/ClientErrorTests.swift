import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Client errors", .generousTimeLimit)
struct ClientErrorTests {
    @Test(
        "an unacceptable status keeps the response and its body",
        arguments: TransportUnderTest.allCases, [400, 404, 422, 500, 503])
    func unacceptableStatusKeepsBody(_ transport: TransportUnderTest, status: Int) async throws {
        let server = try LoopbackServer { _ in
            .json(#"{"error": "Tom is not hungry"}"#, status: status).addingHeader("X-Reason", "full")
        }
        defer { server.shutdown() }
        let outcome = await transport.client().get(server.clientEndpoint("/feed"), as: ClientCat.self).outcome()
        guard case .unacceptableStatusCode(let code, let response)? = outcome.kringleError else {
            Issue.record("expected unacceptableStatusCode, got \(outcome)")
            return
        }
        #expect(code == status)
        #expect(response.statusCode == status)
        #expect(response.url == server.url("/feed"))
        #expect(response.headers["x-reason"] == "full")
        #expect(
            try JSONDecoder().decode(ClientAPIProblem.self, from: response.body)
                == ClientAPIProblem(error: "Tom is not hungry"))
        let description = KringleError.unacceptableStatusCode(code, response).description
        #expect(description.contains("\(status)"))
        #expect(description.contains("Tom is not hungry"))
        #expect(description.contains(server.url("/feed").absoluteString))
    }

    @Test(
        "a 401 with a WWW-Authenticate challenge is an unacceptable status, body kept",
        arguments: TransportUnderTest.allCases, [0, 300_000])
    func authenticationChallenge(_ transport: TransportUnderTest, padding: Int) async throws {
        let message = "log in first" + String(repeating: ".", count: padding)
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.json(#"{"error": "\#(message)"}"#, status: 401)
                .addingHeader("WWW-Authenticate", #"Basic realm="cats""#)
        }
        defer { server.shutdown() }
        // A hang would otherwise last the default 60 s timeout.
        let client = transport.client { $0.timeout = 5 }
        let outcome = await client.get(server.clientEndpoint("/private"), as: ClientCat.self).outcome()
        guard case .unacceptableStatusCode(401, let response)? = outcome.kringleError else {
            Issue.record("expected unacceptableStatusCode(401), got \(outcome)")
            return
        }
        #expect(response.body.count == message.utf8.count + 13)
        #expect(
            try JSONDecoder().decode(ClientAPIProblem.self, from: response.body) == ClientAPIProblem(error: message))
        #expect(response.headers["www-authenticate"] == #"Basic realm="cats""#)
    }

    @Test("Void requests are judged by status too", arguments: TransportUnderTest.allCases)
    func voidRequestStatus(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .status(500) }
        defer { server.shutdown() }
        let client = transport.client()
        let outcomes = [
            await client.get(server.clientEndpoint("/x")).outcome(),
            await client.post(ClientCat(name: "a", mood: "b"), to: server.clientEndpoint("/x")).outcome(),
            await client.delete(server.clientEndpoint("/x")).outcome(),
        ]
        for outcome in outcomes {
            guard case .unacceptableStatusCode(500, let response)? = outcome.kringleError else {
                Issue.record("expected unacceptableStatusCode(500), got \(outcome)")
                continue
            }
            #expect(response.body.isEmpty)
        }
    }

    @Test("acceptable status codes are configurable", arguments: TransportUnderTest.allCases)
    func acceptableStatusCodes(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { request in
            request.path == "/missing" ? .json(#"{"error": "no cat"}"#, status: 404) : .status(204)
        }
        defer { server.shutdown() }
        let lenient = transport.client { $0.acceptableStatusCodes = 200..<500 }
        let problem = try await lenient.request(.get, server.clientEndpoint("/missing"), as: ClientAPIProblem.self)
            .valueWithin()
        #expect(problem.statusCode == 404)
        #expect(problem.value == ClientAPIProblem(error: "no cat"))

        let strict = transport.client { $0.acceptableStatusCodes = 200..<201 }
        let outcome = await strict.get(server.clientEndpoint("/empty")).outcome()
        guard case .unacceptableStatusCode(204, _)? = outcome.kringleError else {
            Issue.record("expected unacceptableStatusCode(204), got \(outcome)")
            return
        }
    }

    @Test("a refused connection rejects with transport", arguments: TransportUnderTest.allCases)
    func connectionRefused(_ transport: TransportUnderTest) async throws {
        let endpoint = refusedEndpoint("/gone")
        let outcome = await transport.client().get(endpoint).outcome()
        guard case .transport(let underlying)? = outcome.kringleError else {
            Issue.record("expected transport, got \(outcome)")
            return
        }
        #expect(!(underlying is KringleError), "the transport's own error is kept: \(underlying)")
        // The description says why (URLSession's errors by domain, code and reason, their URL
        // redacted; curl's as they are).
        let reason = (underlying as NSError).userInfo[NSLocalizedDescriptionKey] as? String ?? "\(underlying)"
        #expect(KringleError.transport(underlying).description.contains(reason))
    }

    @Test("a connection closed mid-body rejects with incompleteResponse", arguments: TransportUnderTest.allCases)
    func closedMidBody(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            .text(String(repeating: "meow ", count: 20_000)).withBehavior(.closeMidBody)
        }
        defer { server.shutdown() }
        let outcome = await transport.client().get(server.clientEndpoint("/truncated"), as: Data.self)
            .outcome()
        #expect(outcome.kringleError?.caseName == "incompleteResponse", "\(outcome)")
    }

    @Test(
        "a connection closed or reset without a response rejects with transport",
        arguments: TransportUnderTest.allCases, [LoopbackServer.Behavior.closeWithoutResponse, .resetWithoutResponse])
    func noResponse(_ transport: TransportUnderTest, behavior: LoopbackServer.Behavior) async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.status(200).withBehavior(behavior) }
        defer { server.shutdown() }
        let outcome = await transport.client().get(server.clientEndpoint("/hang-up")).outcome()
        #expect(outcome.kringleError?.caseName == "transport", "\(outcome)")
    }

    @Test("every KringleError has a readable description", arguments: KringleErrorKind.allCases)
    func descriptions(_ kind: KringleErrorKind) {
        let (error, fragments) = Self.example(of: kind)
        #expect(error.kind == kind)
        #expect(error.caseName == kind.rawValue)
        for fragment in fragments {
            #expect(error.description.contains(fragment), "\(kind): \(error.description)")
        }
    }

    /// One error of each kind, and what its description must say for a person to act on it.
    /// The switch has no default: a kind without an example does not compile.
    static func example(of kind: KringleErrorKind) -> (KringleError, [String]) {
        let url = clientURL("http://h.example/a")
        let response = Response(
            value: Data("oops".utf8), statusCode: 418, headers: [:], body: Data("oops".utf8), url: url)
        let items = [DescriptionKey("items"), DescriptionKey(index: 2)]
        switch kind {
        case .invalidRequest:
            return (.invalidRequest("no host"), ["Invalid request", "no host"])
        case .encodingFailed:
            let context = EncodingError.Context(codingPath: items, debugDescription: "NaN is not JSON")
            return (
                .encodingFailed(.invalidValue(Double.nan, context)),
                ["encoded", "Double", "items[2]", "NaN is not JSON"]
            )
        case .file:
            return (
                .file(
                    URL(fileURLWithPath: "/tmp/tom.jsonl"),
                    underlying: KringleError.FileSizeChanged(expected: 10, found: 5)),
                ["/tmp/tom.jsonl", "10 bytes expected, 5 found"]
            )
        case .transport:
            return (
                .transport(CurlError(code: 7, message: "Failed to connect to h.example port 80")),
                ["before a response arrived", "curl error 7", "Failed to connect to h.example port 80"]
            )
        case .tls:
            return (
                .tls(
                    clientURL("https://h.example/a"), .expiredCertificate,
                    underlying: CurlError(code: 60, message: "certificate has expired")),
                ["TLS", "https://h.example/a", "expired or is not yet valid", "curl error 60"]
            )
        case .timedOut:
            return (.timedOut(.connect), ["timed out", "connect timeout"])
        case .unsupportedConfiguration:
            return (.unsupportedConfiguration("Unix sockets need CurlTransport"), ["Unix sockets need CurlTransport"])
        case .unacceptableStatusCode:
            return (.unacceptableStatusCode(418, response), ["418", "http://h.example/a", "oops"])
        case .invalidResponse:
            return (
                .invalidResponse(response, reason: "Content-Range starts at 0, not 5"),
                ["Invalid response", "http://h.example/a", "Content-Range starts at 0, not 5"]
            )
        case .malformedResponse:
            return (
                .malformedResponse(url, reason: "the status line is Http/1.1 200 OK"),
                ["Malformed response", "http://h.example/a", "Http/1.1 200 OK"]
            )
        case .incompleteResponse:
            return (
                .incompleteResponse(
                    url, received: 5, expected: 10, underlying: CurlError(code: 18, message: "transfer closed")),
                ["http://h.example/a", "ended before it was complete", "5 of 10", "curl error 18"]
            )
        case .decodingFailed:
            let context = DecodingError.Context(codingPath: items, debugDescription: "no name")
            return (
                .decodingFailed(.keyNotFound(DescriptionKey("name"), context), response),
                ["http://h.example/a", "missing key \"name\"", "items[2]", "oops"]
            )
        case .tooManyRedirects:
            return (.tooManyRedirects(url), ["Too many redirects", "http://h.example/a"])
        case .responseTooLarge:
            return (
                .responseTooLarge(url, limit: .bodyBytes(1_000)),
                ["http://h.example/a", "maximumBodyBytes (1000 bytes)"]
            )
        case .insecureRedirect:
            return (
                .insecureRedirect(from: clientURL("https://h.example/a"), to: clientURL("http://h.example/b")),
                ["https://h.example/a", "http://h.example/b", "plain HTTP"]
            )
        case .proxyRefused:
            return (
                .proxyRefused(url, proxy: clientURL("http://proxy.example:3128"), status: 407),
                ["http://proxy.example:3128", "http://h.example/a", "credentials", "407"]
            )
        case .notCached:
            return (.notCached(url), ["No cached response", "http://h.example/a"])
        case .lineTooLong:
            return (.lineTooLong(url, limit: 1_000), ["http://h.example/a", "longer than 1000 bytes"])
        case .lineDecodingFailed:
            let context = DecodingError.Context(codingPath: [DescriptionKey("n")], debugDescription: "not a number")
            return (
                .lineDecodingFailed(.dataCorrupted(context), line: 4, url: url),
                ["Line 4", "http://h.example/a", "not a number"]
            )
        case .eventStreamRefused:
            return (
                .eventStreamRefused(response, reason: "its Content-Type is text/html"),
                ["http://h.example/a", "did not answer with an event stream", "its Content-Type is text/html"]
            )
        case .compressionFailed:
            return (
                .compressionFailed(.zlib(code: -2, message: "stream error")),
                ["could not be compressed", "zlib failed with code -2", "stream error"]
            )
        case .crossOriginPage:
            return (
                .crossOriginPage(from: url, to: URL(string: "https://elsewhere.example/p2")!),
                ["Refused the next page", "https://elsewhere.example/p2", "http://h.example/a"]
            )
        case .repeatedPage:
            return (.repeatedPage(url), ["http://h.example/a", "walked before"])
        case .throttled:
            return (
                .throttled(host: "h.example", wait: 12.5),
                ["Requests to h.example", "another 12.50 s", "past the call's deadline"]
            )
        case .webSocketRefused:
            return (
                .webSocketRefused(response, reason: "the server answered 418, not 101 Switching Protocols"),
                ["http://h.example/a", "did not open a WebSocket", "418, not 101"]
            )
        case .webSocketClosed:
            return (
                .webSocketClosed(url, .goingAway, reason: "maintenance"),
                ["WebSocket to http://h.example/a", "1001", "maintenance"]
            )
        case .webSocketProtocolViolation:
            return (
                .webSocketProtocolViolation(url, .maskedFrameFromServer),
                ["http://h.example/a", "broke the protocol", "masked frame"]
            )
        case .webSocketUnresponsive:
            return (.webSocketUnresponsive(url, silence: 10), ["http://h.example/a", "no ping for 10.0 s"])
        case .webSocketMessageDecodingFailed:
            let context = DecodingError.Context(codingPath: items, debugDescription: "expected a number")
            return (
                .webSocketMessageDecodingFailed(
                    .typeMismatch(Int.self, context), message: .text("{}"), url: url),
                ["message from the WebSocket at http://h.example/a", "did not decode", "items[2]"]
            )
        }
    }
}

/// A coding key for the decoding and encoding paths of the description examples.
private struct DescriptionKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ name: String) {
        stringValue = name
    }

    init(index: Int) {
        stringValue = "\(index)"
        intValue = index
    }

    init?(stringValue: String) {
        self.init(stringValue)
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }
}
