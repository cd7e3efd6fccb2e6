import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Uploads and multipart forms", .generousTimeLimit)
struct UploadTests {
    /// A server that records every request and answers with a ``StreamingReceipt``.
    private static func receivingServer(_ received: ReceivedRequests) throws -> LoopbackServer {
        try LoopbackServer { request in
            received.append(request)
            return .streamingReceipt(for: request)
        }
    }

    @Test(
        "a 20 MB file upload arrives byte-identical, with the right Content-Length and monotonic progress",
        arguments: TransportUnderTest.allCases)
    func uploadFile(_ transport: TransportUnderTest) async throws {
        let data = streamingRandomData(count: 20 << 20, seed: 21)
        let size = Int64(data.count)
        let received = ReceivedRequests()
        let server = try Self.receivingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(data, to: "backup.tar")
        let log = StreamingProgressLog(total: size)

        let receipt = try await transport.client()
            .upload(file, to: server.clientEndpoint("/backups"), as: StreamingReceipt.self, progress: log.callback)
            .valueWithin(60)
        #expect(receipt == StreamingReceipt(bytes: data.count))
        let request = try #require(received.all.first)
        #expect(received.all.count == 1)
        #expect(request.method == "POST")
        #expect(request.path == "/backups")
        #expect(request.header("Content-Length") == String(data.count))
        #expect(request.header("Transfer-Encoding") == nil)
        #expect(request.header("Content-Type") == "application/octet-stream")
        #expect(request.body == data, "the server received different bytes")

        #expect(await log.awaitCompletion())
        #expect(log.isMonotonic, "\(log.values.map(\.completedBytes))")
        #expect(log.values.allSatisfy { $0.totalBytes == size })
        #expect(log.values.last == TransferProgress(completedBytes: size, totalBytes: size))
        #expect(FileManager.default.fileExists(atPath: file.path), "the source file is left alone")
    }

    @Test(
        "an upload uses the method given and keeps the endpoint's Content-Type", arguments: TransportUnderTest.allCases)
    func uploadMethodAndType(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try Self.receivingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Data(#"{"cat": "Tom"}"#.utf8), to: "cat.json")
        let endpoint = server.clientEndpoint("/cats/Tom", headers: ["Content-Type": "application/json"])

        let receipt = try await transport.client().upload(file, to: endpoint, method: .put, as: StreamingReceipt.self)
            .valueWithin()
        #expect(receipt.bytes == 14)
        #expect(received.all.map(\.method) == ["PUT"])
        #expect(received.all.first?.header("Content-Type") == "application/json")
        #expect(received.all.first?.bodyText == #"{"cat": "Tom"}"#)
    }

    @Test("an empty file uploads as an empty body", arguments: TransportUnderTest.allCases)
    func uploadEmptyFile(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try Self.receivingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Data(), to: "empty")
        let log = StreamingProgressLog(total: 0)
        let receipt = try await transport.client()
            .upload(file, to: server.clientEndpoint("/empty"), as: StreamingReceipt.self, progress: log.callback)
            .valueWithin()
        #expect(receipt.bytes == 0)
        #expect(received.all.first?.header("Content-Length") == "0")
        #expect(await log.awaitCompletion())
        #expect(log.values.last == TransferProgress(completedBytes: 0, totalBytes: 0))
    }

    @Test(
        "a multipart form with two fields and two files is parsed back exactly by the server",
        arguments: TransportUnderTest.allCases)
    func multipartForm(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try Self.receivingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let photoBytes = streamingRandomData(count: 3 << 20, seed: 22)
        let photo = try scratch.write(photoBytes, to: "IMG_0001.JPG")
        let logBytes = Data("first line\r\n--not-a-boundary\r\nlast line\n".utf8)
        let log = try scratch.write(logBytes, to: "server.log")

        let response = try await transport.client().request(
            .post, server.clientEndpoint("/gallery"),
            body: .multipart([
                .field(name: "title", value: "Tom asleep"),
                .field(name: "note", value: "two\r\nlines, ünïcödé ✓"),
                .file(name: "photo", fileURL: photo, filename: "tom.jpg", contentType: "image/jpeg"),
                .file(name: "log", fileURL: log),
            ]), as: StreamingReceipt.self
        ).valueWithin(30)

        let request = try #require(received.all.first)
        #expect(response.value.bytes == request.body.count)
        #expect(request.header("Content-Length") == String(request.body.count))
        let boundary = try #require(
            StreamingMultipartParser.boundary(fromContentType: request.header("Content-Type")),
            "\(request.header("Content-Type") ?? "no Content-Type")")
        let parts = try StreamingMultipartParser.parse(request.body, boundary: boundary)
        #expect(parts.map(\.name) == ["title", "note", "photo", "log"])
        #expect(parts.map(\.filename) == [nil, nil, "tom.jpg", "server.log"])
        #expect(parts.map(\.contentType) == [nil, nil, "image/jpeg", "application/octet-stream"])
        #expect(parts.count == 4)
        if parts.count == 4 {
            #expect(parts[0].body == Data("Tom asleep".utf8))
            #expect(parts[1].body == Data("two\r\nlines, ünïcödé ✓".utf8))
            #expect(parts[2].body == photoBytes)
            #expect(parts[3].body == logBytes)
        }
    }

    @Test(
        "multipart names and filenames with quotes and line breaks arrive escaped",
        arguments: TransportUnderTest.allCases)
    func multipartEscaping(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try Self.receivingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Data("content".utf8), to: "plain.txt")

        _ = try await transport.client().request(
            .post, server.clientEndpoint("/form"),
            body: .multipart([
                .field(name: "say \"hi\"\r\nX-Evil: 1", value: "v"),
                .file(name: "up\nload", fileURL: file, filename: "my \"best\"\r\nfile.txt", contentType: "text/plain"),
            ]), as: StreamingReceipt.self
        ).valueWithin()

        let request = try #require(received.all.first)
        let boundary = try #require(StreamingMultipartParser.boundary(fromContentType: request.header("Content-Type")))
        let parts = try StreamingMultipartParser.parse(request.body, boundary: boundary)
        #expect(
            parts == [
                StreamingParsedPart(name: "say %22hi%22%0D%0AX-Evil: 1", body: Data("v".utf8)),
                StreamingParsedPart(
                    name: "up%0Aload", filename: "my %22best%22%0D%0Afile.txt", contentType: "text/plain",
                    body: Data("content".utf8)),
            ])
    }

    @Test(
        "a missing file is a file error for upload and for a multipart part, and nothing is sent",
        arguments: TransportUnderTest.allCases)
    func missingFile(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try Self.receivingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let client = transport.client()
        let missing = scratch.file("missing.bin")

        let upload = await client.upload(missing, to: server.clientEndpoint("/upload"), as: StreamingReceipt.self)
            .outcome()
        #expect(upload.kringleError?.caseName == "file", "\(upload)")
        let form = await client.request(
            .post, server.clientEndpoint("/form"),
            body: .multipart([
                .field(name: "a", value: "1"),
                .file(name: "f", fileURL: missing),
            ]), as: StreamingReceipt.self
        ).outcome()
        #expect(form.kringleError?.caseName == "file", "\(form)")
        let progressed = await client.upload(scratch.url, to: server.clientEndpoint("/dir"), as: StreamingReceipt.self)
            .outcome()
        #expect(progressed.kringleError?.caseName == "file", "a directory is not a file: \(progressed)")

        #expect(server.statistics.requestsReceived == 0)
        #expect(server.statistics.connectionsAccepted == 0)
        // A request sent afterwards is the first the server sees.
        _ = try await client.get(server.clientEndpoint("/sentinel"), as: StreamingReceipt.self).valueWithin()
        #expect(received.all.map(\.path) == ["/sentinel"])
        #expect(server.statistics.requestsReceived == 1)
    }

    // The size recorded when the body was made is the Content-Length. A transport that
    // hands the file to someone else to read (URLSession's `uploadTask(fromFile:)`) must
    // still check it: otherwise a file that shrank leaves the server waiting for bytes
    // until the idle timeout, and a file that grew is sent cut off as a success.
    @Test(
        "a file that changes size after the upload was made fails it with a file error, nothing sent",
        arguments: TransportUnderTest.allCases, ["shrinks", "grows"])
    func fileChangesBeforeSending(_ transport: TransportUnderTest, change: String) async throws {
        let received = ReceivedRequests()
        let server = try Self.receivingServer(received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let original = streamingRandomData(count: 500_000, seed: 25)
        let file = try scratch.write(original, to: "growing.log")
        let changed =
            change == "shrinks" ? original.prefix(200_000) : original + streamingRandomData(count: 100, seed: 26)
        // The interceptor runs after `upload` has sized the body and before the transport reads it.
        let client = transport.client {
            $0.timeout = 1
            $0.interceptors = [StreamingFileRewriter(file: file, contents: Data(changed))]
        }

        let outcome = await client.upload(
            file, to: server.clientEndpoint("/logs"), method: .put, as: StreamingReceipt.self
        )
        .outcome()
        guard case .file(let failed, let underlying)? = outcome.kringleError else {
            Issue.record("expected a file error, got \(outcome)")
            return
        }
        #expect(failed == file)
        #expect((underlying as? KringleError.FileSizeChanged)?.expected == 500_000, "\(underlying)")
        let bodies = received.all.map(\.body.count)
        #expect(bodies.isEmpty, "the server received bodies of \(bodies) bytes")
    }

    @Test(
        "a multipart upload leaves no spooled copy behind, also when cancelled", arguments: TransportUnderTest.allCases)
    func noSpoolLeft(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { request in
            request.path == "/slow"
                ? LoopbackServer.Response.streamingReceipt(for: request).heldUntilHangUp()
                : .streamingReceipt(for: request)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(streamingRandomData(count: 2 << 20, seed: 27), to: "photo.jpg")
        let form: RequestBody = .multipart([.field(name: "a", value: "1"), .file(name: "f", fileURL: file)])
        let temporaryDirectory = FileManager.default.temporaryDirectory.path
        let spools: @Sendable () -> Set<String> = {
            Set(
                ((try? FileManager.default.contentsOfDirectory(atPath: temporaryDirectory)) ?? [])
                    .filter { $0.hasPrefix("kringle-upload-") })
        }
        let before = spools()
        let client = transport.client()

        _ = try await client.request(.post, server.clientEndpoint("/fast"), body: form, as: StreamingReceipt.self)
            .valueWithin(30)
        #expect(await eventually { spools().subtracting(before).isEmpty }, "\(spools().subtracting(before))")

        let slow = client.request(.post, server.clientEndpoint("/slow"), body: form, as: StreamingReceipt.self)
        #expect(await server.awaitStatistics { $0.requestsReceived == 2 }, "\(server.statistics)")
        slow.cancel()
        #expect(await slow.outcome().isCancellation)
        #expect(await eventually { spools().subtracting(before).isEmpty }, "\(spools().subtracting(before))")
    }

    @Test("a 307 redirect sends the streamed body again in full", arguments: TransportUnderTest.allCases)
    func redirectResendsBody(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return request.path == "/old" ? .redirect(to: "/new", status: 307) : .streamingReceipt(for: request)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = streamingRandomData(count: 2 << 20, seed: 23)
        let file = try scratch.write(data, to: "data.bin")

        let receipt = try await transport.client()
            .upload(file, to: server.clientEndpoint("/old"), as: StreamingReceipt.self)
            .valueWithin(30)
        #expect(receipt.bytes == data.count)
        #expect(received.all.map(\.path) == ["/old", "/new"])
        #expect(received.all.map(\.method) == ["POST", "POST"])
        #expect(received.all.last?.body == data)
    }

    @Test("a retried upload sends the whole body again", arguments: TransportUnderTest.allCases)
    func retryResendsBody(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            return received.all.count == 1 ? .status(503) : .streamingReceipt(for: request)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let data = streamingRandomData(count: 2 << 20, seed: 24)
        let file = try scratch.write(data, to: "data.bin")
        let client = transport.client { $0.interceptors = [RetryPolicy(baseDelay: 0.01, maximumDelay: 0.05)] }
        let log = StreamingProgressLog(total: Int64(data.count))

        let receipt = try await client.upload(
            file, to: server.clientEndpoint("/put"), method: .put, as: StreamingReceipt.self,
            progress: log.callback
        ).valueWithin(30)
        #expect(receipt.bytes == data.count)
        #expect(received.all.map { $0.body == data } == [true, true])
        #expect(await log.awaitCompletion())
        #expect(log.isMonotonic)
    }
}

/// Replaces a file's contents when a request is adapted, between the call and the send.
struct StreamingFileRewriter: RequestInterceptor {
    let file: URL
    let contents: Data

    func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
        do {
            try contents.write(to: file)
            return Promise(request)
        } catch {
            return Promise(error: error)
        }
    }
}
