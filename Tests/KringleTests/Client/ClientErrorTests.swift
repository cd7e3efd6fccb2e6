import Foundation
import KringleTesting
import Testing

@testable import Kringle

#if canImport(FoundationNetworking)
import FoundationNetworking
import KringleTestSupport
#endif

@Suite("Client errors")
struct ClientErrorTests {
    @Test(
        "an unacceptable status keeps the response and its body",
        arguments: ClientUnderTest.all, [400, 404, 422, 500, 503])
    func unacceptableStatusKeepsBody(_ setup: ClientUnderTest, status: Int) async throws {
        let server = try LoopbackServer { _ in
            .json(#"{"error": "Tom is not hungry"}"#, status: status).addingHeader("X-Reason", "full")
        }
        defer { server.shutdown() }
        let outcome = await setup.client().get(server.clientEndpoint("/feed"), as: ClientCat.self).outcome()
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
        arguments: ClientUnderTest.all, [0, 300_000])
    func authenticationChallenge(_ setup: ClientUnderTest, padding: Int) async throws {
        let message = "log in first" + String(repeating: ".", count: padding)
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.json(#"{"error": "\#(message)"}"#, status: 401)
                .addingHeader("WWW-Authenticate", #"Basic realm="cats""#)
        }
        defer { server.shutdown() }
        // A hang would otherwise last the default 60 s timeout.
        let client = setup.client { $0.timeout = 5 }
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

    @Test("Void requests are judged by status too", arguments: TransportUnderTest.allCases, PipelineShape.allCases)
    func voidRequestStatus(_ transport: TransportUnderTest, shape: PipelineShape) async throws {
        let server = try LoopbackServer { _ in .status(500) }
        defer { server.shutdown() }
        let client = transport.client(shape: shape)
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

    @Test("acceptable status codes are configurable", arguments: TransportUnderTest.allCases, PipelineShape.allCases)
    func acceptableStatusCodes(_ transport: TransportUnderTest, shape: PipelineShape) async throws {
        let server = try LoopbackServer { request in
            request.path == "/missing" ? .json(#"{"error": "no cat"}"#, status: 404) : .status(204)
        }
        defer { server.shutdown() }
        let lenient = transport.client(shape: shape) { $0.acceptableStatusCodes = 200..<500 }
        let problem = try await lenient.request(.get, server.clientEndpoint("/missing"), as: ClientAPIProblem.self)
            .valueWithin()
        #expect(problem.statusCode == 404)
        #expect(problem.value == ClientAPIProblem(error: "no cat"))

        let strict = transport.client(shape: shape) { $0.acceptableStatusCodes = 200..<201 }
        let outcome = await strict.get(server.clientEndpoint("/empty")).outcome()
        guard case .unacceptableStatusCode(204, _)? = outcome.kringleError else {
            Issue.record("expected unacceptableStatusCode(204), got \(outcome)")
            return
        }
    }

    @Test("a refused connection rejects with transport", arguments: TransportUnderTest.allCases, PipelineShape.allCases)
    func connectionRefused(_ transport: TransportUnderTest, shape: PipelineShape) async throws {
        let endpoint = refusedEndpoint("/gone")
        let outcome = await transport.client(shape: shape).get(endpoint).outcome()
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

    @Test(
        "a connection closed mid-body rejects with incompleteResponse",
        arguments: TransportUnderTest.allCases, PipelineShape.allCases)
    func closedMidBody(_ transport: TransportUnderTest, shape: PipelineShape) async throws {
        let server = try LoopbackServer { _ in
            .text(String(repeating: "meow ", count: 20_000)).withBehavior(.closeMidBody)
        }
        defer { server.shutdown() }
        let outcome = await transport.client(shape: shape).get(server.clientEndpoint("/truncated"), as: Data.self)
            .outcome()
        #expect(outcome.kringleError?.caseName == "incompleteResponse", "\(outcome)")
    }

    @Test(
        "a connection closed or reset without a response rejects with transport",
        arguments: ClientUnderTest.all, [LoopbackServer.Behavior.closeWithoutResponse, .resetWithoutResponse])
    func noResponse(_ setup: ClientUnderTest, behavior: LoopbackServer.Behavior) async throws {
        let server = try LoopbackServer { _ in LoopbackServer.Response.status(200).withBehavior(behavior) }
        defer { server.shutdown() }
        let outcome = await setup.client().get(server.clientEndpoint("/hang-up")).outcome()
        #expect(outcome.kringleError?.caseName == "transport", "\(outcome)")
    }

    @Test("every KringleError has a readable description")
    func descriptions() {
        let url = clientURL("http://h.example/a")
        let response = Response(
            value: Data("oops".utf8), statusCode: 418, headers: [:], body: Data("oops".utf8), url: url)
        let context = DecodingError.Context(codingPath: [], debugDescription: "bad")
        let cases: [(KringleError, [String])] = [
            (.invalidRequest("no host"), ["no host"]),
            (.transport(URLError(.cannotConnectToHost)), ["failed"]),
            (.timedOut(.total), ["timed out"]),
            (.unacceptableStatusCode(418, response), ["418", "http://h.example/a", "oops"]),
            (.decodingFailed(.dataCorrupted(context), response), ["http://h.example/a", "bad", "oops"]),
            (.tooManyRedirects(url), ["http://h.example/a"]),
            (
                .incompleteResponse(
                    url, received: 5, expected: 10, underlying: CurlError(code: 18, message: "transfer closed")),
                ["http://h.example/a", "ended before it was complete", "5 of 10", "curl error 18"]
            ),
        ]
        for (error, fragments) in cases {
            for fragment in fragments {
                #expect(error.description.contains(fragment), "\(error.caseName): \(error.description)")
            }
        }
    }
}
