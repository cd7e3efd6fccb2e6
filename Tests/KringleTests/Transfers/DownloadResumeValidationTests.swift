import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A resumed download appends only exactly the rest of the same file (RFC 9110 §13.1.5,
/// §14.4, §15.3.7); anything else is refused and the partial file kept as it was.
@Suite("Resuming downloads: what the server sends back is checked", .generousTimeLimit)
struct DownloadResumeValidationTests {
    /// A partial file of `count` bytes in `scratch`, and where the download goes.
    private static func partial(
        _ bytes: Data, in scratch: StreamingScratchDirectory
    ) throws -> (partial: URL, destination: URL) {
        (try scratch.write(bytes, to: "file.part"), scratch.file("file.bin"))
    }

    /// Expects `outcome` to be `invalidResponse` whose reason holds `fragment`, and the partial
    /// file to hold `bytes` still, with nothing else left in `scratch`.
    private static func expectRefused(
        _ outcome: Result<Response<URL>, any Error>, saying fragment: String, partial: URL, holding bytes: Data,
        scratch: StreamingScratchDirectory, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        guard case .invalidResponse(let response, let reason)? = outcome.kringleError else {
            Issue.record("expected invalidResponse, got \(outcome)", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains(fragment), "\(reason)", sourceLocation: sourceLocation)
        #expect((200..<300).contains(response.statusCode), sourceLocation: sourceLocation)
        #expect(streamingContents(of: partial) == bytes, "the partial file changed", sourceLocation: sourceLocation)
        #expect(
            await eventually { scratch.entries == [partial.lastPathComponent] }, "\(scratch.entries)",
            sourceLocation: sourceLocation)
    }

    // The issue's case: a 206 that claims bytes 100-199 of a 50-byte file, with a 10 MB body.
    // Only the start used to be checked, so the 10 MB were appended.
    @Test("a 206 whose Content-Range is impossible is refused", arguments: TransportUnderTest.allCases)
    func impossibleRange(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(Data(repeating: 7, count: 10 << 20), status: 206)
                .addingHeader("Content-Range", "bytes 100-199/50")
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let bytes = streamingRandomData(count: 100, seed: 40)
        let (partial, destination) = try Self.partial(bytes, in: scratch)
        let outcome = await transport.client()
            .download(server.clientEndpoint("/file.bin"), to: destination, resumingFrom: partial).outcome()
        await Self.expectRefused(
            outcome, saying: "bytes 100-199/50", partial: partial, holding: bytes, scratch: scratch)
    }

    @Test(
        "a 206 that starts right but stops early, or sends more than its range, is refused",
        arguments: TransportUnderTest.allCases)
    func wrongLength(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 1_000, seed: 41)
        let server = try LoopbackServer { request in
            switch request.path {
            case "/short":  // bytes 100-199 of 1000: the rest of the file is missing
                return LoopbackServer.Response.data(whole[100..<200], status: 206)
                    .addingHeader("Content-Range", "bytes 100-199/1000")
            default:  // says 100-999 of an unknown length, sends 100 bytes more
                return LoopbackServer.Response.data(whole.suffix(from: 100) + Data(count: 100), status: 206)
                    .addingHeader("Content-Range", "bytes 100-999/*")
            }
        }
        defer { server.shutdown() }
        for (path, fragment) in [("/short", "stops before the end"), ("/long", "but sent 1000 bytes")] {
            let scratch = try StreamingScratchDirectory()
            defer { scratch.remove() }
            let (partial, destination) = try Self.partial(whole.prefix(100), in: scratch)
            let outcome = await transport.client()
                .download(server.clientEndpoint(path), to: destination, resumingFrom: partial).outcome()
            await Self.expectRefused(
                outcome, saying: fragment, partial: partial, holding: whole.prefix(100), scratch: scratch)
        }
    }

    /// A server for two versions of a file that honours `Range` only when `If-Range` names the
    /// current one (RFC 9110 §13.1.5), and records the requests.
    private static func versionedServer(current: Data, tag: String, received: ReceivedRequests) throws
        -> LoopbackServer
    {
        try LoopbackServer { request in
            received.append(request)
            guard let range = request.header("Range"), request.header("If-Range") == tag,
                let start = Int(range.dropFirst("bytes=".count).dropLast())
            else { return LoopbackServer.Response.data(current).addingHeader("ETag", tag) }
            return LoopbackServer.Response.data(current.suffix(from: start), status: 206)
                .addingHeader("Content-Range", "bytes \(start)-\(current.count - 1)/\(current.count)")
                .addingHeader("ETag", tag)
        }
    }

    @Test(
        "range requests carry If-Range and Accept-Encoding: identity; a changed file starts over",
        arguments: TransportUnderTest.allCases)
    func ifRange(_ transport: TransportUnderTest) async throws {
        let old = streamingRandomData(count: 500_000, seed: 42)
        let new = streamingRandomData(count: 600_000, seed: 43)
        let received = ReceivedRequests()
        let server = try Self.versionedServer(current: new, tag: "\"v2\"", received: received)
        defer { server.shutdown() }
        let client = transport.client()
        for (version, tag, expected, status) in [(old, "\"v1\"", new, 200), (new, "\"v2\"", new, 206)] {
            let scratch = try StreamingScratchDirectory()
            defer { scratch.remove() }
            let (partial, destination) = try Self.partial(version.prefix(200_000), in: scratch)
            let validator = try #require(ResumeValidator(entityTag: tag))
            let response = try await client.download(
                server.clientEndpoint("/file.bin"), to: destination, resumingFrom: partial, validator: validator
            ).valueWithin()
            #expect(response.statusCode == status)
            #expect(streamingContents(of: destination) == expected, "\(tag)")
            #expect(scratch.entries == ["file.bin"])
        }
        let requests = received.all
        #expect(requests.map { $0.header("If-Range") } == ["\"v1\"", "\"v2\""])
        #expect(requests.map { $0.header("Range") } == ["bytes=200000-", "bytes=200000-"])
        #expect(requests.map { $0.header("Accept-Encoding") } == ["identity", "identity"])
    }

    @Test(
        "without partial bytes neither If-Range nor Accept-Encoding: identity is sent",
        arguments: TransportUnderTest.allCases)
    func noRangeNoIfRange(_ transport: TransportUnderTest) async throws {
        let received = ReceivedRequests()
        let server = try Self.versionedServer(current: Data("whole".utf8), tag: "\"v1\"", received: received)
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let empty = try scratch.write(Data(), to: "file.part")
        let validator = try #require(ResumeValidator(entityTag: "\"v1\""))
        _ = try await transport.client().download(
            server.clientEndpoint("/file.bin"), to: scratch.file("file.bin"), resumingFrom: empty, validator: validator
        ).valueWithin()
        let request = try #require(received.all.first)
        #expect(request.header("If-Range") == nil && request.header("Range") == nil)
        #expect(request.header("Accept-Encoding") != "identity")
    }

    @Test(
        "a 206 of another version than If-Range named (a server that ignores it) is refused",
        arguments: TransportUnderTest.allCases)
    func otherVersion(_ transport: TransportUnderTest) async throws {
        let whole = streamingRandomData(count: 1_000, seed: 44)
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(whole.suffix(from: 100), status: 206)
                .addingHeader("Content-Range", "bytes 100-999/1000")
                .addingHeader("ETag", "\"v2\"")
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let (partial, destination) = try Self.partial(whole.prefix(100), in: scratch)
        let validator = try #require(ResumeValidator(entityTag: "\"v1\""))
        let outcome = await transport.client()
            .download(server.clientEndpoint("/f"), to: destination, resumingFrom: partial, validator: validator)
            .outcome()
        await Self.expectRefused(
            outcome, saying: "another version", partial: partial, holding: whole.prefix(100), scratch: scratch)
    }

    /// `"rest of the file, gzipped. "` 40 times (1080 bytes), gzip-compressed.
    private static let gzippedRest = Data([
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x2b, 0x4a, 0x2d, 0x2e, 0x51, 0xc8, 0x4f, 0x53,
        0x28, 0xc9, 0x48, 0x55, 0x48, 0xcb, 0xcc, 0x49, 0xd5, 0x51, 0x48, 0xaf, 0xca, 0x2c, 0x28, 0x48, 0x4d, 0xd1,
        0x53, 0x28, 0x1a, 0x95, 0x1a, 0x95, 0x1a, 0x95, 0x1a, 0x95, 0xc2, 0x26, 0x05, 0x00, 0x60, 0x77, 0x37, 0xa0,
        0x38, 0x04, 0x00, 0x00,
    ])

    // Even with the decoded length matching the range, a coded rest is not the file's bytes
    // at those offsets (RFC 9110 §14.4 counts the coded representation).
    @Test("a content-coded 206 is refused", arguments: TransportUnderTest.allCases)
    func contentCoded(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(Self.gzippedRest, status: 206)
                .addingHeader("Content-Encoding", "gzip")
                .addingHeader("Content-Range", "bytes 100-1179/1180")
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let bytes = Data(repeating: 1, count: 100)
        let (partial, destination) = try Self.partial(bytes, in: scratch)
        let outcome = await transport.client()
            .download(server.clientEndpoint("/f"), to: destination, resumingFrom: partial).outcome()
        await Self.expectRefused(
            outcome, saying: "Content-Encoding gzip", partial: partial, holding: bytes, scratch: scratch)
    }

    @Test("a 206 to a request for the whole file is refused", arguments: TransportUnderTest.allCases)
    func unaskedPartialContent(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response.data(Data(repeating: 3, count: 100), status: 206)
                .addingHeader("Content-Range", "bytes 0-99/1000")
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let outcome = await transport.client().download(server.clientEndpoint("/f"), to: destination).outcome()
        guard case .invalidResponse(_, let reason)? = outcome.kringleError else {
            Issue.record("expected invalidResponse, got \(outcome)")
            return
        }
        #expect(reason.contains("206"), "\(reason)")
        #expect(await eventually { scratch.entries.isEmpty }, "\(scratch.entries)")
    }
}
