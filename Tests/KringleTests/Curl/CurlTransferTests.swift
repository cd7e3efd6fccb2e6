import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// `transfer(_:)`: streamed bodies, response bodies written to files, progress.
@Suite(.generousTimeLimit) struct CurlTransferTests {
    /// A file in the temporary directory, removed by the caller.
    static func temporaryFile(_ contents: Data = Data()) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-curl-\(UUID().uuidString)")
        try contents.write(to: url)
        return url
    }

    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    @Test func fileBodyIsStreamedWithItsLength() async throws {
        let received = Recorder<(method: String, length: String?, body: Data)>()
        let server = try LoopbackServer { request in
            received.append((request.method, request.header("content-length"), request.body))
            return .status(201)
        }
        defer { server.shutdown() }
        let bytes = Self.randomBytes(1_500_000)
        let file = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: file) }
        let transfer = TransferRequest(
            request: try ValidatedRequest(makeRequest(server.url("/upload"), method: "PUT")), body: try .file(file))

        let response = try await CurlTransport().transfer(transfer).valueWithin()

        #expect(response.statusCode == 201)
        let arrival = try #require(received.elements.first)
        #expect(arrival.method == "PUT")
        #expect(arrival.length == String(bytes.count))
        #expect(arrival.body == bytes)
    }

    @Test func segmentedBodyArrivesInOrder() async throws {
        let bodies = Recorder<Data>()
        let server = try LoopbackServer { request in
            bodies.append(request.body)
            return .status(204)
        }
        defer { server.shutdown() }
        let middle = Self.randomBytes(70_000)
        let file = try Self.temporaryFile(middle)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = StreamedBody(segments: [
            .data(Data("head-".utf8)), .file(file, size: Int64(middle.count)), .data(Data("-tail".utf8)),
        ])

        _ = try await CurlTransport().transfer(
            TransferRequest(request: try ValidatedRequest(makeRequest(server.url("/"), method: "POST")), body: body)
        ).valueWithin()

        #expect(bodies.elements == [Data("head-".utf8) + middle + Data("-tail".utf8)])
    }

    @Test func unreadableBodyRejectsWithTheReadersError() async throws {
        let server = try LoopbackServer { _ in .status(204) }
        defer { server.shutdown() }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kringle-missing-\(UUID().uuidString)")
        let body = StreamedBody(segments: [.file(missing, size: 10)])

        let result = await CurlTransport().transfer(
            TransferRequest(request: try ValidatedRequest(makeRequest(server.url("/"), method: "POST")), body: body)
        ).outcome()

        guard case .failure(KringleError.file(let failed, _)) = result else {
            Issue.record("expected KringleError.file, got \(result)")
            return
        }
        #expect(failed == missing)
    }

    @Test func responseBodyIsWrittenToTheFile() async throws {
        let bytes = Self.randomBytes(2_000_000)
        let server = try LoopbackServer { _ in .data(bytes) }
        defer { server.shutdown() }
        let file = try Self.temporaryFile(Data("old contents that must go".utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let reports = Recorder<(sent: Int64, received: Int64, expected: Int64?)>()
        let transfer = TransferRequest(
            request: try ValidatedRequest(makeRequest(server.url("/big"))), responseBodyFile: file
        ) { report in
            reports.append((report.sent, report.received, report.expectedToReceive))
        }

        let response = try await CurlTransport().transfer(transfer).valueWithin()

        #expect(response.statusCode == 200)
        #expect(response.body.isEmpty)
        #expect(try Data(contentsOf: file) == bytes)
        let received = reports.elements.map(\.received)
        #expect(received.last == Int64(bytes.count))
        #expect(received == received.sorted())
        #expect(reports.elements.last?.expected == Int64(bytes.count))
        // Only changes are reported, so the idle watchdog is not fooled by repeats.
        #expect(Set(reports.elements.map { "\($0.sent)/\($0.received)" }).count == reports.elements.count)
    }

    @Test func missingResponseFileIsATransportError() async throws {
        let server = try LoopbackServer { _ in .text("body") }
        defer { server.shutdown() }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kringle-missing-\(UUID().uuidString)")

        let result = await CurlTransport().transfer(
            TransferRequest(request: try ValidatedRequest(makeRequest(server.url("/"))), responseBodyFile: missing)
        ).outcome()

        guard case .failure(KringleError.transport) = result else {
            Issue.record("expected KringleError.transport, got \(result)")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    @Test func silenceLongerThanTheTimeoutRejectsWithTimedOut() async throws {
        let server = try LoopbackServer { _ in .text("late").heldUntilHangUp() }
        defer { server.shutdown() }
        let transport = CurlTransport()

        let result = await transport.transfer(
            TransferRequest(request: try ValidatedRequest(makeRequest(server.url("/"), timeout: 1)))
        )
        .outcome()

        // The server never answers, so anything but `timedOut` means the silence went
        // unnoticed. (How soon curl notices, one to two seconds, is not asserted: a loaded
        // machine resumes this test late.)
        guard case .failure(KringleError.timedOut) = result else {
            Issue.record("expected KringleError.timedOut, got \(result)")
            return
        }
    }
}
