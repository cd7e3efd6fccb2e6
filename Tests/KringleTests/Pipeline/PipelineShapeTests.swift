import Foundation
import KringleTestSupport
import KringleTesting
import Testing

@testable import Kringle

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The shapes the pipeline tests run in are what they claim: the intercepted one has an
/// interceptor, and that interceptor changes nothing the tests could see.
@Suite("Pipeline shapes under test", .generousTimeLimit)
struct PipelineShapeTests {
    @Test("intercepted adds one pass-through interceptor after the test's own; direct adds none")
    func interceptors() {
        #expect(PipelineShape.direct.configuration().interceptors.isEmpty)
        let intercepted = PipelineShape.intercepted.configuration().interceptors
        #expect(intercepted.count == 1 && intercepted.first is PassThroughInterceptor)
        let afterOwn = PipelineShape.intercepted.configuration { $0.interceptors = [RetryPolicy()] }.interceptors
        #expect(afterOwn.count == 2 && afterOwn.first is RetryPolicy && afterOwn.last is PassThroughInterceptor)
    }

    @Test("the transport sees the same requests in either shape, and a failure is not retried")
    func sameRequests() async {
        var seen: [PipelineShape: [String]] = [:]
        for shape in PipelineShape.allCases {
            let transport = StubTransport()
            transport.stub(.post, "/cats", with: StubTransport.Stub(status: 302, headers: ["Location": "/home"]))
            transport.stub(.get, "/home", with: StubTransport.Stub(status: 500))
            let client = NetworkClient(configuration: shape.configuration(), transport: transport)
            let endpoint = ClientTestEndpoint(
                baseURL: clientURL("http://stub.example"), path: "/cats", headers: ["X-Note": "kept"])
            let outcome = await client.post(RequestBody.form([("name", "Tom")]), to: endpoint).outcome()
            #expect(outcome.rejectedStatus == 500, "\(shape)")
            seen[shape] = transport.requests.map { request in
                let headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }
                let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? ""
                return "\(request.httpMethod ?? "?") \(request.url?.absoluteString ?? "?") \(headers) \(body)"
            }
        }
        #expect(seen[.direct]?.count == 2, "one redirect, no retry")
        #expect(seen[.intercepted] == seen[.direct])
    }
}
