import Foundation
import Kringle
import KringlePromise
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession cannot reach a Unix socket: URLSessionTransport refuses such a URL with a
/// typed error before anything is sent, and never sends it anywhere else.
@Suite("Unix sockets: URLSessionTransport refuses", .generousTimeLimit)
struct UnixSocketURLSessionTests {
    /// Whether `result` is the refusal.
    private func isRefusal<Value>(_ result: Result<Value, any Error>) -> Bool {
        guard case .failure(KringleError.unsupportedConfiguration(let reason)) = result else { return false }
        return reason.contains("Unix domain socket") && reason.contains("CurlTransport")
    }

    @Test("send, a request through the client, a stream and a download are refused; the server sees nothing")
    func refused() async throws {
        let server = try unixSocketServer { _ in .text("should not be asked") }
        defer { server.shutdown() }
        let transport = URLSessionTransport()
        let request = try ValidatedRequest(HTTPRequest(url: server.url("/containers/json")))
        #expect(isRefusal(await transport.send(request).outcome()))

        let client = NetworkClient(transport: transport)
        #expect(isRefusal(await client.request(.get, server.clientEndpoint("/x"), as: Data.self).outcome()))

        let stream = client.stream(server.clientEndpoint("/logs"))
        let streamed: Result<Response<Void>, any Error>
        do { streamed = .success(try await stream.response) } catch { streamed = .failure(error) }
        #expect(isRefusal(streamed))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("unix-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(
            isRefusal(await transport.transfer(TransferRequest(request: request, responseBodyFile: file)).outcome())
        )

        #expect(server.statistics.connectionsAccepted == 0)
    }

    @Test("the refusal reads as a sentence a person can act on, the URL redacted")
    func description() {
        let url = URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json?token=secret")!
        let result = URLSessionTransport.unixSocketRefusal(url).map { promise in
            Result<HTTPResponse, any Error> { try promise.wait(timeout: 5) }
        }
        guard case .failure(let error)? = result else {
            Issue.record("expected a refusal")
            return
        }
        let text = String(describing: error)
        #expect(text.contains("URLSession cannot connect to a Unix domain socket"))
        #expect(!text.contains("secret"))
        #expect(URLSessionTransport.unixSocketRefusal(URL(string: "https://example.com/")!) == nil)
    }
}
