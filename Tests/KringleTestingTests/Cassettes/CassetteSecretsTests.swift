import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@Suite("Cassettes keep no secrets", .generousTimeLimit)
struct CassetteSecretsTests {
    @Test("with default settings no secret of the default redaction list reaches the file")
    func defaultRedaction() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("secrets.har")
        let server = try LoopbackServer { request in
            if request.path == "/login" {
                return .text("in")
                    .addingHeader("Set-Cookie", "sid=cookie-secret-1; Path=/; HttpOnly")
                    .addingHeader("Authorization", "Bearer response-auth-secret")
            }
            return .redirect(to: "/done?access_token=location-secret&page=1")
        }
        defer { server.shutdown() }
        // Every default secret header, and every default secret query item, with a value
        // that can be searched for.
        var headers: [String: String] = [:]
        for (index, name) in Redaction.defaultHeaders.sorted().enumerated() {
            headers[name] = "header-secret-\(index)"
        }
        let query = Redaction.defaultQueryItems.sorted().enumerated().map { index, name in
            URLQueryItem(name: name, value: "query-secret-\(index)")
        }
        let client = NetworkClient(
            transport: RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette))
        try await client.get(server.endpoint("/login")).value
        var components = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
        components.user = "tom"
        components.password = "url-password-secret"
        let withPassword = CassetteEndpoint(
            baseURL: components.url!, path: "/area", queryItems: query + [URLQueryItem(name: "page", value: "2")],
            headers: headers)
        _ = await client.get(withPassword).outcome()

        let text = try String(contentsOf: cassette, encoding: .utf8)
        for secret in ["secret-", "url-password"] {
            #expect(!text.contains(secret), "a secret reached the cassette:\n\(text)")
        }
        // What is not secret is still there, so the cassette replays and reads well.
        #expect(text.contains("page=2"))
        #expect(text.contains("sid=\(Redaction.placeholder); Path=/; HttpOnly"))
        let archive = try HAR.Archive.read(from: cassette)
        #expect(archive.log.entries.count >= 2)
        #expect(archive.log.entries[0].response.cookies.first?.name == "sid")
        #expect(archive.log.entries[0].response.cookies.first?.httpOnly == true)
    }

    @Test("a body hook hides JSON fields of request and response bodies")
    func bodyHook() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("bodies.har")
        let server = try LoopbackServer { _ in
            .json(#"{"user": {"name": "tom", "token": "issued-secret"}, "list": [{"password": "p2"}]}"#)
        }
        defer { server.shutdown() }
        let recorder = RecordingTransport(
            recording: NetworkClient.makeDefaultTransport(), to: cassette,
            redaction: CassetteRedaction(body: CassetteRedaction.jsonFields(["password", "Token"])))
        struct Login: Codable, Sendable { var name: String, password: String }
        try await NetworkClient(transport: recorder).post(
            Login(name: "tom", password: "typed-secret"), to: server.endpoint("/login")
        ).value

        let text = try String(contentsOf: cassette, encoding: .utf8)
        #expect(!text.contains("typed-secret"))
        #expect(!text.contains("issued-secret"))
        #expect(!text.contains("p2"))
        let entry = try #require(recorder.entries.first)
        #expect(entry.request.postData?.text?.contains(#""name":"tom""#) == true)
        #expect(entry.response.content.text?.contains(#""password":"\#(Redaction.placeholder)""#) == true)
    }

    @Test("a cassette hides secrets with the client's one placeholder: headers, cookies, URLs and bodies alike")
    func onePlaceholder() async throws {
        let folder = temporaryCassetteFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cassette = folder.appendingPathComponent("placeholder.har")
        let stub = StubTransport()
        stub.stub(.post, "/login", with: StubTransport.Stub(status: 200, headers: ["Set-Cookie": "sid=s3cr3t; Path=/"]))
        let recorder = RecordingTransport(
            recording: stub, to: cassette,
            redaction: CassetteRedaction(body: CassetteRedaction.jsonFields(["password"])))
        let endpoint = CassetteEndpoint(
            baseURL: URL(string: "https://ann:s3cr3t@cats.example")!, path: "/login",
            queryItems: [URLQueryItem(name: "token", value: "s3cr3t")],
            headers: ["Authorization": "Bearer s3cr3t", "Cookie": "a=s3cr3t; b=s3cr3t"])
        try await NetworkClient(transport: recorder).post(
            RequestBody.data(Data(#"{"password":"s3cr3t"}"#.utf8), contentType: "application/json"), to: endpoint
        ).value

        let p = Redaction.placeholder
        let entry = try #require(try HAR.Archive.read(from: cassette).log.entries.first)
        let request = entry.request
        #expect(request.headers.first { $0.name == "Authorization" }?.value == p)
        #expect(request.headers.first { $0.name == "Cookie" }?.value == "a=\(p); b=\(p)")
        #expect(request.cookies.map(\.value) == [p, p])
        // Readable in the URL: not percent-encoded.
        #expect(request.url == "https://ann:\(p)@cats.example/login?token=\(p)")
        #expect(request.queryString.map(\.value) == [p])
        #expect(request.postData?.text == #"{"password":"\#(p)"}"#)
        #expect(entry.response.headers.first { $0.name == "Set-Cookie" }?.value == "sid=\(p); Path=/")
        #expect(entry.response.cookies.map(\.value) == [p])
        #expect(!(try String(contentsOf: cassette, encoding: .utf8)).contains("s3cr3t"))
    }
}
