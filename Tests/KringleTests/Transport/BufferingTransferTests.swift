import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("A transport with only send(_:) transfers through the buffering default", .generousTimeLimit)
struct BufferingTransferTests {
    private static let endpointURL = URL(string: "http://stub.example") ?? URL(fileURLWithPath: "/")

    @Test("a download is written to the destination, with a final progress callback")
    func stubDownload() async throws {
        let body = streamingRandomData(count: 300_000, seed: 41)
        let transport = StubTransport()
        transport.stub(
            .get, "/file", with: .init(status: 200, headers: ["Content-Type": "application/octet-stream"], body: body))
        let client = NetworkClient(transport: transport)
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let log = StreamingProgressLog(total: Int64(body.count))

        let response =
            try await client
            .download(
                ClientTestEndpoint(baseURL: Self.endpointURL, path: "/file"), to: destination, progress: log.callback
            )
            .valueWithin()
        #expect(response.value == destination)
        #expect(response.body.isEmpty)
        #expect(streamingContents(of: destination) == body)
        #expect(scratch.entries == ["file.bin"])
        #expect(await log.awaitCompletion())
        #expect(log.values.last == TransferProgress(completedBytes: Int64(body.count), totalBytes: Int64(body.count)))
        #expect(transport.requests.map(\.method) == ["GET"])
    }

    @Test("an upload sends the file's bytes as the body, with its Content-Length")
    func stubUpload() async throws {
        let data = streamingRandomData(count: 200_000, seed: 42)
        let transport = StubTransport()
        transport.stub(.post, "/upload", with: .json(#"{"bytes": 200000}"#))
        let client = NetworkClient(transport: transport)
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(data, to: "up.bin")
        let log = StreamingProgressLog(total: Int64(data.count))

        let receipt =
            try await client
            .upload(
                file, to: ClientTestEndpoint(baseURL: Self.endpointURL, path: "/upload"), as: StreamingReceipt.self,
                progress: log.callback
            )
            .valueWithin()
        #expect(receipt.bytes == 200_000)
        let request = try #require(transport.requests.first)
        #expect(request.body == data)
        #expect(request.headers["Content-Length"] == "200000")
        #expect(request.headers["Content-Type"] == "application/octet-stream")
        #expect(await log.awaitCompletion())
        #expect(log.isMonotonic)
    }

    @Test("a multipart form is sent as one body in memory")
    func stubMultipart() async throws {
        let transport = StubTransport()
        transport.stub(.post, "/form", with: .json(#"{"bytes": 0}"#))
        let client = NetworkClient(transport: transport)
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Data("file body".utf8), to: "a.txt")

        _ = try await client.request(
            .post, ClientTestEndpoint(baseURL: Self.endpointURL, path: "/form"),
            body: .multipart([
                .field(name: "x", value: "y"),
                .file(name: "f", fileURL: file, contentType: "text/plain"),
            ]), as: StreamingReceipt.self
        ).valueWithin()
        let request = try #require(transport.requests.first)
        let body = try #require(request.body)
        let boundary = try #require(
            StreamingMultipartParser.boundary(fromContentType: request.headers["Content-Type"]))
        #expect(request.headers["Content-Length"] == String(body.count))
        #expect(
            try StreamingMultipartParser.parse(body, boundary: boundary) == [
                StreamingParsedPart(name: "x", body: Data("y".utf8)),
                StreamingParsedPart(
                    name: "f", filename: "a.txt", contentType: "text/plain", body: Data("file body".utf8)),
            ])
    }
}

@Suite("The buffering default against a real server", .generousTimeLimit)
struct BufferingTransferServerTests {
    @Test(
        "download, upload and multipart work through a send-only wrapper of the transport",
        arguments: TransportUnderTest.allCases)
    func sendOnly(_ transport: TransportUnderTest) async throws {
        let file = streamingRandomData(count: 5 << 20, seed: 43)
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return request.method == "GET" ? .data(file) : .streamingReceipt(for: request)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let client = transport.streamingClient(wrapping: { StreamingSendOnlyTransport(base: $0) })

        let destination = scratch.file("down.bin")
        let log = StreamingProgressLog(total: Int64(file.count))
        _ = try await client.download(server.clientEndpoint("/down"), to: destination, progress: log.callback)
            .valueWithin(30)
        #expect(streamingContents(of: destination) == file)
        #expect(await log.awaitCompletion())

        let source = try scratch.write(file, to: "up.bin")
        let receipt = try await client.upload(source, to: server.clientEndpoint("/up"), as: StreamingReceipt.self)
            .valueWithin(30)
        #expect(receipt.bytes == file.count)
        #expect(received.all.last?.body == file)

        _ = try await client.request(
            .post, server.clientEndpoint("/form"),
            body: .multipart([
                .field(name: "n", value: "v"),
                .file(name: "f", fileURL: source, filename: "up.bin"),
            ]), as: StreamingReceipt.self
        ).valueWithin(30)
        let form = try #require(received.all.last)
        let boundary = try #require(StreamingMultipartParser.boundary(fromContentType: form.header("Content-Type")))
        let parts = try StreamingMultipartParser.parse(form.body, boundary: boundary)
        #expect(parts.map(\.name) == ["n", "f"])
        #expect(parts.last?.body == file)
        #expect(received.all.map(\.path) == ["/down", "/up", "/form"])
        #expect(scratch.entries == ["down.bin", "up.bin"])
    }
}
