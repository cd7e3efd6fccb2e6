import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An interceptor that sets one header, as a signing interceptor would.
private struct SettingHeader: RequestInterceptor {
    let name: String
    let value: String

    func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
        var adapted = request
        adapted.headers[name] = value
        return Promise(adapted)
    }
}

@Suite("Requests checked before a transport sees them", .generousTimeLimit)
struct RequestValidationTests {
    /// The reason of an `invalidRequest` rejection, or a recorded issue.
    private static func invalidRequestReason<T>(_ outcome: Result<T, any Error>) -> String? {
        guard case .failure(KringleError.invalidRequest(let reason)) = outcome else {
            Issue.record("expected invalidRequest, got \(outcome)")
            return nil
        }
        return reason
    }

    @Test(
        "a header value with CR, LF, NUL or another control character is rejected, naming the header",
        arguments: TransportUnderTest.allCases,
        [
            ("a\r\nX-Injected: 1", "a line break"), ("a\nb", "a line break"), ("a\rb", "a line break"),
            ("a\u{0}b", "a NUL"), ("a\u{7}b", "control character 0x7"), ("a\u{7F}b", "control character 0x7F"),
        ])
    func badHeaderValues(_ transport: TransportUnderTest, value: (String, String)) async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let client = transport.client()
        let outcome = await client.get(server.clientEndpoint("/note", headers: ["X-Note": value.0])).outcome()
        let reason = try #require(Self.invalidRequestReason(outcome))
        #expect(reason.contains("\"X-Note\"") && reason.contains(value.1), "\(reason)")
        #expect(server.statistics.requestsReceived == 0, "nothing reached the server")
    }

    @Test("a tab in a value is fine, and the request goes out", arguments: TransportUnderTest.allCases)
    func tabIsFine(_ transport: TransportUnderTest) async throws {
        let seen = Box<String?>(nil)
        let server = try LoopbackServer { request in
            seen.withLock { $0 = request.header("X-Note") }
            return .text("ok")
        }
        defer { server.shutdown() }
        _ = try await transport.client().get(server.clientEndpoint("/note", headers: ["X-Note": "a\tb"]))
            .valueWithin()
        #expect(seen.value == "a\tb")
    }

    @Test(
        "a header name or method that is not a token is rejected",
        arguments: [("X Note", "header name"), ("X-Note:", "header name"), ("", "header name"), ("Ünï", "header name")]
    )
    func badHeaderNames(header: (name: String, kind: String)) async throws {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 200) }
        let client = NetworkClient(configuration: NetworkClient.Configuration(), transport: transport)
        let outcome = await client.get(ClientTestEndpoint(baseURL: stubBase, path: "/x", headers: [header.name: "v"]))
            .outcome()
        let reason = try #require(Self.invalidRequestReason(outcome))
        #expect(reason.contains(header.kind), "\(reason)")
        #expect(transport.requests.isEmpty)
    }

    @Test("a method with a space or line break is rejected", arguments: ["GET /admin HTTP/1.1\r\nX: y", "PO ST", ""])
    func badMethods(method: String) async throws {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 200) }
        let client = NetworkClient(configuration: NetworkClient.Configuration(), transport: transport)
        let outcome = await client.request(
            HTTPMethod(rawValue: method), ClientTestEndpoint(baseURL: stubBase, path: "/x"), as: Data.self
        ).outcome()
        let reason = try #require(Self.invalidRequestReason(outcome))
        #expect(reason.contains("method"), "\(reason)")
        #expect(transport.requests.isEmpty)
    }

    /// On Linux `URLRequest.setValue` drops a value with CR, LF or NUL by itself, so the
    /// interceptor's header here holds another control character, which it keeps.
    @Test("a header an interceptor sets is checked too")
    func interceptorHeaders() async throws {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 200) }
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [SettingHeader(name: "X-Signature", value: "s\u{1B}[2J")]
        let client = NetworkClient(configuration: configuration, transport: transport)
        let reason = try #require(
            Self.invalidRequestReason(await client.get(ClientTestEndpoint(baseURL: stubBase, path: "/x")).outcome()))
        #expect(reason.contains("\"X-Signature\""))
        #expect(transport.requests.isEmpty)
    }

    @Test("a body's content type and a multipart part's content type are checked")
    func contentTypes() async throws {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 200) }
        let client = NetworkClient(configuration: NetworkClient.Configuration(), transport: transport)
        let endpoint = ClientTestEndpoint(baseURL: stubBase, path: "/x")

        let data = await client.post(.data(Data("x".utf8), contentType: "text/plain\r\nX-Admin: 1"), to: endpoint)
            .outcome()
        #expect(Self.invalidRequestReason(data)?.contains("\"Content-Type\"") == true)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-part-\(UUID().uuidString)")
        try Data("photo".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let part = MultipartPart.file(name: "photo", fileURL: file, contentType: "image/jpeg\r\nX-Admin: 1")
        let multipart = await client.post(.multipart([part]), to: endpoint).outcome()
        let reason = try #require(Self.invalidRequestReason(multipart))
        #expect(reason.contains("\"Content-Type\"") && reason.contains("\"photo\""), "\(reason)")
        #expect(transport.requests.isEmpty)
    }
}

@Suite("Paths: dot segments and user values", .generousTimeLimit)
struct PathSafetyTests {
    @Test(
        "a path with a dot segment, plain or percent-encoded, is rejected",
        arguments: [
            "/cats/../../admin/pet", "/cats/./pet", "/cats/%2e%2E/admin", "/cats/.%2e", "/..", "../x",
            // Escaped separators, which some servers decode before they route.
            "/cats/x%2F..%2Fadmin", "/cats/a%5c..%5Cb", "/cats/..\\admin",
        ])
    func dotSegments(path: String) async throws {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 200) }
        let client = NetworkClient(configuration: NetworkClient.Configuration(), transport: transport)
        let outcome = await client.get(ClientTestEndpoint(baseURL: stubBase, path: path)).outcome()
        guard case .failure(KringleError.invalidRequest(let reason)) = outcome else {
            Issue.record("expected invalidRequest, got \(outcome)")
            return
        }
        #expect(reason.contains("segment") && reason.contains("pathSegment"), "\(reason)")
        #expect(transport.requests.isEmpty)
    }

    @Test("names that merely contain dots are fine", arguments: ["/v1.2/cats", "/cats/...", "/cats/.hidden", "/a..b"])
    func dotsInNames(path: String) async throws {
        let url = try URLAssembly.url(base: stubBase, path: path, queryItems: [])
        #expect(url.path.hasSuffix(path))
    }

    @Test("pathSegment keeps a user's value one segment, over both transports", arguments: TransportUnderTest.allCases)
    func pathSegmentOverTheWire(_ transport: TransportUnderTest) async throws {
        let targets = Box<[String]>([])
        let server = try LoopbackServer { request in
            targets.withLock { $0.append(request.target) }
            return .text("ok")
        }
        defer { server.shutdown() }
        let client = transport.client()
        for name in ["a/b", "100%", "Tom Cat?#", "%2e%2e"] {
            _ = try await client.get(server.clientEndpoint("/cats/\(pathSegment: name)/pet")).valueWithin()
        }
        #expect(
            targets.value == [
                "/cats/a%2Fb/pet", "/cats/100%25/pet", "/cats/Tom%20Cat%3F%23/pet", "/cats/%252e%252e/pet",
            ])
        let dots = await client.get(server.clientEndpoint("/cats/\(pathSegment: "..")/pet")).outcome()
        guard case .failure(KringleError.invalidRequest) = dots else {
            Issue.record("a \"..\" name must be rejected, got \(dots)")
            return
        }
        #expect(targets.value.count == 4)
    }

    @Test("a % that starts no escape is still encoded; an escape already there is kept")
    func percentInRawPaths() throws {
        #expect(
            try URLAssembly.url(base: stubBase, path: "/100% cat", queryItems: []).absoluteString.hasSuffix(
                "/100%25%20cat"))
        #expect(try URLAssembly.url(base: stubBase, path: "/a%2Fb", queryItems: []).absoluteString.hasSuffix("/a%2Fb"))
        #expect(try URLAssembly.url(base: stubBase, path: "/a%zz", queryItems: []).absoluteString.hasSuffix("/a%25zz"))
        // What follows an escape is encoded on its own, a combining mark included.
        #expect(
            try URLAssembly.url(base: stubBase, path: "/%41\u{301}", queryItems: []).absoluteString.hasSuffix(
                "/%41%CC%81"))
    }
}

private let stubBase = URL(string: "https://api.example/v1")!
