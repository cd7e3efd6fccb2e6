import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download's temporary file, through the client and both transports: private from the
/// first byte, and written only through the descriptor the client created it with.
@Suite("Download temporary files", .generousTimeLimit)
struct DownloadTemporaryFileTests {
    @Test("the temporary file is the user's, mode 0600, while the body arrives", arguments: TransportUnderTest.allCases)
    func privateWhileDownloading(_ transport: TransportUnderTest) async throws {
        let released = LoopbackServer.Gate()
        defer { released.open() }
        let body = streamingRandomData(count: 1 << 20, seed: 30)
        let server = try LoopbackServer { _ in
            .data(body).withBehavior(.paced([.init(bytes: 64 << 10, then: .until(released))], afterLast: .sendRest))
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")

        let download = transport.client().download(server.clientEndpoint("/file.bin"), to: destination)
        // The first bytes are held in the temporary file while the server waits for the gate.
        let temporary = { scratch.temporaryDownloads.first.map(scratch.file) }
        #expect(await eventually { temporary().flatMap(DownloadFiles.size).map { $0 > 0 } == true })
        var status = stat()
        #expect(stat(try #require(temporary()).path, &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o600)
        #expect(status.st_uid == geteuid())
        released.open()

        #expect(try await download.valueWithin().statusCode == 200)
        #expect(streamingContents(of: destination) == body)
        #expect(scratch.entries == ["file.bin"])
    }

    // Someone who can write to the destination's directory renames the temporary file away
    // between two hops and links its path to a file of the user's. Before, the second hop
    // opened the path again, and so emptied and overwrote the user's file.
    @Test(
        "a temporary path swapped for a link between hops is neither written nor moved into place",
        arguments: TransportUnderTest.allCases)
    func swappedBetweenHops(_ transport: TransportUnderTest) async throws {
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let original = Data("the user's own file".utf8)
        let victim = try scratch.write(original, to: "victim")
        let body = streamingRandomData(count: 300_000, seed: 31)
        let swapped = Box(false)
        let server = try LoopbackServer { request in
            guard request.path == "/start" else { return .data(body) }
            if let name = scratch.temporaryDownloads.first {
                let path = scratch.file(name).path
                let moved = rename(path, scratch.file("moved").path) == 0
                swapped.withLock { $0 = moved && symlink(victim.path, path) == 0 }
            }
            return .redirect(to: "/file")
        }
        defer { server.shutdown() }
        let destination = scratch.file("file.bin")

        let outcome = await transport.client().download(server.clientEndpoint("/start"), to: destination).outcome()
        #expect(swapped.value, "the handler found no temporary file to swap")
        guard case .file(_, let underlying)? = outcome.kringleError else {
            Issue.record("expected KringleError.file, got \(outcome)")
            return
        }
        #expect(underlying is KringleError.TemporaryFileReplaced, "\(underlying)")
        #expect(streamingContents(of: victim) == original, "the user's file was written through the link")
        #expect(streamingContents(of: scratch.file("moved")) == body, "the body went to the download's own file")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
