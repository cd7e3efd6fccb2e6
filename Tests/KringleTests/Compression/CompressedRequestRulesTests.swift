import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What else holds when a body is compressed: a `Content-Encoding` of the endpoint's own is a
/// conflict, and the cache forgets what a compressed POST changed.
@Suite("Compressed request bodies: rules", .generousTimeLimit)
struct CompressedRequestRulesTests {
    typealias CompressingEndpoint = CompressedRequestTests.CompressingEndpoint
    typealias LogBatch = CompressedRequestTests.LogBatch

    @Test(
        "an endpoint that sets its own Content-Encoding and asks for compression is refused, nothing sent",
        arguments: ["Content-Encoding", "content-encoding"], ["br", "gzip"])
    func contentEncodingConflict(_ name: String, _ value: String) async throws {
        let served = Counter()
        let server = try LoopbackServer { _ in
            _ = served.increment()
            return .status(200)
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Inflating.sample(bytes: 10_000), to: "logs.jsonl")
        let client = TransportUnderTest.curl.client()
        let endpoint = CompressingEndpoint(
            baseURL: server.baseURL, path: "/logs", compression: .gzip, headers: [name: value])
        var builder = RequestBuilder(method: .post, url: server.url("/logs"), body: .json(LogBatch.sample))
        builder.headers[name] = value
        builder.compression = .gzip
        let callback = Promise<NetworkResult>.pending()

        // A body below the threshold too: the header would otherwise claim a coding it lacks.
        let calls: [Promise<Void>] = [
            client.post(LogBatch.sample, to: endpoint),
            client.post(RequestBody.data(Data("tiny".utf8), contentType: "text/plain"), to: endpoint),
            client.upload(file, to: endpoint, as: Data.self).map { _ in },
        ]
        client.sendRequest(builder) { callback.fulfill($0) }
        var errors: [any Error] = []
        for call in calls {
            if case .failure(let error) = await call.outcome() { errors.append(error) }
        }
        if case .failure(let error) = try await callback.outcome().get().result { errors.append(error) }

        #expect(errors.count == 4)
        for error in errors {
            guard case KringleError.invalidRequest(let reason) = error else {
                Issue.record("expected invalidRequest, got \(error)")
                continue
            }
            #expect(reason.contains("Content-Encoding: \(value)"), "\(reason)")
            #expect(reason.contains("gzip compression"), "\(reason)")
        }
        #expect(served.value == 0)
    }

    @Test(
        "RFC 9111 §4.4: a compressed POST or upload invalidates the stored GET of its URL",
        arguments: TransportUnderTest.allCases)
    func compressedPostInvalidatesCache(_ transport: TransportUnderTest) async throws {
        let gets = Counter()
        let server = try LoopbackServer { request in
            guard request.method == "GET" else { return .status(201) }
            _ = gets.increment()
            return .json(#"{"count":\#(gets.value)}"#).addingHeader("Cache-Control", "max-age=600")
        }
        defer { server.shutdown() }
        let scratch = try StreamingScratchDirectory()
        defer { scratch.remove() }
        let file = try scratch.write(Inflating.sample(bytes: 100_000), to: "logs.jsonl")
        let client = transport.client { $0.cache = .memory() }
        let endpoint = CompressingEndpoint(baseURL: server.baseURL, path: "/logs", compression: .gzip)
        let read = { try await client.request(.get, endpoint, as: Data.self).valueWithin().cacheStatus }

        #expect(try await read() == .network)
        #expect(try await read() == .hit)
        try await client.post(LogBatch.sample, to: endpoint).valueWithin()
        #expect(try await read() == .network)
        #expect(try await read() == .hit)
        _ = try await client.upload(file, to: endpoint, as: Data.self).valueWithin(60)
        #expect(try await read() == .network)
        #expect(gets.value == 3)
    }
}
