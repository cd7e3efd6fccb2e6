import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(
    "Derived clients: newClient(withAdditionalInterceptors:maxRetryCount:), newClient(withAdditionalInterceptors:) and newClient(withLogger:)",
    .generousTimeLimit)
struct DerivedClientTests {
    private static func endpoint(_ path: String) -> ClientTestEndpoint {
        ClientTestEndpoint(baseURL: interceptorStubBase, path: path)
    }

    @Test("a chain of derived clients: interceptors appended in order, the parent unaffected, the limit not inherited")
    func chain() async throws {
        let transport = StubTransport()
        transport.stub { _ in .init(status: 503) }
        // A retries every failure up to its own 8th attempt.
        let a = InterceptorTagger(name: "A") { attempt, _ in attempt < 8 ? .retry : .doNotRetry }
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [a]
        configuration.maxRetryCount = 5
        // The 12 retries below are more than the budget the three clients share allows.
        configuration.retryBudget = nil
        let base = NetworkClient(configuration: configuration, transport: transport)
        let child = base.newClient(withAdditionalInterceptors: [InterceptorTagger(name: "B")], maxRetryCount: 0)
        let grandchild = child.newClient(withAdditionalInterceptors: [InterceptorTagger(name: "C")], maxRetryCount: nil)

        #expect(base.configuration.interceptors.count == 1)
        #expect(child.configuration.interceptors.count == 2)
        #expect(grandchild.configuration.interceptors.count == 3)
        #expect(base.configuration.maxRetryCount == 5)
        #expect(child.configuration.maxRetryCount == 0)
        #expect(grandchild.configuration.maxRetryCount == nil)

        func tags(_ client: NetworkClient, _ path: String) async -> [String?] {
            _ = await client.get(Self.endpoint(path)).outcome()
            return transport.requests.filter { $0.url.path == path }.map {
                $0.headers["X-Adapted-By"]
            }
        }
        #expect(
            await tags(grandchild, "/grandchild") == Array(repeating: "A,B,C", count: 8), "nil limit: A stops by itself"
        )
        #expect(await tags(child, "/child") == ["A,B"], "limit 0: no retry")
        #expect(
            await tags(base, "/base") == Array(repeating: "A", count: 6),
            "the parent keeps its interceptors and its limit of 5")
    }

    @Test("a derived client shares the transport, the cookie jar and the retry budget")
    func sharesTransportAndJar() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/login", with: .init(status: 200, headers: ["Set-Cookie": "session=abc; Path=/"]))
        transport.stub(.get, "/me", with: .init(status: 200))
        let base = NetworkClient(transport: transport)
        let derived = base.newClient(withAdditionalInterceptors: [InterceptorTagger(name: "T")], maxRetryCount: 1)
        let logged = base.newClient(withLogger: InterceptorEventLog())

        let transportID = ObjectIdentifier(transport)
        #expect(ObjectIdentifier(derived.transport as AnyObject) == transportID)
        #expect(ObjectIdentifier(logged.transport as AnyObject) == transportID)
        let jarID = base.configuration.cookieJar.map(ObjectIdentifier.init)
        #expect(jarID != nil)
        #expect(derived.configuration.cookieJar.map(ObjectIdentifier.init) == jarID)
        #expect(logged.configuration.cookieJar.map(ObjectIdentifier.init) == jarID)
        let budgetID = base.configuration.retryBudget.map(ObjectIdentifier.init)
        #expect(budgetID != nil)
        #expect(derived.configuration.retryBudget.map(ObjectIdentifier.init) == budgetID)

        _ = try await derived.get(Self.endpoint("/login")).outcome().get()
        _ = try await base.get(Self.endpoint("/me")).outcome().get()
        _ = try await logged.get(Self.endpoint("/me")).outcome().get()
        let cookies = transport.requests.filter { $0.url.path == "/me" }.map { $0.headers["Cookie"] }
        #expect(
            cookies == ["session=abc", "session=abc"],
            "a cookie stored through the derived client is sent by the others")
        #expect(
            transport.requests.filter { $0.url.path == "/me" }.allSatisfy {
                $0.headers["X-Adapted-By"] == nil
            },
            "the parent and its logged sibling do not run the derived client's interceptor")
    }

    @Test("newClient(withLogger:) keeps the interceptors and the retry limit")
    func loggerKeepsInterceptors() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 500))
        var configuration = NetworkClient.Configuration()
        configuration.interceptors = [InterceptorTagger(name: "A") { _, _ in .retry }]
        configuration.maxRetryCount = 2
        let log = InterceptorEventLog()
        let logged = NetworkClient(configuration: configuration, transport: transport).newClient(withLogger: log)

        #expect(logged.configuration.maxRetryCount == 2)
        let outcome = await logged.get(Self.endpoint("/thing")).outcome()
        #expect(outcome.rejectedStatus == 500)
        #expect(transport.requests.map { $0.headers["X-Adapted-By"] } == ["A", "A", "A"])
        #expect(log.sent.count == 3)
        #expect(log.retries.count == 2)
    }

    @Test("newClient(withAdditionalInterceptors:) puts no limit on retries: the interceptors decide")
    func withoutRetryLimit() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/thing", with: .init(status: 500))
        var configuration = NetworkClient.Configuration()
        configuration.maxRetryCount = 1
        let base = NetworkClient(configuration: configuration, transport: transport)
        // Gives up by itself after its sixth attempt: more than the default limit of 3.
        let derived = base.newClient(withAdditionalInterceptors: [
            InterceptorTagger(name: "T") { attempt, _ in attempt < 6 ? .retry : .doNotRetry }
        ])

        #expect(derived.configuration.maxRetryCount == nil)
        let outcome = await derived.get(Self.endpoint("/thing")).outcome()
        #expect(outcome.rejectedStatus == 500)
        #expect(transport.requests.count == 6)
    }
}
