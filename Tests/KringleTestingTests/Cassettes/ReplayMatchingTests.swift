import Foundation
import KringleTestSupport
import KringleTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Replay matching", .generousTimeLimit)
struct ReplayMatchingTests {
    /// A cassette of GETs and a POST on cats.example, answered with their index.
    static func archive(_ requests: [(String, String, String?)]) -> HAR.Archive {
        let entries = requests.enumerated().map { index, request in
            var harRequest = HAR.Request(method: request.0, url: request.1)
            harRequest.headers = [HAR.NameValue(name: "Accept", value: "application/json")]
            if let body = request.2 {
                harRequest.postData = HAR.PostData(body: Data(body.utf8), mimeType: "text/plain")
            }
            return HAR.Entry(
                startedDateTime: "2024-05-01T10:00:00.000Z", time: 1, request: harRequest,
                response: HAR.Response(
                    status: 200, content: HAR.Content(body: Data("\(index)".utf8), mimeType: "text/plain")))
        }
        return HAR.Archive(log: HAR.Log(entries: entries))
    }

    static func send(
        _ transport: ReplayTransport, _ method: String, _ url: String, body: String? = nil,
        accept: String = "application/json"
    ) async throws -> String {
        var request = HTTPRequest(url: URL(string: url)!)
        request.method = HTTPMethod(rawValue: method)
        request.headers["Accept"] = accept
        request.body = body.map { Data($0.utf8) }
        let response = try await transport.send(try ValidatedRequest(request)).value
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test("method and URL match, query items in any order; each entry once, first recorded first")
    func defaults() async throws {
        let replay = ReplayTransport(
            archive: Self.archive([
                ("GET", "https://cats.example/cats?a=1&b=2", nil), ("GET", "https://cats.example/cats?a=1&b=2", nil),
                ("POST", "https://cats.example/cats", "x"),
            ]))
        #expect(try await Self.send(replay, "POST", "https://cats.example/cats", body: "other") == "2")
        #expect(try await Self.send(replay, "GET", "https://cats.example/cats?b=2&a=1") == "0")
        #expect(try await Self.send(replay, "GET", "https://CATS.example:443/cats?a=1&b=2") == "1")
        await #expect(throws: KringleError.self) {
            try await Self.send(replay, "GET", "https://cats.example/cats?a=1&b=2")
        }
        #expect(replay.unusedEntries.isEmpty)
    }

    @Test("an unmatched request fails with a typed error naming it and the nearest entries")
    func unmatched() async throws {
        let replay = ReplayTransport(
            archive: Self.archive([
                ("GET", "https://cats.example/cats?page=1", nil), ("DELETE", "https://dogs.example/x", nil),
                ("GET", "https://cats.example/dogs", nil), ("GET", "https://cats.example/cats?page=2", nil),
            ]))
        let error = await #expect(throws: KringleError.self) {
            try await Self.send(replay, "GET", "https://cats.example/cats?page=3")
        }
        guard case .unmatchedRequest(let mismatch)? = cassetteError(error) else {
            Issue.record("expected unmatchedRequest, got \(String(describing: error))")
            return
        }
        #expect(mismatch.method == "GET")
        #expect(mismatch.url == "https://cats.example/cats?page=3")
        #expect(mismatch.entryCount == 4)
        #expect(mismatch.nearest.map(\.index) == [0, 3, 2])
        #expect(mismatch.nearest[0].reasons == ["query lacks page=1", "query has page=3 not recorded"])
        let description = mismatch.description
        #expect(description.contains("GET https://cats.example/cats?page=3"))
        #expect(description.contains("#3 GET https://cats.example/cats?page=2"))
        #expect(!description.contains("dogs.example"))
    }

    @Test("through a client the unmatched error reaches the caller and nothing is sent")
    func unmatchedThroughClient() async throws {
        let server = try LoopbackServer { _ in .text("live") }
        defer { server.shutdown() }
        let replay = ReplayTransport(archive: Self.archive([("GET", server.url("/a").absoluteString, nil)]))
        let outcome = await NetworkClient(transport: replay).get(server.endpoint("/b")).outcome()
        var error: (any Error)?
        if case .failure(let failure) = outcome { error = failure }
        let mismatch: CassetteMismatch? =
            switch error {
            case KringleError.transport(CassetteError.unmatchedRequest(let mismatch))?: mismatch
            default: nil
            }
        #expect(mismatch?.nearest.first?.reasons == ["path /a ≠ /b"], "got \(String(describing: error))")
        #expect(server.statistics.requestsReceived == 0)
    }

    @Test("an unmatched request rejects with a KringleError, its CassetteError kept as the underlying value")
    func unmatchedRejectsWithKringleError() async throws {
        let replay = ReplayTransport(archive: Self.archive([("GET", "https://cats.example/cats", nil)]))
        var request = HTTPRequest(url: URL(string: "https://cats.example/dogs")!)
        request.method = "GET"
        let validated = try ValidatedRequest(request)
        let sent = await replay.send(validated).outcome()
        var transfer = TransferRequest(request: validated)
        transfer.responseBodyChannel = ResponseBodyChannel(capacity: 1)
        let transferred = await replay.transfer(transfer).outcome()
        for outcome in [sent, transferred] {
            guard case .failure(KringleError.transport(let underlying)) = outcome else {
                Issue.record("expected KringleError.transport, got \(outcome)")
                continue
            }
            guard case CassetteError.unmatchedRequest(let mismatch) = underlying else {
                Issue.record("expected the CassetteError inside, got \(underlying)")
                continue
            }
            #expect(mismatch.nearest.first?.reasons == ["path /cats ≠ /dogs"])
        }
    }

    @Test("chosen headers and the body can be matched too")
    func headersAndBody() async throws {
        let replay = ReplayTransport(
            archive: Self.archive([
                ("POST", "https://cats.example/cats", "tom"), ("POST", "https://cats.example/cats", "felix"),
            ]),
            matching: CassetteMatching(headers: ["accept"], body: true))
        #expect(try await Self.send(replay, "POST", "https://cats.example/cats", body: "felix") == "1")
        let error = await #expect(throws: KringleError.self) {
            try await Self.send(replay, "POST", "https://cats.example/cats", body: "tom", accept: "text/html")
        }
        #expect(String(describing: error).contains(#"header accept: "application/json" ≠ "text/html""#))
        #expect(try await Self.send(replay, "POST", "https://cats.example/cats", body: "tom") == "0")
    }

    @Test("the recorded order can be required, and entries made repeatable")
    func orderAndReuse() async throws {
        let requests = [("GET", "https://cats.example/a", nil as String?), ("GET", "https://cats.example/b", nil)]
        let ordered = ReplayTransport(archive: Self.archive(requests), matching: CassetteMatching(order: .recorded))
        let error = await #expect(throws: KringleError.self) {
            try await Self.send(ordered, "GET", "https://cats.example/b")
        }
        #expect(String(describing: error).contains("out of the recorded order: entry #0 comes first"))
        #expect(try await Self.send(ordered, "GET", "https://cats.example/a") == "0")
        #expect(try await Self.send(ordered, "GET", "https://cats.example/b") == "1")

        let repeatable = ReplayTransport(
            archive: Self.archive(requests), matching: CassetteMatching(reuse: .repeatable))
        for _ in 0..<3 { #expect(try await Self.send(repeatable, "GET", "https://cats.example/b") == "1") }
        #expect(repeatable.unusedEntries == [0])
    }

    @Test("the origin can be left out, for a cassette recorded against another host")
    func ignoringOrigin() async throws {
        let replay = ReplayTransport(
            archive: Self.archive([("GET", "https://staging.cats.example:8443/cats", nil)]),
            matching: CassetteMatching(comparesOrigin: false))
        #expect(try await Self.send(replay, "GET", "https://cats.example/cats") == "0")
    }

    @Test("a loopback port is not compared by default: a LoopbackServer's cassette answers in a later run")
    func loopbackPorts() async throws {
        let recorded = Self.archive([
            ("GET", "http://127.0.0.1:5000/cats", nil), ("GET", "http://localhost:5000/dogs", nil),
            ("GET", "http://[::1]:5000/owls", nil), ("GET", "https://cats.example:8443/cats", nil),
        ])
        let replay = ReplayTransport(archive: recorded, matching: CassetteMatching(order: .recorded))
        #expect(try await Self.send(replay, "GET", "http://127.0.0.1:6001/cats") == "0")
        #expect(try await Self.send(replay, "GET", "http://localhost:6001/dogs") == "1")
        #expect(try await Self.send(replay, "GET", "http://[::1]:6001/owls") == "2")
        // Another host's port still counts, and so does the host.
        let otherPort = await #expect(throws: KringleError.self) {
            try await Self.send(replay, "GET", "https://cats.example:9443/cats")
        }
        #expect(String(describing: otherPort).contains("origin https://cats.example:8443 ≠ https://cats.example:9443"))

        let strict = ReplayTransport(archive: recorded, matching: CassetteMatching(ignoresLoopbackPorts: false))
        let error = await #expect(throws: KringleError.self) {
            try await Self.send(strict, "GET", "http://127.0.0.1:6001/cats")
        }
        #expect(String(describing: error).contains("origin http://127.0.0.1:5000 ≠ http://127.0.0.1:6001"))
        let host = await #expect(throws: KringleError.self) {
            try await Self.send(replay, "GET", "http://10.0.0.1:5000/cats")
        }
        #expect(String(describing: host).contains("origin http://127.0.0.1:5000 ≠ http://10.0.0.1:5000"))
    }
}

extension ReplayMatchingTests {
    /// One POST recorded with `body` of type `mimeType`, answered with `matched`.
    static func jsonArchive(_ body: String, mimeType: String) -> HAR.Archive {
        var request = HAR.Request(method: "POST", url: "https://cats.example/cats")
        request.headers = [HAR.NameValue(name: "Content-Type", value: mimeType)]
        request.postData = HAR.PostData(body: Data(body.utf8), mimeType: mimeType)
        let entry = HAR.Entry(
            startedDateTime: "2024-05-01T10:00:00.000Z", time: 1, request: request,
            response: HAR.Response(
                status: 200, content: HAR.Content(body: Data("matched".utf8), mimeType: "text/plain")))
        return HAR.Archive(log: HAR.Log(entries: [entry]))
    }

    @Test(
        "a JSON body matches its recording with the keys in another order; other bodies byte for byte",
        arguments: [
            // A client's JSONEncoder writes members in an order that changes between processes.
            (
                "application/json", #"{"name":"Tom","mood":"purring","toys":["ball","mouse"]}"#,
                "application/json", #"{"toys":["ball","mouse"],"mood":"purring","name":"Tom"}"#, true
            ),
            (
                "application/json; charset=utf-8", #"{"cat":{"name":"Tom","age":3},"at":1.5}"#,
                "Application/JSON", #"{ "at": 1.5, "cat": { "age": 3.0, "name": "Tom" } }"#, true
            ),
            (
                "application/merge-patch+json", #"{"a":1,"b":null}"#, "application/merge-patch+json",
                #"{"b":null,"a":1}"#, true
            ),
            // JSON values still have to be equal: an array's order counts, and so does each value.
            (
                "application/json", #"{"toys":["ball","mouse"]}"#, "application/json", #"{"toys":["mouse","ball"]}"#,
                false
            ),
            (
                "application/json", #"{"name":"Tom","mood":"purring"}"#, "application/json",
                #"{"mood":"hungry","name":"Tom"}"#, false
            ),
            // Not JSON by type, or not JSON at all: the bytes are compared.
            ("text/plain", #"{"a":1,"b":2}"#, "text/plain", #"{"b":2,"a":1}"#, false),
            ("application/json", #"{"a":1,"b":2}"#, "text/plain", #"{"b":2,"a":1}"#, false),
            ("application/json", #"{"a":1,"b":2"#, "application/json", #"{"b":2,"a":1"#, false),
        ])
    func jsonBodyMatchesWithKeysInAnyOrder(
        recordedType: String, recorded: String, askedType: String, asked: String, matches: Bool
    ) async throws {
        let replay = ReplayTransport(
            archive: Self.jsonArchive(recorded, mimeType: recordedType), matching: CassetteMatching(body: true))
        var request = HTTPRequest(url: URL(string: "https://cats.example/cats")!)
        request.method = "POST"
        request.headers["Content-Type"] = askedType
        request.body = Data(asked.utf8)
        let outcome = await replay.send(try ValidatedRequest(request)).outcome()
        switch outcome {
        case .success(let response):
            #expect(matches, "matched a body that differs: \(asked)")
            #expect(String(decoding: response.body, as: UTF8.self) == "matched")
        case .failure(let error):
            #expect(!matches, "\(error)")
            #expect(String(describing: error).contains("body differs"))
        }
    }
}
