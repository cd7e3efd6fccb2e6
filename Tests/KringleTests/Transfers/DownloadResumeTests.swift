import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Resuming downloads", .generousTimeLimit)
struct DownloadResumeTests {
    /// A server for `whole` that honours `Range: bytes=N-` with a 206 (unless `ignoreRange`)
    /// and records the requests.
    private static func rangeServer(
        _ whole: Data,
        ignoreRange: Bool = false,
        contentRangeStart: (@Sendable (Int) -> Int)? = nil,
        received: ReceivedRequests
    ) throws -> LoopbackServer {
        try LoopbackServer { request in
            received.append(request)
            guard !ignoreRange,
                let range = request.header("Range"),
                range.hasPrefix("bytes="), range.hasSuffix("-"),
                let start = Int(range.dropFirst(6).dropLast()), start < whole.count
            else { return .data(whole) }
            let claimed = contentRangeStart?(start) ?? start
            return LoopbackServer.Response.data(whole.suffix(from: start), status: 206)
                .addingHeader("Content-Range", "bytes \(claimed)-\(whole.count - 1)/\(whole.count)")
        }
    }

    @Test("a resumed download asks for the rest and continues the partial file", arguments: TransportUnderTest.allCases)
    func resumes(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 6 << 20, seed: 7)
        let received = ReceivedRequests()
        let server = try Self.rangeServer(whole, received: received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let partial = try scratch.write(whole.prefix(2 << 20), to: "movie.part")
        let destination = scratch.file("movie.mp4")
        let log = StreamingProgressLog(total: Int64(whole.count))

        let response = try await transport.client()
            .download(
                server.clientEndpoint("/movie.mp4"), to: destination, resumingFrom: partial, progress: log.callback
            )
            .valueWithin(30)
        #expect(response.statusCode == 206)
        #expect(received.all.map { $0.header("Range") } == ["bytes=\(2 << 20)-"])
        #expect(streamingContents(of: destination) == whole)
        #expect(await log.awaitCompletion())
        #expect(log.isMonotonic)
        #expect(log.values.last == TransferProgress(completedBytes: Int64(whole.count), totalBytes: Int64(whole.count)))
        #expect(scratch.entries == ["movie.mp4"], "the partial file became the destination")
    }

    @Test("a resumed download keeps its Range across a redirect", arguments: TransportUnderTest.allCases)
    func resumeThroughRedirect(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 2 << 20, seed: 17)
        let received = ReceivedRequests()
        let files = try Self.rangeServer(whole, received: received)
        defer { files.shutdown() }
        let server = try LoopbackServer { _ in .redirect(to: files.url("/movie.mp4").absoluteString) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let partial = try scratch.write(whole.prefix(500_000), to: "movie.part")
        let destination = scratch.file("movie.mp4")

        let response = try await transport.client()
            .download(server.clientEndpoint("/latest"), to: destination, resumingFrom: partial)
            .valueWithin(30)
        #expect(response.statusCode == 206)
        #expect(received.all.map { $0.header("Range") } == ["bytes=500000-"])
        #expect(streamingContents(of: destination) == whole)
    }

    @Test("a failed resume keeps the partial file for a later try", arguments: TransportUnderTest.allCases)
    func failedResumeKeepsPartial(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in .text("try later", status: 500) }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let partialBytes = streamingRandomData(count: 300_000, seed: 18)
        let partial = try scratch.write(partialBytes, to: "movie.part")
        let outcome = await transport.client()
            .download(server.clientEndpoint("/movie.mp4"), to: scratch.file("movie.mp4"), resumingFrom: partial)
            .outcome()
        #expect(outcome.kringleError?.caseName == "unacceptableStatusCode", "\(outcome)")
        #expect(streamingContents(of: partial) == partialBytes)
        #expect(await eventually { scratch.entries == ["movie.part"] }, "\(scratch.entries)")
    }

    @Test(
        "a server that ignores Range sends it all again, and the download starts over",
        arguments: TransportUnderTest.allCases)
    func resumeIgnored(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 3 << 20, seed: 8)
        let received = ReceivedRequests()
        let server = try Self.rangeServer(whole, ignoreRange: true, received: received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let partial = try scratch.write(whole.prefix(1_000_000), to: "movie.part")
        let destination = scratch.file("movie.mp4")

        let response = try await transport.client()
            .download(server.clientEndpoint("/movie.mp4"), to: destination, resumingFrom: partial)
            .valueWithin(30)
        #expect(response.statusCode == 200)
        #expect(received.all.map { $0.header("Range") } == ["bytes=1000000-"])
        #expect(streamingContents(of: destination) == whole, "not appended to the partial file")
        #expect(scratch.entries == ["movie.mp4"])
    }

    @Test(
        "resuming into the destination itself works both when resumed and when restarted",
        arguments: TransportUnderTest.allCases)
    func resumeInPlace(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 2 << 20, seed: 9)
        for ignoreRange in [false, true] {
            let received = ReceivedRequests()
            let server = try Self.rangeServer(whole, ignoreRange: ignoreRange, received: received)
            defer { server.shutdown() }
            let scratch = try StreamingScratchDirectory()
            defer { scratch.remove() }
            let destination = try scratch.write(whole.prefix(700_000), to: "file.bin")
            let response = try await transport.client()
                .download(server.clientEndpoint("/file.bin"), to: destination, resumingFrom: destination)
                .valueWithin(30)
            #expect(response.statusCode == (ignoreRange ? 200 : 206))
            #expect(received.all.map { $0.header("Range") } == ["bytes=700000-"])
            #expect(streamingContents(of: destination) == whole, "ignoreRange: \(ignoreRange)")
            #expect(scratch.entries == ["file.bin"])
        }
    }

    // After a full (200) answer the partial file is removed unless it is the destination.
    // Compared as URLs, by spelling, the same file named two ways (`dir/./file` and
    // `dir/file`) would be removed right after the download moved into it.
    @Test(
        "restarting a download into its own partial file, spelled differently, keeps the download",
        arguments: TransportUnderTest.allCases)
    func resumeInPlaceSpelledDifferently(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 1 << 20, seed: 10)
        let server = try Self.rangeServer(whole, ignoreRange: true, received: ReceivedRequests())
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = try scratch.write(whole.prefix(1_000), to: "file.bin")
        let partial = scratch.url.appendingPathComponent(".").appendingPathComponent("file.bin")
        #expect(partial != destination && partial.standardizedFileURL.path == destination.path)

        let response = try await transport.client()
            .download(server.clientEndpoint("/file.bin"), to: destination, resumingFrom: partial)
            .valueWithin(30)
        #expect(response.statusCode == 200)
        #expect(streamingContents(of: destination)?.count == whole.count, "the finished download was deleted")
    }

    @Test(
        "a 206 that resumes at another offset is refused, keeping the partial file",
        arguments: TransportUnderTest.allCases)
    func resumeAtWrongOffset(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 1 << 20, seed: 11)
        let server = try Self.rangeServer(whole, contentRangeStart: { $0 - 10 }, received: ReceivedRequests())
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let partialBytes = whole.prefix(100_000)
        let partial = try scratch.write(partialBytes, to: "file.part")
        let destination = scratch.file("file.bin")

        let outcome = await transport.client()
            .download(server.clientEndpoint("/file.bin"), to: destination, resumingFrom: partial)
            .outcome()
        guard case .invalidResponse(let response, let reason)? = outcome.kringleError else {
            Issue.record("expected invalidResponse, got \(outcome)")
            return
        }
        #expect(response.statusCode == 206)
        #expect(reason.contains("100000"), "\(reason)")
        #expect(streamingContents(of: partial) == partialBytes)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(await eventually { scratch.entries == ["file.part"] }, "\(scratch.entries)")
    }

    @Test("without partial bytes there is no Range header", arguments: TransportUnderTest.allCases)
    func resumeFromNothing(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 100_000, seed: 12)
        let received = ReceivedRequests()
        let server = try Self.rangeServer(whole, received: received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let client = transport.client()
        let empty = try scratch.write(Data(), to: "empty.part")
        _ = try await client.download(server.clientEndpoint("/a"), to: scratch.file("a"), resumingFrom: empty)
            .valueWithin()
        _ = try await client.download(
            server.clientEndpoint("/b"), to: scratch.file("b"), resumingFrom: scratch.file("none")
        )
        .valueWithin()
        #expect(received.all.map { $0.header("Range") } == [nil, nil])
        #expect(streamingContents(of: scratch.file("a")) == whole)
        #expect(streamingContents(of: scratch.file("b")) == whole)
        #expect(scratch.entries == ["a", "b"])
    }
}
