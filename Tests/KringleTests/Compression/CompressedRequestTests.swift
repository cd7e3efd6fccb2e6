import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Compressed request bodies reach a real server (LoopbackServer on 127.0.0.1), which keeps
/// the bytes as they arrived; Python's zlib inflates them, and they must be the original.
@Suite("Compressed request bodies", .generousTimeLimit)
struct CompressedRequestTests {
    /// An endpoint on `server` that compresses.
    struct CompressingEndpoint: Endpoint {
        var baseURL: URL
        var path: String
        var compression: RequestCompression?
        var headers: [String: String] = [:]
    }

    struct LogBatch: Codable, Sendable, Equatable {
        var lines: [String]
        static let sample = LogBatch(lines: (0..<200).map { "cat \($0) purred at \($0 * 37 % 1000) Hz" })
    }

    static let codings = RequestCompression.Coding.allCases

    /// A server that records every request and answers with a receipt.
    private static func recordingServer(_ received: ReceivedRequests) throws -> LoopbackServer {
        try LoopbackServer { request in
            received.append(request)
            return .streamingReceipt(for: request)
        }
    }

    /// What arrived, inflated, after checking the request said it was compressed.
    private static func inflated(
        _ request: LoopbackServer.Request, as coding: RequestCompression.Coding,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Data {
        #expect(request.header("Content-Encoding") == coding.rawValue, sourceLocation: sourceLocation)
        return try Inflating.inflate(request.body, as: coding, with: .pythonZlib)
    }

    @Test(
        "RequestBuilder + sendRequest: a gzipped or deflated JSON body inflates to the original",
        arguments: TransportUnderTest.allCases, codings)
    func builderAndSendRequest(_ transport: TransportUnderTest, coding: RequestCompression.Coding) async throws {
        let received = ReceivedRequests()
        let server = try Self.recordingServer(received)
        defer { server.shutdown() }
        var builder = RequestBuilder(method: .post, url: server.url("/logs"), body: .json(LogBatch.sample))
        builder.compression = RequestCompression(coding)
        let done = Promise<NetworkResult>.pending()

        transport.client().sendRequest(builder) { done.fulfill($0) }
        let result = try await done.outcome().get()
        #expect((try? result.result.get())?.statusCode == 200, "\(result)")
        let request = try #require(received.all.first)
        let original = try JSONEncoder().encode(LogBatch.sample)
        #expect(try Self.inflated(request, as: coding) == original)
        #expect(request.body.count < original.count / 2)
        #expect(request.header("Content-Length") == String(request.body.count))
        #expect(request.header("Content-Type") == "application/json")
    }

    @Test(
        "post(_:to:as:) to an endpoint that compresses: the server inflates the original bytes",
        arguments: TransportUnderTest.allCases, codings)
    func typedPost(_ transport: TransportUnderTest, coding: RequestCompression.Coding) async throws {
        let received = ReceivedRequests()
        let server = try Self.recordingServer(received)
        defer { server.shutdown() }
        let endpoint = CompressingEndpoint(
            baseURL: server.baseURL, path: "/logs", compression: RequestCompression(coding))

        let receipt = try await transport.client().post(LogBatch.sample, to: endpoint, as: StreamingReceipt.self)
            .valueWithin()
        let request = try #require(received.all.first)
        #expect(receipt.bytes == request.body.count)
        let decoded = try JSONDecoder().decode(LogBatch.self, from: try Self.inflated(request, as: coding))
        #expect(decoded == LogBatch.sample)
    }

    @Test("a body below the threshold is sent as it is", arguments: TransportUnderTest.allCases)
    func smallBodyIsLeftAlone(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try Self.recordingServer(received)
        defer { server.shutdown() }
        let endpoint = CompressingEndpoint(baseURL: server.baseURL, path: "/cats", compression: .gzip)
        let small = Data(repeating: 0x61, count: RequestCompression.defaultMinimumBodySize - 1)

        _ = try await transport.client().post(small, to: endpoint, as: StreamingReceipt.self).valueWithin()
        let request = try #require(received.all.first)
        #expect(request.header("Content-Encoding") == nil)
        #expect(request.body == small)
    }

    @Test(
        "a file upload is compressed as it streams and inflates to the file",
        arguments: TransportUnderTest.allCases, codings)
    func fileUpload(_ transport: TransportUnderTest, coding: RequestCompression.Coding) async throws {
        let received = ReceivedRequests()
        let server = try Self.recordingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = Inflating.sample(bytes: 3 << 20)
        let file = try scratch.write(data, to: "logs.jsonl")
        let endpoint = CompressingEndpoint(
            baseURL: server.baseURL, path: "/logs", compression: RequestCompression(coding))

        _ = try await transport.client().upload(file, to: endpoint, as: StreamingReceipt.self).valueWithin(60)
        let request = try #require(received.all.first)
        #expect(try Self.inflated(request, as: coding) == data)
        #expect(request.body.count < data.count / 3)
        // Its length is not known before it is sent: chunked from curl; URLSession sends the
        // compressed copy it spooled, whose length it knows.
        switch transport {
        case .curl: #expect(request.header("Transfer-Encoding") == "chunked")
        case .urlSession: #expect(request.header("Content-Length") == String(request.body.count))
        }
    }

    @Test("a multipart form is compressed as it streams", arguments: TransportUnderTest.allCases)
    func multipartForm(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try Self.recordingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = Inflating.sample(bytes: 200_000)
        let file = try scratch.write(data, to: "tom.jsonl")
        let builder = RequestBuilder(
            method: .post, url: server.url("/forms"),
            body: .multipart([
                .field(name: "caption", value: "Tom"),
                .file(name: "log", fileURL: file, filename: "tom.jsonl", contentType: "application/jsonl"),
            ]), compression: .gzip)
        let done = Promise<NetworkResult>.pending()

        transport.client().sendRequest(builder) { done.fulfill($0) }
        _ = try await done.outcome().get()
        let request = try #require(received.all.first)
        let inflated = try Self.inflated(request, as: .gzip)
        let boundary = try #require(request.header("Content-Type")?.split(separator: "=").last.map(String.init))
        let text = String(decoding: inflated, as: UTF8.self)
        #expect(text.hasPrefix("--\(boundary)\r\n"))
        #expect(text.hasSuffix("--\(boundary)--\r\n"))
        #expect(inflated.range(of: data) != nil, "the file's bytes are in the form")
        #expect(text.contains("name=\"caption\"\r\n\r\nTom\r\n"))
    }

    @Test(
        "a 307 redirect resends the compressed body, which inflates to the original",
        arguments: TransportUnderTest.allCases, codings)
    func redirectResends(_ transport: TransportUnderTest, coding: RequestCompression.Coding) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return request.path == "/old" ? .redirect(to: "/new", status: 307) : .streamingReceipt(for: request)
        }
        defer { server.shutdown() }
        let endpoint = CompressingEndpoint(
            baseURL: server.baseURL, path: "/old", compression: RequestCompression(coding))

        _ = try await transport.client().post(LogBatch.sample, to: endpoint, as: StreamingReceipt.self).valueWithin()
        let requests = received.all
        #expect(requests.map(\.path) == ["/old", "/new"])
        let original = try JSONEncoder().encode(LogBatch.sample)
        for request in requests {
            #expect(try Self.inflated(request, as: coding) == original)
        }
    }

    @Test(
        "a redirect that turns a compressed POST into a GET drops Content-Encoding and the body's other fields",
        arguments: TransportUnderTest.allCases, [301, 302, 303])
    func redirectToGetDropsContentHeaders(_ transport: TransportUnderTest, status: Int) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return request.path == "/old" ? .redirect(to: "/new", status: status) : .text("landed")
        }
        defer { server.shutdown() }
        let endpoint = CompressingEndpoint(
            baseURL: server.baseURL, path: "/old", compression: .gzip,
            headers: ["Content-Language": "en", "Content-Location": "/logs/1", "X-Kept": "yes"])

        _ = try await transport.client().post(LogBatch.sample, to: endpoint, as: Data.self).valueWithin()
        let requests = received.all
        try #require(requests.map(\.path) == ["/old", "/new"])
        #expect(requests[0].header("Content-Encoding") == "gzip")
        #expect(requests[0].header("Content-Language") == "en")
        let get = requests[1]
        #expect(get.method == "GET")
        #expect(get.body.isEmpty)
        for name in Redirect.contentHeaders {
            #expect(get.header(name) == nil, "\(name): \(get.header(name) ?? "")")
        }
        #expect(get.header("X-Kept") == "yes")
    }

    @Test("a retry resends the compressed body, streamed or not", arguments: TransportUnderTest.allCases)
    func retryResends(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return received.all.count % 2 == 1 ? .status(503) : .streamingReceipt(for: request)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = Inflating.sample(bytes: 300_000)
        let file = try scratch.write(data, to: "logs.jsonl")
        let endpoint = CompressingEndpoint(baseURL: server.baseURL, path: "/logs", compression: .deflate)
        let client = transport.client {
            $0.interceptors = [RetryPolicy(retryableMethods: [.post], baseDelay: 0, maximumDelay: 0)]
        }

        _ = try await client.post(LogBatch.sample, to: endpoint, as: StreamingReceipt.self).valueWithin()
        _ = try await client.upload(file, to: endpoint, as: StreamingReceipt.self).valueWithin(60)
        let requests = received.all
        #expect(requests.count == 4)
        let original = try JSONEncoder().encode(LogBatch.sample)
        for request in requests.prefix(2) {
            #expect(try Self.inflated(request, as: .deflate) == original)
        }
        for request in requests.dropFirst(2) {
            #expect(try Self.inflated(request, as: .deflate) == data)
        }
    }
}

/// What a person reading the log or a `curl` command learns about a compressed body.
@Suite("Compressed request bodies: logs and curlDescription", .generousTimeLimit)
struct CompressedRequestLogTests {
    @Test("the request log says the body was compressed")
    func logSaysCompressed() async throws {
        let server = try LoopbackServer { .streamingReceipt(for: $0) }
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        let client = TransportUnderTest.curl.client { $0.logger = log }
        let endpoint = CompressedRequestTests.CompressingEndpoint(
            baseURL: server.baseURL, path: "/logs", compression: .gzip)

        let receipt = try await client.post(
            CompressedRequestTests.LogBatch.sample, to: endpoint, as: StreamingReceipt.self
        )
        .valueWithin()
        let sent = try #require(log.sent.first)
        #expect(sent.headers["Content-Encoding"] == "gzip")
        #expect(receipt.bytes > 0)
        let line = try #require(log.events.first?.description)
        #expect(line.contains("Content-Encoding: gzip"), "\(line)")
    }

    @Test("the log reports a compressed body's sizes, in memory and streamed from a file")
    func logReportsSizes() async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return .streamingReceipt(for: request)
        }
        defer { server.shutdown() }
        let log = InterceptorEventLog()
        let client = TransportUnderTest.curl.client { $0.logger = log }
        let endpoint = CompressedRequestTests.CompressingEndpoint(
            baseURL: server.baseURL, path: "/logs", compression: .gzip)
        _ = try await client.post(CompressedRequestTests.LogBatch.sample, to: endpoint, as: StreamingReceipt.self)
            .valueWithin()
        let original = try JSONEncoder().encode(CompressedRequestTests.LogBatch.sample)

        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = Inflating.sample(bytes: 1 << 20)
        let file = try scratch.write(data, to: "logs.jsonl")
        _ = try await client.upload(file, to: endpoint, as: StreamingReceipt.self).valueWithin(60)

        let sizes = log.events.compactMap { event -> CompressedBodySizes? in
            guard case .requestBodyCompressed(_, _, let sizes) = event else { return nil }
            return sizes
        }
        let bodies = received.all.map { Int64($0.body.count) }
        #expect(sizes.map(\.originalBytes) == [Int64(original.count), Int64(data.count)])
        #expect(sizes.map(\.compressedBytes) == bodies)
        #expect(sizes.allSatisfy { $0.coding == .gzip })
        let line = try #require(log.events.first { $0.kind == "compressed" }?.description)
        #expect(line.contains("gzip, \(original.count) → \(bodies[0]) bytes"), "\(line)")
    }

    @Test(
        "a compressed upload's progress counts the file's bytes read, out of its size, and the bytes sent",
        arguments: TransportUnderTest.allCases)
    func compressedUploadProgress(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return .streamingReceipt(for: request)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = Inflating.sample(bytes: 2 << 20)
        let file = try scratch.write(data, to: "logs.jsonl")
        let endpoint = CompressedRequestTests.CompressingEndpoint(
            baseURL: server.baseURL, path: "/logs", compression: .gzip)
        let reports = Box<[TransferProgress]>([])
        // Each callback moves the clock a whole reporting interval on, so no update is held
        // back for being too soon: what is counted is how often progress moved.
        let clock = ManualClock()
        let client = transport.client { $0.clock = clock }
        _ = try await client.upload(file, to: endpoint, as: StreamingReceipt.self) { progress in
            reports.withLock { $0.append(progress) }
            clock.advance(by: 0.05)
        }.valueWithin(60)
        let all = reports.value
        let last = try #require(all.last)
        let sent = Int64(try #require(received.all.first).body.count)
        #expect(last.completedBytes == Int64(data.count))
        #expect(last.totalBytes == Int64(data.count))
        // curl counts the chunked framing too: a few bytes per chunk.
        let bytesSent = try #require(last.bytesSent)
        #expect(bytesSent >= sent && bytesSent <= sent + sent / 100, "\(last), \(sent) bytes arrived")
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        // Over curl, progress moves as curl reads the file: not 0 then 100%. URLSession sends a
        // compressed copy it made first, and how many callbacks it makes is the system's to
        // choose: a few steps between in a plain run, none under ThreadSanitizer (the whole
        // file counted before the first callback).
        if transport == .curl {
            let between = all.filter { $0.completedBytes > 0 && $0.completedBytes < Int64(data.count) }
            #expect(!between.isEmpty, "\(all.map(\.completedBytes))")
        }
        #expect(all.allSatisfy { $0.totalBytes == Int64(data.count) })
    }

    @Test("curlDescription reads a compressed body from standard input instead of printing it")
    func curlDescription() throws {
        var request = HTTPRequest(url: try #require(URL(string: "https://logs.example/v1/ingest")))
        request.method = "POST"
        request.body = try RequestCompression.gzip.compress(Inflating.sample(bytes: 5000))
        request.headers["Content-Encoding"] = "gzip"
        let command = request.curlDescription(includingBody: true)
        #expect(
            command.hasSuffix(
                "--data-binary @- # pipe in the \(request.body?.count ?? 0) bytes of the gzip-compressed body"))
        #expect(command.contains("-H 'Content-Encoding: gzip'"))
    }
}
