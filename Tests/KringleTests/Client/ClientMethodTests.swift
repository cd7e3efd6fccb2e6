import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

@Suite("NetworkClient methods and Response", .generousTimeLimit)
struct ClientMethodTests {
    private static let tom = ClientCat(name: "Tom", mood: "purring")
    private static let tomJSON = #"{"name":"Tom","mood":"purring"}"#

    @Test(
        "typed get, post, put, patch and delete send their method and body and decode the answer",
        arguments: TransportUnderTest.allCases)
    func typedForms(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer.echoing()
        defer { server.shutdown() }
        let client = transport.client()
        let endpoint = server.clientEndpoint("/cats/Tom")
        let form = RequestBody.form([("mood", "fed")])
        let raw = RequestBody.data(Data("raw".utf8), contentType: "text/plain")

        let get = try await client.get(endpoint, as: EchoedRequest.self).valueWithin()
        #expect(get == EchoedRequest(method: "GET", target: "/cats/Tom", body: "", contentType: nil))

        let post = try await client.post(Self.tom, to: endpoint, as: EchoedRequest.self).valueWithin()
        #expect(post.method == "POST")
        #expect(try JSONDecoder().decode(ClientCat.self, from: Data(post.body.utf8)) == Self.tom)
        #expect(post.contentType?.hasPrefix("application/json") == true)

        let postForm = try await client.post(form, to: endpoint, as: EchoedRequest.self).valueWithin()
        #expect(postForm.method == "POST")
        #expect(postForm.body == "mood=fed")

        let put = try await client.put(Self.tom, to: endpoint, as: EchoedRequest.self).valueWithin()
        #expect(put.method == "PUT")
        #expect(try JSONDecoder().decode(ClientCat.self, from: Data(put.body.utf8)) == Self.tom)

        let putRaw = try await client.put(raw, to: endpoint, as: EchoedRequest.self).valueWithin()
        #expect(putRaw == EchoedRequest(method: "PUT", target: "/cats/Tom", body: "raw", contentType: "text/plain"))

        let patch = try await client.patch(["mood": "groomed"], to: endpoint, as: EchoedRequest.self).valueWithin()
        #expect(patch.method == "PATCH")
        #expect(patch.body == #"{"mood":"groomed"}"#)

        let patchForm = try await client.patch(form, to: endpoint, as: EchoedRequest.self).valueWithin()
        #expect(patchForm.method == "PATCH")
        #expect(patchForm.body == "mood=fed")

        let delete = try await client.delete(endpoint, as: EchoedRequest.self).valueWithin()
        #expect(delete == EchoedRequest(method: "DELETE", target: "/cats/Tom", body: "", contentType: nil))
    }

    @Test("Void get, post, put, patch and delete send their method and body", arguments: TransportUnderTest.allCases)
    func voidForms(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            // A body on a Void request is ignored, not decoded.
            return request.method == "DELETE" ? .status(204) : .text("not JSON at all")
        }
        defer { server.shutdown() }
        let client = transport.client()
        let endpoint = server.clientEndpoint("/cats/Tom")

        try await client.get(endpoint).valueWithin()
        try await client.post(Self.tom, to: endpoint).valueWithin()
        try await client.post(RequestBody.form([("a", "1")]), to: endpoint).valueWithin()
        try await client.put(Self.tom, to: endpoint).valueWithin()
        try await client.put(RequestBody.data(Data("x".utf8), contentType: "text/plain"), to: endpoint).valueWithin()
        try await client.patch(Self.tom, to: endpoint).valueWithin()
        try await client.patch(RequestBody.form([("b", "2")]), to: endpoint).valueWithin()
        try await client.delete(endpoint).valueWithin()

        let requests = received.all
        #expect(requests.map(\.method) == ["GET", "POST", "POST", "PUT", "PUT", "PATCH", "PATCH", "DELETE"])
        try #require(requests.count == 8)
        #expect([0, 2, 4, 6, 7].map { requests[$0].bodyText } == ["", "a=1", "x", "b=2", ""])
        for index in [1, 3, 5] {
            #expect(try JSONDecoder().decode(ClientCat.self, from: requests[index].body) == Self.tom)
        }
        #expect(requests.allSatisfy { $0.path == "/cats/Tom" })
    }

    @Test(
        "request(_:_:body:cachePolicy:as:) gives status, headers, body and URL",
        arguments: TransportUnderTest.allCases)
    func fullResponse(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response(
                status: 201,
                headers: [
                    ("Content-Type", "application/json"),
                    ("X-Request-Id", "abc-123"),
                    ("Set-Cookie", "first=1; Path=/"),
                    ("Set-Cookie", "second=2; Path=/"),
                    ("Set-Cookie", "third=3; Path=/"),
                ],
                body: Data(Self.tomJSON.utf8)
            )
        }
        defer { server.shutdown() }
        let endpoint = server.clientEndpoint("/cats", query: [URLQueryItem(name: "page", value: "2")])
        let response = try await transport.client()
            .request(.post, endpoint, body: .json(Self.tom), as: ClientCat.self)
            .valueWithin()

        #expect(response.value == Self.tom)
        #expect(response.statusCode == 201)
        #expect(response.headers["x-request-id"] == "abc-123")
        #expect(response.headers["X-REQUEST-ID"] == "abc-123")
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["X-Missing"] == nil)
        #expect(
            response.headers.values(for: "set-cookie") == ["first=1; Path=/", "second=2; Path=/", "third=3; Path=/"])
        #expect(response.headers["Set-Cookie"] == "first=1; Path=/")
        #expect(response.body == Data(Self.tomJSON.utf8))
        #expect(response.url == server.url("/cats?page=2"))
    }

    @Test("as: Data.self gives the raw body, undecoded", arguments: TransportUnderTest.allCases)
    func rawData(_ transport: TransportUnderTest) async throws {
        let bytes = Data([0xFF, 0x00, 0x7B, 0x0A]) + Data(repeating: 0x41, count: 70_000)
        let server = try LoopbackServer { _ in .data(bytes) }
        defer { server.shutdown() }
        let client = transport.client()

        let response = try await client.request(.get, server.clientEndpoint("/blob"), as: Data.self).valueWithin()
        #expect(response.value == bytes)
        #expect(response.body == bytes)
        #expect(try await client.get(server.clientEndpoint("/blob"), as: Data.self).valueWithin() == bytes)
        // An optional `Data` is the raw body too, never a JSON decode.
        #expect(try await client.get(server.clientEndpoint("/blob"), as: Data?.self).valueWithin() == bytes)
    }

    @Test("wait() on a thread of its own gives the value", arguments: TransportUnderTest.allCases)
    func blockingWait(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .json(Self.tomJSON) }
        defer { server.shutdown() }
        let client = transport.client()
        let endpoint = server.clientEndpoint("/cat")
        let waited = try await onOwnThread { try client.get(endpoint, as: ClientCat.self).wait(timeout: 30) }
        #expect(waited == Self.tom)
    }

    @Test("HEAD and custom methods go out as given", arguments: TransportUnderTest.allCases)
    func headAndCustomMethods(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return .text("twelve bytes")
        }
        defer { server.shutdown() }
        let client = transport.client()

        let head = try await client.request(.head, server.clientEndpoint("/h"), as: Data.self).valueWithin()
        #expect(head.statusCode == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["Content-Length"] == "12")

        let purge = try await client.request("PURGE", server.clientEndpoint("/p"), as: Data.self).valueWithin()
        #expect(purge.value == Data("twelve bytes".utf8))
        #expect(received.all.map(\.method) == ["HEAD", "PURGE"])
    }
}
