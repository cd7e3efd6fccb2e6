import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every body form, compressed, sent to a server that is not ours: Python's `http.server`
/// inflating with its standard library (``InflatingServer``), which answers with what it
/// inflated, and refuses (415) a body that did not arrive with the coding each test asks
/// for. Over both transports, through the typed API and the callback API.
@Suite("Compressed request bodies: a Python server inflates them", .requires(.python3), .generousTimeLimit)
struct PythonInflatesTests {
    typealias LogBatch = CompressedRequestTests.LogBatch
    static let codings = RequestCompression.Coding.allCases

    private static func server() async throws -> InflatingServer {
        try await InflatingServer.shared.value.get()
    }

    private static func endpoint(
        _ path: String, _ coding: RequestCompression.Coding
    ) async throws -> CompressedRequestTests.CompressingEndpoint {
        .init(
            baseURL: try await server().baseURL, path: InflatingServer.path(path, expecting: coding),
            compression: RequestCompression(coding))
    }

    /// Checks the server's account of what arrived.
    private static func expectArrived(
        _ response: Response<Data>, compressedAs coding: RequestCompression.Coding, smallerThan size: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.headers["X-Content-Encoding"] == coding.rawValue, sourceLocation: sourceLocation)
        let received = Int(response.headers["X-Received-Bytes"] ?? "") ?? .max
        #expect(received < size, "compressed: \(received) of \(size) bytes", sourceLocation: sourceLocation)
    }

    @Test(
        "RequestBuilder + sendRequest: JSON, gzipped or deflated, inflates to the original",
        arguments: TransportUnderTest.allCases, codings)
    func builderJSON(_ transport: TransportUnderTest, coding: RequestCompression.Coding) async throws {
        var builder = RequestBuilder(
            method: .post, url: try await Self.server().url("/logs", expecting: coding), body: .json(LogBatch.sample))
        builder.compression = RequestCompression(coding)
        let done = Promise<NetworkResult>.pending()

        transport.client().sendRequest(builder) { done.fulfill($0) }
        let response = try await done.outcome().get().result.get()
        let original = try JSONEncoder().encode(LogBatch.sample)
        #expect(response.body == original)
        Self.expectArrived(response, compressedAs: coding, smallerThan: original.count)
        #expect(response.headers["X-Content-Type"] == "application/json")
    }

    @Test("post(_:to:as:): JSON inflates to the original", arguments: TransportUnderTest.allCases, codings)
    func typedJSON(_ transport: TransportUnderTest, coding: RequestCompression.Coding) async throws {
        let inflated = try await transport.client()
            .post(LogBatch.sample, to: try await Self.endpoint("/logs", coding), as: Data.self).valueWithin()
        #expect(inflated == (try JSONEncoder().encode(LogBatch.sample)))
    }

    @Test("Data and a form inflate to the original", arguments: TransportUnderTest.allCases, codings)
    func dataAndForm(_ transport: TransportUnderTest, coding: RequestCompression.Coding) async throws {
        let client = transport.client()
        let endpoint = try await Self.endpoint("/raw", coding)
        let data = Inflating.sample(bytes: 50_000)
        let fields = (0..<200).map { (name: "cat\($0)", value: "Tom & Jerry #\($0)") }

        let sentData = try await client.request(
            .post, endpoint, body: .data(data, contentType: "text/plain"), as: Data.self
        )
        .valueWithin()
        let sentForm = try await client.request(.post, endpoint, body: .form(fields), as: Data.self).valueWithin()

        #expect(sentData.body == data)
        Self.expectArrived(sentData, compressedAs: coding, smallerThan: data.count)
        #expect(sentData.headers["X-Content-Type"] == "text/plain")
        let form = String(decoding: sentForm.body, as: UTF8.self)
        #expect(form.hasPrefix("cat0=Tom%20%26%20Jerry%20%230&cat1="), "\(form.prefix(60))")
        #expect(form.split(separator: "&").count == fields.count)
        Self.expectArrived(sentForm, compressedAs: coding, smallerThan: form.utf8.count)
        #expect(sentForm.headers["X-Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
    }

    @Test("a multipart form through the callback API, compressed as it streams", arguments: TransportUnderTest.allCases)
    func multipart(_ transport: TransportUnderTest) async throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = Inflating.sample(bytes: 200_000)
        let file = try scratch.write(data, to: "tom.jsonl")
        let builder = RequestBuilder(
            method: .post, url: try await Self.server().url("/forms", expecting: .deflate),
            body: .multipart([
                .field(name: "caption", value: "Tom"),
                .file(name: "log", fileURL: file, filename: "tom.jsonl", contentType: "application/jsonl"),
            ]), compression: .deflate)
        let done = Promise<NetworkResult>.pending()

        transport.client().sendRequest(builder) { done.fulfill($0) }
        let response = try await done.outcome().get().result.get()
        let boundary = try #require(
            response.headers["X-Content-Type"]?.split(separator: "=").last.map(String.init))
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.hasPrefix("--\(boundary)\r\n"))
        #expect(text.hasSuffix("--\(boundary)--\r\n"))
        #expect(text.contains("name=\"caption\"\r\n\r\nTom\r\n"))
        #expect(response.body.range(of: data) != nil, "the file's bytes are in the form")
        Self.expectArrived(response, compressedAs: .deflate, smallerThan: data.count)
    }

    @Test(
        "a file upload, compressed as it streams, inflates to the file", arguments: TransportUnderTest.allCases, codings
    )
    func fileUpload(_ transport: TransportUnderTest, coding: RequestCompression.Coding) async throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = Inflating.sample(bytes: 8 << 20)
        let file = try scratch.write(data, to: "logs.jsonl")

        let inflated = try await transport.client()
            .upload(file, to: try await Self.endpoint("/upload", coding), as: Data.self).valueWithin(120)
        #expect(inflated.count == data.count)
        #expect(inflated == data)
    }

    @Test("a body without the expected coding, or that does not inflate, is refused, so the checks above can fail")
    func serverRefusesBrokenBodies() async throws {
        let client = TransportUnderTest.curl.client()
        let server = try await Self.server()
        let plain = Inflating.sample(bytes: 10_000)
        let gzipped = try RequestCompression.gzip.compress(plain)
        var truncated = RequestBuilder(
            method: .post, url: server.url("/raw", expecting: .gzip),
            body: .data(gzipped.dropLast(4), contentType: "text/plain"))
        truncated.headers["Content-Encoding"] = "gzip"
        var unknown = RequestBuilder(
            method: .post, url: server.baseURL.appendingPathComponent("/br/raw"),
            body: .data(gzipped, contentType: "text/plain"))
        unknown.headers["Content-Encoding"] = "br"
        // What a client that silently dropped its compression would send.
        let uncompressed = RequestBuilder(
            method: .post, url: server.url("/raw", expecting: .gzip), body: .data(plain, contentType: "text/plain"))
        var otherCoding = RequestBuilder(
            method: .post, url: server.url("/raw", expecting: .deflate),
            body: .data(gzipped, contentType: "text/plain"))
        otherCoding.headers["Content-Encoding"] = "gzip"
        let noCoding = RequestBuilder(
            method: .post, url: server.baseURL.appendingPathComponent("/"),
            body: .data(plain, contentType: "text/plain"))

        for (builder, status, reason) in [
            (truncated, 400, ""), (unknown, 415, "unsupported coding: br"),
            (uncompressed, 415, "expected gzip, received identity"),
            (otherCoding, 415, "expected deflate, received gzip"),
            (noCoding, 400, "the path must begin with the expected coding"),
        ] {
            let done = Promise<NetworkResult>.pending()
            client.sendRequest(builder) { done.fulfill($0) }
            let result = try await done.outcome().get().result
            guard case .failure(KringleError.unacceptableStatusCode(let code, let response)) = result else {
                Issue.record("expected \(status), got \(result)")
                continue
            }
            #expect(code == status)
            #expect(String(decoding: response.body, as: UTF8.self).hasPrefix(reason))
        }
        // The same uncompressed body where the server is told to expect none: accepted.
        let accepted = RequestBuilder(
            method: .post, url: server.url("/raw", expecting: nil), body: .data(plain, contentType: "text/plain"))
        let done = Promise<NetworkResult>.pending()
        client.sendRequest(accepted) { done.fulfill($0) }
        #expect(try await done.outcome().get().result.get().body == plain)
    }
}
