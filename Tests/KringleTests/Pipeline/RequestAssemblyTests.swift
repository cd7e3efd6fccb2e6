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

@Suite("Request assembly: header fields", .generousTimeLimit)
struct RequestAssemblyTests {
    private static let base = URL(string: "http://assembly.example/api")!

    private static func built(
        defaults: [String: String] = ["Accept": "application/json"],
        endpointHeaders: [String: String] = [:],
        callHeaders: [String: String] = [:],
        body: RequestBody? = nil
    ) throws -> HTTPRequest {
        var configuration = NetworkClient.Configuration()
        configuration.defaultHeaders = defaults
        let endpoint = ClientTestEndpoint(baseURL: base, path: "/cats", headers: endpointHeaders)
        let client = NetworkClient(configuration: configuration, transport: StubTransport())
        return try RequestAssembly.build(
            body == nil ? .get : .post, endpoint, body: body, headers: callHeaders, for: client
        )
        .request.request
    }

    @Test("the client's defaults alone are the request's fields")
    func defaultsAlone() throws {
        let request = try Self.built(defaults: ["Accept": "application/json", "X-Client": "tests"])
        #expect(request.headers == ["Accept": "application/json", "X-Client": "tests"])
    }

    @Test("no defaults and no fields leave the request without header fields")
    func noFields() throws {
        #expect(try Self.built(defaults: [:]).headers.isEmpty)
    }

    @Test("a later field replaces one whose name differs only in case, and keeps its own spelling")
    func laterFieldWinsInAnyCase() throws {
        let request = try Self.built(
            defaults: ["Accept": "application/json", "X-Trace": "default"],
            endpointHeaders: ["accept": "text/csv"],
            callHeaders: ["x-trace": "call"]
        )
        #expect(request.headers == ["accept": "text/csv", "x-trace": "call"])
        #expect(request.headers["ACCEPT"] == "text/csv")
    }

    @Test("the endpoint's fields win over the call's, and both over the body's Content-Type")
    func precedence() throws {
        let request = try Self.built(
            endpointHeaders: ["Content-Type": "application/vnd.cats+json", "X-Mode": "endpoint"],
            callHeaders: ["X-Mode": "call", "content-type": "text/plain"],
            body: .json(["name": "Tom"])
        )
        #expect(request.headers["Content-Type"] == "application/vnd.cats+json")
        #expect(request.headers["X-Mode"] == "endpoint")
        let contentTypes = request.headers.filter { $0.name.lowercased() == "content-type" }
        #expect(contentTypes.count == 1)
    }

    @Test("defaults that name one field in two cases become one field: the spelling that sorts last")
    func caseTwinsInDefaults() throws {
        let request = try Self.built(defaults: ["Accept": "application/json", "accept": "text/csv", "X-A": "1"])
        #expect(request.headers == ["accept": "text/csv", "X-A": "1"])
    }

    @Test("the body's Content-Type replaces a default one in another case")
    func bodyContentTypeReplacesDefault() throws {
        let request = try Self.built(defaults: ["content-type": "text/plain"], body: .json(["name": "Tom"]))
        #expect(request.headers == ["Content-Type": "application/json"])
    }

    @Test("a multipart body's Content-Length gives way to the endpoint's, named in another case")
    func streamedContentLengthGivesWay() throws {
        let request = try Self.built(
            endpointHeaders: ["content-length": "7"], body: .multipart([.field(name: "name", value: "Tom")]))
        let lengths = request.headers.filter { $0.name.lowercased() == "content-length" }
        #expect(lengths == [HTTPHeaders.Field(name: "content-length", value: "7")])
    }

    /// FoundationNetworking's URLSession takes a request's `timeoutInterval` only when it was
    /// set after the request was made, not when it was passed to the initialiser: the
    /// `URLRequest` an `HTTPRequest` becomes sets it.
    @Test("the request's timeout holds for a URLSession of the caller's own")
    func timeoutHoldsForAPlainURLSession() async throws {
        let server = try LoopbackServer { _ in
            .data(Data(count: 100)).withBehavior(.paced([.init(bytes: 1)], afterLast: .holdUntilHangUp))
        }
        defer { server.shutdown() }
        var configuration = NetworkClient.Configuration()
        configuration.timeout = 1
        let endpoint = ClientTestEndpoint(baseURL: server.baseURL, path: "/stalls")
        let client = NetworkClient(configuration: configuration, transport: StubTransport())
        let request = try RequestAssembly.build(.get, endpoint, body: nil, for: client).request.request
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = 600
        let session = URLSession(configuration: sessionConfiguration)
        defer { session.invalidateAndCancel() }
        let failure = Promise<URLError.Code?>.pending()
        session.dataTask(with: URLRequest(request)) { _, _, error in failure.fulfill((error as? URLError)?.code) }
            .resume()
        // Not a race against time: the request gives up after 1 s, the session after 600.
        let outcome = await failure.outcome(within: 60)
        #expect(outcome.failure == nil, "the session's 600 s applied instead")
        #expect((try? outcome.get()) == .timedOut)
    }

    @Test("a default, call or endpoint field that cannot be sent is an invalid request naming it")
    func invalidFieldsThrow() {
        let cases: [() throws -> HTTPRequest] = [
            { try Self.built(defaults: ["X-Bad": "a\r\nInjected: 1"]) },
            { try Self.built(defaults: ["Bad Name": "1"]) },
            { try Self.built(callHeaders: ["X-Bad": "a\u{0}"]) },
            { try Self.built(endpointHeaders: ["X-Bad": "line\nbreak"]) },
        ]
        for build in cases {
            #expect {
                _ = try build()
            } throws: { error in
                guard case KringleError.invalidRequest(let message) = error else { return false }
                return message.contains("X-Bad") || message.contains("Bad Name")
            }
        }
    }
}
