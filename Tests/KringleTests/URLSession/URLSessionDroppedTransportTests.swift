import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLSessionTransport` released while requests are in flight finishes them, as
/// `CurlTransport` does (`CurlAvailabilityTests.droppedTransportFinishesTransfersInFlight`):
/// nobody has to keep a transport alive for the promises it handed out (issue 41, item 9).
@Suite("URLSessionTransport: dropped with transfers in flight", .timeLimit(.minutes(2)))
struct URLSessionDroppedTransportTests {
    /// How the request in flight was started.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `send`: a data task, the body in memory.
        case send
        /// `transfer` with the body written to a file.
        case download
        /// `transfer` with the request body read from a file.
        case upload
        /// `transfer` with the body for a reader (through libcurl on Linux).
        case stream

        var testDescription: String { rawValue }
    }

    @Test(arguments: Kind.allCases)
    func droppedTransportFinishesTransfersInFlight(_ kind: Kind) async throws {
        // The answer waits for the test: the request is in flight when the transport goes.
        let answer = LoopbackServer.Gate()
        let bodies = Recorder<Data>()
        let server = try LoopbackServer { request in
            bodies.append(request.body)
            return LoopbackServer.Response.text("finished")
                .withBehavior(.paced([.init(bytes: 0, then: .until(answer))], afterLast: .sendRest))
        }
        defer { server.shutdown() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kringle-dropped-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body")
        try Data("uploaded".utf8).write(to: file)
        let channel = ResponseBodyChannel()

        var transport: URLSessionTransport? = URLSessionTransport()
        weak let released = transport
        let started = try Self.start(kind, on: try #require(transport), server: server, file: file, channel: channel)
        #expect(await server.awaitStatistics(within: 30) { $0.requestsReceived == 1 }, "\(server.statistics)")

        transport = nil
        #expect(released == nil, "something still holds the transport")
        answer.open()

        let response = try await started.valueWithin(30)
        #expect(response.statusCode == 200)
        switch kind {
        case .send, .upload:
            #expect(String(decoding: response.body, as: UTF8.self) == "finished")
        case .download:
            #expect(try String(contentsOf: file, encoding: .utf8) == "finished")
        case .stream:
            var body = Data()
            while let chunk = try await channel.next() { body += chunk }
            #expect(String(decoding: body, as: UTF8.self) == "finished")
        }
        if kind == .upload {
            #expect(bodies.elements == [Data("uploaded".utf8)])
        }
    }

    /// The request of `kind` to `server`, on `transport`.
    private static func start(
        _ kind: Kind, on transport: URLSessionTransport, server: LoopbackServer, file: URL,
        channel: ResponseBodyChannel
    ) throws -> Promise<HTTPResponse> {
        let url = server.url("/in-flight")
        switch kind {
        case .send:
            return transport.send(try ValidatedRequest(makeRequest(url)))
        case .download:
            return transport.transfer(
                TransferRequest(request: try ValidatedRequest(makeRequest(url)), responseBodyFile: file))
        case .upload:
            return transport.transfer(
                TransferRequest(request: try ValidatedRequest(makeRequest(url, method: "PUT")), body: try .file(file)))
        case .stream:
            return transport.transfer(
                TransferRequest(request: try ValidatedRequest(makeRequest(url)), responseBodyChannel: channel))
        }
    }
}
