import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `Transport` contract, checked for every adapter against a real server.
@Suite("Transport contract", .generousTimeLimit)
struct TransportContractTests {
    @Test("sends exactly the given request, once", arguments: TransportUnderTest.allCases)
    func sendsRequestOnce(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return .text("ok", status: 202)
        }
        defer { server.shutdown() }
        var request = HTTPRequest(url: server.url("/things?x=1"))
        request.method = "PUT"
        request.body = Data("body bytes".utf8)
        request.headers["Content-Type"] = "text/plain"
        request.headers["X-Test"] = "value"

        let response = try await transport.make().send(request).valueWithin()
        #expect(response.statusCode == 202)
        #expect(response.body == Data("ok".utf8))
        #expect(response.url == server.url("/things?x=1"))
        let seen = received.all
        try #require(seen.count == 1)
        #expect(seen[0].method == "PUT")
        #expect(seen[0].target == "/things?x=1")
        #expect(seen[0].bodyText == "body bytes")
        #expect(seen[0].header("Content-Type") == "text/plain")
        #expect(seen[0].header("X-Test") == "value")
        #expect(server.statistics.requestsReceived == 1)
    }

    @Test("follows no redirect", arguments: TransportUnderTest.allCases, [301, 302, 303, 307, 308])
    func noRedirects(_ transport: TransportUnderTest, status: Int) async throws {
        let server = try LoopbackServer { request in
            request.path == "/from" ? .redirect(to: "/to", status: status) : .text("followed")
        }
        defer { server.shutdown() }
        let response = try await transport.make().send(HTTPRequest(url: server.url("/from"))).valueWithin()
        #expect(response.statusCode == status)
        #expect(response.headers["Location"] == "/to")
        #expect(response.url == server.url("/from"))
        #expect(server.statistics.requestsReceived == 1)
    }

    @Test("handles no cookies", arguments: TransportUnderTest.allCases)
    func noCookies(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return LoopbackServer.Response.text("ok").addingHeader("Set-Cookie", "sneaky=1; Path=/")
        }
        defer { server.shutdown() }
        let adapter = transport.make()
        _ = try await adapter.send(HTTPRequest(url: server.url("/one"))).valueWithin()
        _ = try await adapter.send(HTTPRequest(url: server.url("/two"))).valueWithin()
        #expect(received.all.map { $0.header("Cookie") } == [nil, nil])
    }

    @Test("caches nothing", arguments: TransportUnderTest.allCases)
    func noCache(_ transport: TransportUnderTest) async throws {
        let counter = Counter()
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.text("response \(counter.increment())")
                .addingHeader("Cache-Control", "public, max-age=3600")
                .addingHeader("ETag", "\"same\"")
        }
        defer { server.shutdown() }
        let adapter = transport.make()
        let first = try await adapter.send(HTTPRequest(url: server.url("/cacheable"))).valueWithin()
        let second = try await adapter.send(HTTPRequest(url: server.url("/cacheable"))).valueWithin()
        #expect(String(decoding: first.body, as: UTF8.self) == "response 1")
        #expect(String(decoding: second.body, as: UTF8.self) == "response 2")
        #expect(server.statistics.requestsReceived == 2)
    }

    @Test("gzip bodies arrive decoded", arguments: TransportUnderTest.allCases)
    func gzipDecoded(_ transport: TransportUnderTest) async throws {
        // gzip of a JSON array of 20 `{"name":"Tom","mood":"zipped"}` (621 bytes).
        let gzipped = Data([
            0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x8B, 0xAE, 0x56, 0xCA, 0x4B, 0xCC,
            0x4D, 0x55, 0xB2, 0x52, 0x0A, 0xC9, 0xCF, 0x55, 0xD2, 0x51, 0xCA, 0xCD, 0xCF, 0x4F, 0x01, 0x72,
            0xAA, 0x32, 0x0B, 0x0A, 0x52, 0x53, 0x94, 0x6A, 0x75, 0x46, 0xA5, 0x47, 0xA5, 0xA9, 0x25, 0x1D,
            0x0B, 0x00, 0x9D, 0x86, 0xEA, 0xB6, 0x6D, 0x02, 0x00, 0x00,
        ])
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(gzipped, contentType: "application/json").addingHeader(
                "Content-Encoding", "gzip")
        }
        defer { server.shutdown() }
        var request = HTTPRequest(url: server.url("/zipped"))
        request.headers["Accept-Encoding"] = "gzip"
        let response = try await transport.make().send(request).valueWithin()
        #expect(response.body.count == 621)

        let client = NetworkClient(transport: transport.make())
        let cats = try await client.get(
            server.clientEndpoint("/zipped", headers: ["Accept-Encoding": "gzip"]),
            as: [ClientCat].self
        ).valueWithin()
        #expect(cats == Array(repeating: ClientCat(name: "Tom", mood: "zipped"), count: 20))
    }

    @Test("large and chunked bodies arrive whole", arguments: TransportUnderTest.allCases)
    func largeAndChunkedBodies(_ transport: TransportUnderTest) async throws {
        let large = patternedData(count: 8 << 20)
        let server = try LoopbackServer { request in
            request.path == "/large"
                ? .data(large)
                : LoopbackServer.Response.text(String(repeating: "chunky ", count: 1_000)).withBehavior(
                    .chunked(chunkSize: 7))
        }
        defer { server.shutdown() }
        let adapter = transport.make()
        let big = try await adapter.send(HTTPRequest(url: server.url("/large"))).valueWithin()
        #expect(big.body.count == large.count)
        #expect(big.body == large)
        let chunked = try await adapter.send(HTTPRequest(url: server.url("/chunked"))).valueWithin()
        #expect(String(decoding: chunked.body, as: UTF8.self) == String(repeating: "chunky ", count: 1_000))
    }

    @Test("connection refused rejects with KringleError.transport", arguments: TransportUnderTest.allCases)
    func refused(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .status(200) }
        let url = server.url("/")
        server.shutdown()
        let outcome = await transport.make().send(HTTPRequest(url: url)).outcome()
        #expect(outcome.kringleError?.caseName == "transport", "\(outcome)")
    }
}
