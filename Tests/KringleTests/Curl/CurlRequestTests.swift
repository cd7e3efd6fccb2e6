import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// Headers, bodies and URLs arrive exactly as the request gave them.
@Suite(.generousTimeLimit) struct CurlRequestTests {
    @Test func customHeadersArrive() async throws {
        let received = Recorder<[(name: String, value: String)]>()
        let server = try LoopbackServer { request in
            received.append(request.headers)
            return .status(204)
        }
        defer { server.shutdown() }
        let request = makeRequest(
            server.url("/"),
            headers: [
                "X-Trace-ID": "abc-123",
                "Authorization": "Bearer token",
                "Accept": "application/json",
                "X-Empty": "",
            ])

        _ = try await CurlTransport().send(request).valueWithin()

        let headers = try #require(received.elements.first)
        func value(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        #expect(value("X-Trace-ID") == "abc-123")
        #expect(value("Authorization") == "Bearer token")
        #expect(value("Accept") == "application/json")
        #expect(value("X-Empty") == "")
        #expect(value("Cookie") == nil)
    }

    /// A `URLRequest` keeps one value per name; an ``HTTPRequest`` keeps every field.
    @Test func fieldsArriveInTheirOrderWithRepeats() async throws {
        let received = Recorder<[(name: String, value: String)]>()
        let server = try LoopbackServer { request in
            received.append(request.headers)
            return .status(204)
        }
        defer { server.shutdown() }
        var request = HTTPRequest(url: server.url("/"))
        request.headers = HTTPHeaders([("X-Zebra", "1"), ("x-apple", "2"), ("X-Zebra", "3"), ("X-Mango", "4")])

        _ = try await CurlTransport().send(request).valueWithin()

        let headers = try #require(received.elements.first)
        let sent = headers.filter { $0.name.lowercased().hasPrefix("x-") }.map { "\($0.name): \($0.value)" }
        #expect(sent == ["X-Zebra: 1", "x-apple: 2", "X-Zebra: 3", "X-Mango: 4"])
    }

    @Test func largeBodyIsSentWithoutExpectContinue() async throws {
        let expectations = Recorder<String?>()
        let server = try LoopbackServer { request in
            expectations.append(request.header("expect"))
            return .data(request.body)
        }
        defer { server.shutdown() }
        // Large enough that curl would otherwise add "Expect: 100-continue".
        let body = patternedData(count: 2_000_000)

        let response = try await CurlTransport().send(makeRequest(server.url("/upload"), method: "POST", body: body))
            .valueWithin()

        #expect(response.body == body)
        #expect(expectations.elements == [nil])
    }

    @Test func randomBinaryBodyRoundTrips() async throws {
        let server = try LoopbackServer { request in .data(request.body) }
        defer { server.shutdown() }
        var generator = SystemRandomNumberGenerator()
        let body = Data((0..<100 * 1024).map { _ in UInt8.random(in: .min ... .max, using: &generator) })

        let response = try await CurlTransport().send(makeRequest(server.url("/echo"), method: "PUT", body: body))
            .valueWithin()

        #expect(response.body.count == body.count)
        #expect(response.body == body)
    }

    @Test func queryStringArrivesIntact() async throws {
        let targets = Recorder<String>()
        let server = try LoopbackServer { request in
            targets.append(request.target)
            return .status(204)
        }
        defer { server.shutdown() }
        let pathAndQuery = "/search?q=a%20b&tag=x&tag=y&empty=&flag&plus=1+2&slash=%2F&utf=%C3%A9"

        let response = try await CurlTransport().send(makeRequest(server.url(pathAndQuery))).valueWithin()

        #expect(response.statusCode == 204)
        #expect(targets.elements == [pathAndQuery])
    }

    @Test func keepAliveReusesOneConnection() async throws {
        let connections = Recorder<Int>()
        let server = try LoopbackServer { request in
            connections.append(request.connectionID)
            return .json(#"{"ok":true}"#)
        }
        defer { server.shutdown() }
        let transport = CurlTransport()

        for _ in 0..<5 {
            _ = try await transport.send(makeRequest(server.url("/"))).valueWithin()
        }

        #expect(Set(connections.elements).count == 1)
        #expect(server.statistics.connectionsAccepted == 1)
    }

    @Test func optionsDoNotStickToReusedHandles() async throws {
        let seen = Recorder<String>()
        let server = try LoopbackServer { request in
            seen.append("\(request.method) \(request.body.count) \(request.header("X-Once") ?? "-")")
            return .status(204)
        }
        defer { server.shutdown() }
        let transport = CurlTransport()

        _ = try await transport.send(makeRequest(server.url("/"), method: "HEAD")).valueWithin()
        _ = try await transport.send(
            makeRequest(server.url("/"), method: "POST", body: Data("abc".utf8), headers: ["X-Once": "1"])
        ).valueWithin()
        _ = try await transport.send(makeRequest(server.url("/"))).valueWithin()
        _ = try await transport.send(makeRequest(server.url("/"), method: "DELETE")).valueWithin()
        _ = try await transport.send(makeRequest(server.url("/"))).valueWithin()

        #expect(seen.elements == ["HEAD 0 -", "POST 3 1", "GET 0 -", "DELETE 0 -", "GET 0 -"])
    }

    /// Kringle writes the field itself rather than have curl format it for every request; it
    /// must say what curl would: the codings curl names when it meets one it cannot decode.
    @Test("Accept-Encoding is sent once, naming the codings libcurl decodes; a caller's own replaces it")
    func acceptEncoding() async throws {
        let received = Recorder<[String]>()
        let server = try LoopbackServer { request in
            received.append(request.headers(named: "Accept-Encoding"))
            return .text("x").addingHeader("Content-Encoding", "x-unknown")
        }
        defer { server.shutdown() }

        let refusal = await CurlTransport().send(makeRequest(server.url("/"))).outcome().failure
        _ = await CurlTransport().send(makeRequest(server.url("/"), headers: ["Accept-Encoding": "gzip"])).outcome()

        let sent = received.elements
        #expect(sent.count == 2)
        let codings = try #require(sent.first?.first)
        #expect(sent.first?.count == 1)
        #expect(codings.contains("gzip"))
        #expect(String(describing: try #require(refusal)).contains("libcurl understands \(codings) content encodings"))
        #expect(sent.last == ["gzip"])
    }
}
