import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Downloads are requests like any other", .generousTimeLimit)
struct DownloadRequestFeatureTests {
    /// Whether a download through a redirect with a body leaves the process alive, tried in
    /// a child process first, so that a transport that crashes on it fails one test.
    private static func downloadThroughARedirectSurvives(_ transport: TransportUnderTest) async throws -> Bool {
        let probeDirectory = try StreamingScratchDirectory()
        defer { probeDirectory.remove() }
        let survived = await #expect(processExitsWith: .success, "a download through a redirect with a body") {
            [name = transport.rawValue as String, directory = probeDirectory.url.path as String] in
            try await StreamingCrashProbe.downloadThroughRedirect(transport: name, into: directory)
        }
        return survived != nil
    }

    @Test(
        "downloads follow redirects, carry cookies and pass through interceptors",
        arguments: TransportUnderTest.allCases)
    func redirectsCookiesInterceptors(_ transport: TransportUnderTest) async throws {
        guard try await Self.downloadThroughARedirectSurvives(transport) else { return }
        let file = streamingRandomData(count: 1 << 20, seed: 13)
        // The redirect has a body larger than the file: it must not survive in the result.
        let redirectBody = Data(repeating: UInt8(ascii: "r"), count: 3 << 20)
        let received = ReceivedRequests()
        let server = try LoopbackServer { request in
            received.append(request)
            switch request.path {
            case "/start":
                return LoopbackServer.Response(
                    status: 302,
                    headers: [("Location", "/files/real.bin"), ("Set-Cookie", "session=abc123; Path=/")],
                    body: redirectBody
                )
            case "/files/real.bin":
                guard request.header("Cookie") == "session=abc123",
                    request.header("X-Streaming-Tag") == "tagged"
                else { return .text("forbidden", status: 403) }
                return .data(file)
            default:
                return .status(404)
            }
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let client = transport.client { $0.interceptors = [StreamingTagInterceptor()] }
        let destination = scratch.file("real.bin")

        let response = try await client.download(server.clientEndpoint("/start"), to: destination).valueWithin(30)
        #expect(response.url.path == "/files/real.bin")
        #expect(received.all.map(\.path) == ["/start", "/files/real.bin"])
        #expect(received.all.map { $0.header("X-Streaming-Tag") } == ["tagged", "tagged"])
        #expect(received.all.map { $0.header("Cookie") } == [nil, "session=abc123"])
        #expect(streamingContents(of: destination) == file)
        #expect(scratch.entries == ["real.bin"])
    }

    @Test(
        "a 503 then success is retried and the file holds only the final body",
        arguments: TransportUnderTest.allCases)
    func retried(_ transport: TransportUnderTest) async throws {
        let file = streamingRandomData(count: 1 << 20, seed: 14)
        let failureBody = Data(repeating: UInt8(ascii: "x"), count: 2 << 20)
        let attempts = Counter()
        let server = try LoopbackServer { _ in
            attempts.increment() == 1 ? .data(failureBody, status: 503) : .data(file)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let client = transport.client { $0.interceptors = [RetryPolicy(baseDelay: 0.01, maximumDelay: 0.05)] }
        let destination = scratch.file("file.bin")

        let response = try await client.download(server.clientEndpoint("/file.bin"), to: destination).valueWithin(30)
        #expect(response.statusCode == 200)
        #expect(attempts.value == 2)
        let arrived = streamingContents(of: destination)
        #expect(arrived?.count == file.count, "neither concatenated nor left over from the 503")
        #expect(arrived == file)
        #expect(scratch.entries == ["file.bin"])
    }

    // One reporter serves every hop and attempt of a download, while each hop's byte
    // count starts again at 0; a redirect's or a failed attempt's body (written to the
    // temporary file, then discarded) must not count. The buffering default reports each
    // hop's whole body at once, which makes any miscount certain to show.
    @Test(
        "progress of a redirected or retried download ends at the size of the file (buffering default)",
        arguments: ["redirect", "retry"])
    func progressAcrossHops(via route: String) async throws {
        let file = streamingRandomData(count: 1 << 20, seed: 15)
        let discarded = Data(repeating: UInt8(ascii: "d"), count: 3 << 20)
        let attempts = Counter()
        let transport = StubTransport()
        transport.stub(.get, "/redirect", with: .init(status: 302, headers: ["Location": "/file"], body: discarded))
        transport.stub(.get, "/file", with: .init(status: 200, body: file))
        transport.stub { _ in
            attempts.increment() == 1 ? .init(status: 503, body: discarded) : .init(status: 200, body: file)
        }
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [RetryPolicy(baseDelay: 0.01, maximumDelay: 0.05)]
        let client = NetworkClient(configuration: configuration, transport: transport)
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("file.bin")
        let log = StreamingProgressLog(total: Int64(file.count))
        let endpoint = ClientTestEndpoint(baseURL: clientURL("http://stub.example"), path: "/\(route)")

        _ = try await client.download(endpoint, to: destination, progress: log.callback).valueWithin()
        #expect(streamingContents(of: destination) == file)
        #expect(transport.requests.count == 2)
        // The final callback is queued before the promise fulfils: it arrives at once.
        #expect(await log.awaitCompletion(), "callbacks: \(log.values)")
        #expect(
            log.values.last == TransferProgress(completedBytes: Int64(file.count), totalBytes: Int64(file.count)),
            "callbacks: \(log.values)")
    }

    @Test(
        "progress of a redirected or retried download ends at the size of the file",
        arguments: TransportUnderTest.allCases, ["redirect", "retry"])
    func progressAcrossHopsOverNetwork(_ transport: TransportUnderTest, via route: String) async throws {
        if route == "redirect" {
            guard try await Self.downloadThroughARedirectSurvives(transport) else { return }
        }
        let file = streamingRandomData(count: 1 << 20, seed: 16)
        let discarded = Data(repeating: UInt8(ascii: "d"), count: 3 << 20)
        let attempts = Counter()
        let server = try LoopbackServer { request in
            switch request.path {
            case "/redirect":
                return LoopbackServer.Response(status: 302, headers: [("Location", "/file")], body: discarded)
            case "/retry": return attempts.increment() == 1 ? .data(discarded, status: 503) : .data(file)
            default: return .data(file)
            }
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let client = transport.client { $0.interceptors = [RetryPolicy(baseDelay: 0.01, maximumDelay: 0.05)] }
        let destination = scratch.file("file.bin")
        let log = StreamingProgressLog(total: Int64(file.count))

        _ = try await client.download(server.clientEndpoint("/\(route)"), to: destination, progress: log.callback)
            .valueWithin(30)
        #expect(streamingContents(of: destination) == file)
        #expect(await log.awaitCompletion(), "callbacks: \(log.values.suffix(3))")
        #expect(log.values.last == TransferProgress(completedBytes: Int64(file.count), totalBytes: Int64(file.count)))
        #expect(log.values.allSatisfy { $0.completedBytes <= Int64(file.count) }, "\(log.values)")
        #expect(log.isMonotonic)
    }
}

/// Tags every request with `X-Streaming-Tag: tagged`.
struct StreamingTagInterceptor: RequestInterceptor {
    func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
        var request = request
        request.headers["X-Streaming-Tag"] = "tagged"
        return Promise(request)
    }
}
