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

/// A bearer-token authenticator whose refresh the test scripts, counting every call.
struct InterceptorTokenAuthenticator: Authenticator {
    let refreshes = Counter()
    let failureChecks = Counter()
    let script: @Sendable (String) -> Promise<String>

    func apply(_ token: String, to request: inout HTTPRequest) {
        request.headers["Authorization"] = "Bearer \(token)"
    }

    func refresh(_ token: String) -> Promise<String> {
        refreshes.increment()
        return script(token)
    }

    func isAuthenticationFailure(_ error: any Error) -> Bool {
        failureChecks.increment()
        if case KringleError.unacceptableStatusCode(401, _) = error { return true }
        return false
    }
}

@Suite("AuthenticationInterceptor", .generousTimeLimit)
struct AuthenticationInterceptorTests {
    /// A client with the credential "stale" on a transport that holds every request until
    /// released and accepts only "fresh", and the pending refresh that will produce it.
    private static func clientAwaitingARefresh() -> (
        transport: InterceptorGatedTransport,
        refresh: Promise<String>,
        authenticator: InterceptorTokenAuthenticator,
        client: NetworkClient
    ) {
        let transport = InterceptorGatedTransport { request in
            request.headers["Authorization"] == "Bearer fresh"
                ? HTTPResponse(statusCode: 200, url: request.url)
                : nil
        }
        let refresh = Promise<String>.pending()
        let authenticator = InterceptorTokenAuthenticator { _ in refresh }
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: "stale")
        return (transport, refresh, authenticator, client(transport, auth: auth))
    }

    /// A server that accepts only `Bearer <accepted>` and records every Authorization header.
    private static func server(accepting accepted: String, seen: Box<[String]>) throws -> LoopbackServer {
        try LoopbackServer { request in
            let authorization = request.header("Authorization") ?? "-"
            seen.withLock { $0.append(authorization) }
            return authorization == "Bearer \(accepted)" ? .json(#"{"ok": true}"#) : .status(401)
        }
    }

    private static func client(_ transport: any Transport, auth: some RequestInterceptor, maxRetryCount: Int? = 2)
        -> NetworkClient
    {
        NetworkClient(transport: transport).newClient(withAdditionalInterceptors: [auth], maxRetryCount: maxRetryCount)
    }

    @Test("the current credential is applied to every request")
    func appliesCredential() async throws {
        let seen = Box<[String]>([])
        let server = try Self.server(accepting: "good", seen: seen)
        defer { server.shutdown() }
        let authenticator = InterceptorTokenAuthenticator { _ in
            Promise(error: InterceptorTestError(label: "unexpected refresh"))
        }
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: "good")
        let client = Self.client(URLSessionTransport(), auth: auth)

        for _ in 0..<3 {
            _ = try await client.get(server.clientEndpoint("/me")).outcome().get()
        }
        #expect(seen.value == Array(repeating: "Bearer good", count: 3))
        #expect(authenticator.refreshes.value == 0)
    }

    @Test("a 401 from another origin a redirect led to refreshes nothing", arguments: TransportUnderTest.allCases)
    func thirdParty401(_ transport: TransportUnderTest) async throws {
        let server = try LoopbackServer { request in
            let port = (request.header("Host") ?? "").split(separator: ":").last.map(String.init) ?? ""
            switch request.path {
            case "/me": return .redirect(to: "http://localhost:\(port)/elsewhere")
            default: return .status(401)
            }
        }
        defer { server.shutdown() }
        let authenticator = InterceptorTokenAuthenticator { _ in Promise("fresh") }
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: "stale")
        let client = Self.client(transport.make(), auth: auth)

        let outcome = await client.get(server.clientEndpoint("/me")).outcome()
        guard case .failure(KringleError.unacceptableStatusCode(401, let response)) = outcome else {
            Issue.record("expected the third party's 401, got \(outcome)")
            return
        }
        #expect(response.url.host == "localhost")
        #expect(authenticator.refreshes.value == 0)
        #expect(auth.credential == "stale")
    }

    @Test("a 401 refreshes the credential once and retries with the new one")
    func refreshOn401() async throws {
        let seen = Box<[String]>([])
        let server = try Self.server(accepting: "fresh", seen: seen)
        defer { server.shutdown() }
        let refreshedFrom = Box<[String]>([])
        let authenticator = InterceptorTokenAuthenticator { stale in
            refreshedFrom.withLock { $0.append(stale) }
            return Promise("fresh")
        }
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: "stale")
        let client = Self.client(URLSessionTransport(), auth: auth)

        _ = try await client.get(server.clientEndpoint("/me")).outcome().get()
        #expect(seen.value == ["Bearer stale", "Bearer fresh"])
        #expect(refreshedFrom.value == ["stale"])
        #expect(auth.credential == "fresh")

        _ = try await client.get(server.clientEndpoint("/me")).outcome().get()
        #expect(seen.value.last == "Bearer fresh", "later calls start with the new credential")
        #expect(authenticator.refreshes.value == 1)
    }

    @Test("20 concurrent requests refused with 401 cause exactly one refresh, and all succeed")
    func singleFlightRefresh() async throws {
        let seen = Box<[String]>([])
        let server = try Self.server(accepting: "fresh", seen: seen)
        defer { server.shutdown() }
        // The refresh takes a moment, so that most 401s arrive while it is in flight. Refusals
        // that come after it are retried with the fresh token without another refresh, so the
        // outcome does not depend on how many made it in time.
        let authenticator = InterceptorTokenAuthenticator { _ in Promise(()).delay(0.3).map { "fresh" } }
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: "stale")
        let client = Self.client(URLSessionTransport(), auth: auth)

        let calls = (0..<20).map { client.get(server.clientEndpoint("/item/\($0)"), as: [String: Bool].self) }
        let outcomes = try await Promise<[Result<[String: Bool], any Error>]>.allSettled(calls).outcome().get()

        #expect(outcomes.allSatisfy { (try? $0.get()) == ["ok": true] }, "\(outcomes)")
        #expect(authenticator.refreshes.value == 1)
        let headers = seen.value
        #expect(
            headers.filter { $0 == "Bearer fresh" }.count == 20,
            "each call succeeded once with the fresh token: \(headers)")
        #expect(headers.filter { $0 == "Bearer stale" }.count <= 20)
        #expect(headers.allSatisfy { $0 == "Bearer fresh" || $0 == "Bearer stale" })
        #expect(auth.credential == "fresh")
    }

    @Test("a failed refresh fails every waiting request, once, with the refresh's error")
    func failedRefreshFailsAll() async throws {
        let transport = InterceptorGatedTransport()
        let refresh = Promise<String>.pending()
        let authenticator = InterceptorTokenAuthenticator { _ in refresh }
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: "stale")
        let client = Self.client(transport, auth: auth, maxRetryCount: nil)

        let settlements = (0..<20).map { _ in Counter() }
        let calls = (0..<20).map { index in
            client.get(ClientTestEndpoint(baseURL: interceptorStubBase, path: "/item/\(index)"))
                .always { settlements[index].increment() }
        }
        // All 20 are at the transport with the stale token before any answer comes back.
        #expect(await eventually { transport.waitingCount == 20 })
        transport.releaseAll(status: 401)
        // All 20 have asked the interceptor about their 401 (the first started the refresh).
        #expect(await eventually { authenticator.failureChecks.value == 20 })
        await allowTimeForAWrongEvent(0.2)
        #expect(authenticator.refreshes.value == 1)
        refresh.reject(InterceptorTestError(label: "refresh token revoked"))

        let outcomes = try await Promise<[Result<Void, any Error>]>.allSettled(calls).outcome().get()
        for (index, outcome) in outcomes.enumerated() {
            #expect(
                outcome.failure as? InterceptorTestError == InterceptorTestError(label: "refresh token revoked"),
                "call \(index): \(outcome)")
        }
        await allowTimeForAWrongEvent()
        #expect(settlements.map(\.value) == Array(repeating: 1, count: 20))
        #expect(authenticator.refreshes.value == 1, "no second refresh, no loop")
        #expect(transport.waitingCount == 0, "no request was sent again")
        #expect(auth.credential == "stale")
    }

    @Test("a server that refuses the fresh credential too does not cause a refresh loop, even with no retry limit")
    func noRefreshLoop() async throws {
        let seen = Box<[String]>([])
        let server = try Self.server(accepting: "nothing at all", seen: seen)
        defer { server.shutdown() }
        let generation = Counter()
        let authenticator = InterceptorTokenAuthenticator { _ in Promise("token-\(generation.increment())") }
        let auth = AuthenticationInterceptor(authenticator: authenticator, credential: "token-0")
        let client = Self.client(URLSessionTransport(), auth: auth, maxRetryCount: nil)

        let outcome = await client.get(server.clientEndpoint("/me")).outcome()
        #expect(outcome.rejectedStatus == 401)
        #expect(authenticator.refreshes.value == 1)
        #expect(seen.value == ["Bearer token-0", "Bearer token-1"])
    }

    @Test("requests that start while a refresh is in flight wait for it and go out with the new credential")
    func adaptWaitsForRefresh() async throws {
        let (transport, refresh, authenticator, client) = Self.clientAwaitingARefresh()

        let first = client.get(ClientTestEndpoint(baseURL: interceptorStubBase, path: "/first"))
        #expect(await eventually { transport.waitingCount == 1 })
        transport.releaseAll(status: 401)
        #expect(await eventually { authenticator.refreshes.value == 1 })

        let later = client.get(ClientTestEndpoint(baseURL: interceptorStubBase, path: "/later"))
        await allowTimeForAWrongEvent()
        #expect(later.isPending)
        #expect(
            transport.waitingCount == 0,
            "the later request waits for the refresh instead of going out with the stale token")

        refresh.fulfill("fresh")
        #expect(await first.outcome().failure == nil)
        #expect(await later.outcome().failure == nil)
        #expect(authenticator.refreshes.value == 1)
    }

    @Test("cancelling one waiting request does not cancel the refresh the others wait for")
    func cancellingOneWaiterKeepsRefresh() async throws {
        let (transport, refresh, authenticator, client) = Self.clientAwaitingARefresh()

        let calls = (0..<2).map { client.get(ClientTestEndpoint(baseURL: interceptorStubBase, path: "/item/\($0)")) }
        #expect(await eventually { transport.waitingCount == 2 })
        transport.releaseAll(status: 401)
        #expect(await eventually { authenticator.failureChecks.value == 2 })

        calls[0].cancel()
        #expect(await calls[0].outcome().isCancellation)
        #expect(!refresh.isCancelled)
        refresh.fulfill("fresh")
        #expect(await calls[1].outcome().failure == nil)
        #expect(authenticator.refreshes.value == 1)
    }

    @Test("a fresh credential refused within the refresh window is not refreshed again; after it, it is")
    func refreshWindow() async throws {
        let clock = ManualClock()
        let generation = Counter()
        let authenticator = InterceptorTokenAuthenticator { _ in Promise("token-\(generation.increment())") }
        let auth = AuthenticationInterceptor(
            authenticator: authenticator, credential: "token-0", refreshWindow: 30,
            clock: clock)
        let refused = KringleError.unacceptableStatusCode(
            401,
            Response(
                value: Data(), statusCode: 401, headers: HTTPHeaders(),
                body: Data(), url: interceptorStubBase))
        func request(with token: String) -> HTTPRequest {
            var request = HTTPRequest(url: interceptorStubBase)
            request.headers["Authorization"] = "Bearer \(token)"
            return request
        }

        #expect(try await auth.retry(request(with: "token-0"), dueTo: refused, attempt: 1).valueWithin() == .retry)
        #expect(auth.credential == "token-1")
        clock.advance(by: 29)
        #expect(try await auth.retry(request(with: "token-1"), dueTo: refused, attempt: 2).valueWithin() == .doNotRetry)
        #expect(authenticator.refreshes.value == 1)
        clock.advance(by: 1)
        #expect(try await auth.retry(request(with: "token-1"), dueTo: refused, attempt: 3).valueWithin() == .retry)
        #expect(auth.credential == "token-2")
        #expect(authenticator.refreshes.value == 2)
    }
}
