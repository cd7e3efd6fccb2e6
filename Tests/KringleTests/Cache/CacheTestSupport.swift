import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Helpers for the RFC 9111 cache tests. Every name starts with `Cache` so that nothing clashes
// with the other folders of the `KringleTests` module.

/// The origin the cache tests' stub transport answers for.
let cacheStubBase = URL(string: "https://cache.example")!

/// The instant the cache tests start at: `ManualClock`'s default date, Tue, 14 Nov 2023
/// 22:13:20 GMT.
let cacheEpoch = Date(timeIntervalSince1970: 1_700_000_000)

/// An endpoint of the cache tests, with a cache policy of its own.
struct CacheTestEndpoint: Endpoint {
    var baseURL = cacheStubBase
    var path: String
    var queryItems: [URLQueryItem] = []
    var headers: [String: String] = [:]
    var cachePolicy = CachePolicy.useProtocol
}

/// A client with an in-memory cache, a cookie jar and a logger, on a stub transport, all on
/// one manual clock. Each test makes its own, so nothing is shared between tests.
struct CacheHarness {
    let clock = ManualClock()
    let stub: StubTransport
    let cache = HTTPCache.memory()
    let log = InterceptorEventLog()
    let jar = CookieJar()
    let client: NetworkClient

    init() {
        stub = StubTransport(clock: clock)
        var configuration = NetworkClient.Configuration()
        configuration.clock = clock
        configuration.cache = cache
        configuration.logger = log
        configuration.cookieJar = jar
        client = NetworkClient(configuration: configuration, transport: stub)
    }

    /// Answers `method` requests to `path` with `status`, these header fields and `body`.
    func respond(
        _ path: String, method: HTTPMethod = .get, status: Int = 200, _ headers: HTTPHeaders = [:],
        body: String = ""
    ) {
        stub.stub(method, path, with: StubTransport.Stub(status: status, headers: headers, body: Data(body.utf8)))
    }

    /// The outcome of `method` to `path` on the stub origin (or `endpoint`), the body as data.
    func send(
        _ path: String, method: HTTPMethod = .get, headers: [String: String] = [:], policy: CachePolicy? = nil
    ) async -> Result<Response<Data>, any Error> {
        await send(CacheTestEndpoint(path: path, headers: headers), method: method, policy: policy)
    }

    /// The outcome of `method` to `endpoint`, the body as data.
    func send(
        _ endpoint: CacheTestEndpoint, method: HTTPMethod = .get, policy: CachePolicy? = nil
    ) async -> Result<Response<Data>, any Error> {
        await client.request(method, endpoint, cachePolicy: policy, as: Data.self).outcome()
    }

    /// The requests the transport received with `method` for `path` (on any origin), in order.
    func requests(_ method: String = "GET", to path: String) -> [HTTPRequest] {
        stub.requests.filter { $0.method.rawValue == method && $0.url.path == path }
    }

    /// Stores a fresh response (`max-age=600`) for a GET to each endpoint, through the client.
    func prime(_ endpoints: [CacheTestEndpoint]) async {
        for endpoint in endpoints {
            respond(endpoint.path, ["Cache-Control": "max-age=600"], body: "fresh")
            #expect(await send(endpoint).cacheStatus == .network, "\(endpoint.path)")
        }
    }

    /// The `cacheAnswered` log events, as `status method path cacheStatus`.
    var cacheAnswers: [String] {
        log.events.compactMap { event in
            guard case .cacheAnswered(let method, let url, let status, let cacheStatus) = event else { return nil }
            return "\(status) \(method) \(url.value.path) \(cacheStatus)"
        }
    }
}

extension Result where Success == Response<Data> {
    /// The body of a success as text, or `nil`.
    var text: String? {
        (try? get()).map { String(decoding: $0.body, as: UTF8.self) }
    }

    /// The cache status of a success, or `nil`.
    var cacheStatus: CacheStatus? {
        (try? get())?.cacheStatus
    }
}

/// `date` as an IMF-fixdate (RFC 9110 §5.6.7), such as `Tue, 14 Nov 2023 22:13:20 GMT`.
func cacheIMFDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

/// The IMF-fixdate `seconds` after ``cacheEpoch``.
func cacheIMFDate(after seconds: TimeInterval) -> String {
    cacheIMFDate(cacheEpoch.addingTimeInterval(seconds))
}

/// `path` (with any query) on the stub origin.
func cacheURL(_ path: String) -> URL {
    URL(string: cacheStubBase.absoluteString + path) ?? cacheStubBase
}

/// A GET for `path` on the stub origin with these header fields.
func cacheRequest(_ path: String = "/doc", method: String = "GET", headers: [String: String] = [:]) -> HTTPRequest {
    var request = HTTPRequest(url: cacheURL(path))
    request.method = HTTPMethod(rawValue: method)
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers[name] = value }
    return request
}

/// A stored response to `/doc`, sent at `requested` and received at `received` seconds after
/// ``cacheEpoch``.
func cacheStored(
    status: Int = 200, _ headers: HTTPHeaders, body: String = "", requested: TimeInterval = 0,
    received: TimeInterval = 0
) -> CachedResponse {
    CachedResponse(
        url: cacheURL("/doc"), statusCode: status, headers: headers,
        body: Data(body.utf8), requestDate: cacheEpoch.addingTimeInterval(requested),
        responseDate: cacheEpoch.addingTimeInterval(received))
}
