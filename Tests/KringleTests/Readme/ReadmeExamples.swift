// swift-format-ignore-file
// (The examples stand here exactly as the README prints them, aligned comments included.)
import Foundation
import KringleTestSupport
import KringleTesting
import KringleURLSession
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The README's examples, verbatim, so that a doc example that stops compiling breaks the
/// build. They are never run against the addresses they name; the test below runs the
/// quick start against a local server instead.
enum ReadmeExamples {
    enum CatEndpoint: Endpoint {
        case cuddle
        case pet(catName: String)
        case feed(catName: String)

        var baseURL: URL { URL(string: "https://cats.example/api/v2")! }

        var path: String {
            switch self {
            case .cuddle: return "/cuddle"
            case .pet(let name): return "/cats/\(pathSegment: name)/pet"
            case .feed(let name): return "/cats/\(pathSegment: name)/food"
            }
        }
    }

    struct Cat: Codable, Sendable {
        var name: String
        var mood: String
    }

    struct Meal: Codable, Sendable {
        var food: String
        var grams: Int
    }

    struct APIError: Decodable { var error: String }

    struct LoggingTransport: Transport {
        let base: any Transport
        func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
            print(request.method, request.url.absoluteString)
            return base.send(request)
        }
    }


    struct APIKey: RequestInterceptor {
        let key: String
        func adapt(_ request: HTTPRequest) -> Promise<HTTPRequest> {
            var request = request
            request.headers["X-API-Key"] = key
            return Promise(request)
        }
    }

    struct Token: Codable, Sendable {
        var access: String
        var refresh: String
    }

    enum AuthEndpoint: Endpoint {
        case refresh
        var baseURL: URL { URL(string: "https://cats.example/auth")! }
        var path: String { "/refresh" }
    }

    struct BearerAuthenticator: Authenticator {
        let client: NetworkClient   // a client without the interceptor
        func apply(_ token: Token, to request: inout HTTPRequest) {
            request.headers["Authorization"] = "Bearer \(token.access)"
        }
        func refresh(_ token: Token) -> Promise<Token> {
            client.post(["refreshToken": token.refresh], to: AuthEndpoint.refresh, as: Token.self)
        }
    }

    /// Stands in for swift-log's `Logger`, which this package does not depend on.
    struct Logger {
        func info(_ message: String) { print(message) }
    }

    struct SwiftLogAdapter: KringleLogger {
        let logger: Logger
        func log(_ event: KringleLogEvent) {
            logger.info("\(event.description)")
        }
    }

    struct RequestLineLogger: KringleLogger {
        func log(_ event: KringleLogEvent) {
            guard case .requestSent(let method, let url, let headers) = event else { return }
            print(method, url.value.path, headers.value["Authorization"] ?? "-")   // GET /cats ***
        }
    }

    static func interceptors(client: NetworkClient) {
        var resilient = NetworkClient.Configuration()
        resilient.interceptors = [APIKey(key: "secret"), RetryPolicy(baseDelay: 0.2, maximumDelay: 5)]
        resilient.maxRetryCount = 4
        let resilientClient = NetworkClient(configuration: resilient)
        _ = resilientClient

        let auth = AuthenticationInterceptor(
            authenticator: BearerAuthenticator(client: client),
            credential: Token(access: "a1", refresh: "r1")
        )
        let authorised = client.newClient(withAdditionalInterceptors: [auth], maxRetryCount: 2)
        _ = authorised
    }

    static func https() {
        var tls = CurlTransport.Configuration()
        tls.certificateAuthorityPEM = Data()                      // your private CA's PEM (or certificateAuthorityFile)
        tls.pinnedPublicKeys = [PublicKeyPin(base64: "ZU2SxpV67aRz9KEVYx16cs0oCgt9rt3kUxGxD2BDur4=")].compactMap { $0 }
        tls.clientCertificate = .init(certificate: .file("client.pem"), key: .file("client.key"), keyPassword: nil)
        tls.minimumTLSVersion = .tls1_3                           // .tls1_2 by default
        let pinnedClient = NetworkClient(transport: CurlTransport(configuration: tls))
        _ = pinnedClient
    }

    static func metrics(client: NetworkClient) {
        client.request(.get, CatEndpoint.cuddle, as: Cat.self)
            .done { response in
                guard let metrics = response.metrics, let last = metrics.exchanges.last?.metrics else { return }
                print("\(metrics.exchanges.count) exchanges, \(metrics.retries) retries")
                print("first byte after \(last.firstResponseByte ?? 0) s of \(last.total) s over \(last.httpVersion?.description ?? "?")")
                print("connection reused: \(last.reusedConnection ?? false)")
            }
    }

    static func logging(client: NetworkClient) {
        let verbose = client.newClient(withLogger: PrintLogger())
        _ = verbose

        var login = HTTPRequest(url: URL(string: "https://cats.example/login")!, method: .post)
        login.headers["Authorization"] = "Bearer a1"
        print(login.curlDescription)   // curl -X 'POST' 'https://cats.example/login' -H 'Authorization: ***'
    }

    static func callbacks(client: NetworkClient) {
        let builder = RequestBuilder(method: .post, url: URL(string: "https://cats.example/cats")!,
                                     body: .form([("name", "Tom")]))
        let handle = client.sendRequest(builder) { result in
            switch result {
            case .success(let response): print(response.statusCode)
            case .failure(let error): print(error)
            case .cancelled: print("cancelled")
            }
        }
        handle.dispose()
    }


    struct LogBatch: Codable, Sendable {
        var lines: [String]
    }

    struct Receipt: Codable, Sendable {
        var count: Int
    }

    enum Ingest: Endpoint {
        case logs
        var baseURL: URL { URL(string: "https://logs.example")! }
        var path: String { "/v1/ingest" }
        var compression: RequestCompression? { .gzip }
    }

    static func compressing(client: NetworkClient, lines: [String]) {
        client.post(LogBatch(lines: lines), to: Ingest.logs, as: Receipt.self)
            .done { receipt in print("stored \(receipt.count) lines") }

        var builder = RequestBuilder(method: .post, url: URL(string: "https://logs.example/v1/ingest")!,
                                     body: .json(LogBatch(lines: lines)))
        builder.compression = .deflate
        client.sendRequest(builder) { result in print(result.result.map(\.statusCode)) }
    }

    static func largeBodies(client: NetworkClient) {
        let installer = FileManager.default.temporaryDirectory.appendingPathComponent("installer.pkg")
        client.download(CatEndpoint.cuddle, to: installer) { progress in
            print(progress.completedBytes, progress.fractionCompleted ?? 0)
        }
        .done { response in print("saved to \(response.value.path)") }

        let log = FileManager.default.temporaryDirectory.appendingPathComponent("app.log")
        client.upload(log, to: CatEndpoint.feed(catName: "Tom"), as: Cat.self) { progress in
            print(progress.fractionCompleted ?? 0)
        }

        let photo = FileManager.default.temporaryDirectory.appendingPathComponent("tom.jpg")
        client.request(.post, CatEndpoint.feed(catName: "Tom"), body: .multipart([
            .field(name: "caption", value: "Tom, asleep"),
            .file(name: "photo", fileURL: photo, filename: "tom.jpg", contentType: "image/jpeg"),
        ]), as: Cat.self)
        .done { response in print(response.statusCode) }
    }

    static func defaultClient() -> NetworkClient {
        let client = NetworkClient()
        return client
    }

    static func quickStart(client: NetworkClient) {
        client.get(CatEndpoint.cuddle, as: Cat.self)
            .then { cat in
                client.put(Meal(food: "tuna", grams: 80), to: CatEndpoint.feed(catName: cat.name), as: Cat.self)
            }
            .done { cat in print("\(cat.name) is \(cat.mood)") }
            .catch { error in print(error) }

        client.request(.post, CatEndpoint.feed(catName: "Tom"), body: .json(Meal(food: "tuna", grams: 80)), as: Cat.self)
            .done { response in print(response.statusCode, response.headers["Content-Type"] ?? "-", response.value.mood) }
    }

    static func script(client: NetworkClient) throws {
        let cat = try client.get(CatEndpoint.cuddle, as: Cat.self).wait(timeout: 30)
        print(cat.name)
    }

    static func asyncAwait(client: NetworkClient) async throws {
        let cat = try await client.get(CatEndpoint.cuddle, as: Cat.self).value
        print(cat)
    }

    static func configuration() {
        var configuration = NetworkClient.Configuration()
        configuration.defaultHeaders["User-Agent"] = "CatApp/1.0"       // endpoint headers win
        configuration.defaultQueryItems = [URLQueryItem(name: "apiKey", value: "k&y")]
        configuration.timeout = 2.5                                      // the whole call: redirects and retries included
        configuration.acceptableStatusCodes = 200..<300
        configuration.maximumRedirects = 5
        configuration.responseLimits.maximumBodyBytes = 10_000_000       // 100 MB by default
        let configuredClient = NetworkClient(configuration: configuration)
        _ = configuredClient
    }

    enum Reports: Endpoint {
        case monthly
        var baseURL: URL { URL(string: "https://reports.internal")! }
        var path: String { "/monthly" }
    }

    struct Report: Decodable, Sendable {}

    enum Payments: Endpoint {
        case charge, receipts
        var baseURL: URL { URL(string: "https://pay.example")! }
        var path: String { self == .charge ? "/charges" : "/receipts" }
        var timeout: TimeInterval? { self == .receipts ? 30 : nil }   // slower than the client's
        var sendsIdempotencyKey: Bool { self == .charge }              // a retried charge is applied once
    }

    struct Charge: Codable, Sendable { var cents: Int }

    struct IssuePage: Decodable, Sendable {
        var issues: [Cat]
        var nextCursor: String?
    }

    static func pagedAPIs(client: NetworkClient) async throws {
        for try await page in client.pages(CatEndpoint.cuddle, as: [Cat].self) {
            page.forEach(show)
        }

        let byCursor = client.pages(CatEndpoint.cuddle, as: IssuePage.self, navigation: .cursor { page in
            page.nextCursor.map { [URLQueryItem(name: "cursor", value: $0)] }
        })
        byCursor.collect(upTo: 10).done { pages in print(pages.count) }
    }

    struct SpanPrinter: KringleInstrument {
        func traceContext() -> TraceContext? { .newTrace() }   // or your tracer's current context
        func spanEnded(_ span: KringleSpan) { print(span.kind, span.spanID, span.duration) }
    }

    static func tracing() {
        var traced = NetworkClient.Configuration()
        traced.instrument = SpanPrinter()
        let tracedClient = NetworkClient(configuration: traced)
        _ = tracedClient
    }

    static func coalescing() {
        var sharing = NetworkClient.Configuration()
        sharing.coalescesRequests = true
        let sharingClient = NetworkClient(configuration: sharing)
        let views = (0..<50).map { _ in sharingClient.get(CatEndpoint.pet(catName: "Tom"), as: Cat.self) }
        _ = views
    }

    static func deadlinesRetriesAndRateLimits() {
        var budgeted = NetworkClient.Configuration()
        budgeted.timeout = 10                                             // every call, retries included
        budgeted.interceptors = [RetryPolicy()]
        budgeted.retryBudget = RetryBudget(ratio: 0.1)                    // retries: 10% of first attempts + 10, per host
        budgeted.throttle = HostThrottle(rate: .init(requests: 50, per: 1))
        let payments = NetworkClient(configuration: budgeted)

        payments.post(Charge(cents: 1_250), to: Payments.charge, as: Receipt.self, timeout: 3)  // 3 s in all
            .done { receipt in print(receipt) }
    }

    static func timeoutsByPhase() {
        var configuration = NetworkClient.Configuration()
        configuration.connectTimeout = 0.25   // DNS, TCP, a proxy's tunnel and TLS
        configuration.idleTimeout = 5         // no byte either way for this long
        configuration.timeout = 30            // the whole request, redirects and queueing included
        let dependency = NetworkClient(configuration: configuration)

        dependency.get(Reports.monthly, as: Report.self).catch { error in
            if case KringleError.timedOut(.connect) = error { print("the report service is unreachable") }
        }
    }

    static func connectionPool() {
        var pool = CurlTransport.Configuration()
        pool.maximumConnectionsPerHost = 8     // requests at once to one host; more wait in a queue (6)
        pool.maximumConnections = 128          // requests at once in all; also bounds descriptors (64)
        pool.maximumIdleConnections = 16       // idle connections kept for reuse, 0 for none (as many as maximumConnections)
        pool.idleConnectionTimeout = 50        // close idle connections before the server does (118 s)
        pool.maximumConnectionLifetime = 60    // then reconnect: follow DNS, see rotated certificates (300 s)
        let pooled = NetworkClient(transport: CurlTransport(configuration: pool))
        pooled.poolStatistics().done { hosts in
            for host in hosts { print(host.host, host.inUse, host.queued ?? -1) }
        }
        _ = pooled
    }

    static func dnsOverrides() {
        var addresses = CurlTransport.Configuration()
        addresses.dnsOverrides = [
            CurlTransport.DNSOverride(host: "api.example.com", port: 443, addresses: ["10.0.0.7", "10.0.0.8"]),
        ]
        addresses.ipVersion = .v4              // .any (both, happy eyeballs) by default
        let green = NetworkClient(transport: CurlTransport(configuration: addresses))
        _ = green
    }

    static func h2c() {
        let plainHTTP2 = NetworkClient(transport: CurlTransport(configuration: .init(httpVersion: .http2PriorKnowledge)))
        _ = plainHTTP2
    }

    static func caching(client: NetworkClient, cachesDirectory: URL) throws {
        var cached = NetworkClient.Configuration()
        cached.cache = .memory(maximumBytes: 20_000_000)                  // least recently used go first
        cached.cache = try .directory(cachesDirectory, maximumBytes: 100_000_000)
        let cachingClient = NetworkClient(configuration: cached)
        cachingClient.request(.get, CatEndpoint.cuddle, as: Cat.self)
            .done { response in print(response.cacheStatus) }               // network, hit, revalidated, staleOnError
        let fresh = client.request(.get, CatEndpoint.cuddle, cachePolicy: .reload, as: Cat.self)          // network, then store
        let offline = client.request(.get, CatEndpoint.cuddle, cachePolicy: .cacheOnly, as: Cat.self)     // KringleError.notCached if absent
        _ = (fresh, offline)
    }

    enum Logs: Endpoint {
        case tail
        case feed

        var baseURL: URL { URL(string: "https://logs.example")! }
        var path: String { self == .tail ? "/tail" : "/feed" }
    }

    enum Chat: Endpoint {
        case updates
        case room(String)

        var baseURL: URL { URL(string: "https://chat.example")! }
        var path: String {
            switch self {
            case .updates: return "/updates"
            case .room(let name): return "/rooms/\(pathSegment: name)"
            }
        }
    }

    struct ChatLine: Codable, Sendable {
        var text: String
    }

    static func webSockets(client: NetworkClient) async throws {
        let socket = try await client.webSocket(Chat.room("lobby")).value
        try await socket.send(json: ChatLine(text: "hello")).value
        for try await line in socket.messages(as: ChatLine.self) {
            print(line.text)
        }

        var options = WebSocketOptions()
        options.subprotocols = ["chat.v2"]
        options.pingInterval = 20                        // a silent server is dropped after pongTimeout
        options.reconnection = WebSocketReconnection()   // a dropped connection is replaced
        let live = try client.webSocket(Chat.room("news"), options: options).wait()
        live.send(text: "subscribe").done { print("sent") }
        let first = try live.receive().wait()            // nil once the server closed
        print(first?.text ?? "closed")
        live.close(code: .normalClosure, reason: "bye")
    }

    struct LogEntry: Decodable, Sendable {
        var message: String
    }

    static func streaming(client: NetworkClient, output: FileHandle) async throws {
        let stream = client.stream(Logs.tail)
        print(try await stream.response.statusCode)        // the head, before the first chunk
        for try await chunk in stream {                     // Data, as the network delivers it
            output.write(chunk)
        }
        for try await line in client.stream(Logs.tail).lines {   // LF, CRLF or CR; the last line too
            print(line)
        }
        for try await entry in client.lines(Logs.feed, as: LogEntry.self) {   // NDJSON, one value per line
            print(entry.message)
        }
        for try await event in client.events(Chat.updates) {     // Server-Sent Events
            print(event.event, event.id ?? "-", event.data)
        }
        client.stream(Logs.tail) { chunk in output.write(chunk) }
            .done { response in print("done:", response.statusCode) }
    }

    static func errors(client: NetworkClient) {
        client.get(CatEndpoint.pet(catName: "Garfield"))
            .catch { error in
                if case KringleError.unacceptableStatusCode(let status, let response) = error,
                   let payload = try? JSONDecoder().decode(APIError.self, from: response.body) {
                    print("\(status): \(payload.error)")
                }
            }
    }

    static func promises(client: NetworkClient) {
        let answer = Promise<Int>.pending()
        answer
            .map { $0 * 2 }                         // a value: transform
            .tap { value in print(value) }          // nothing: look, pass the value on
            .catch { error in print(error) }        // errors skip the others, values skip `catch`
        answer.fulfill(21)

        let names = ["Tom", "Felix"]
        Promise.all(names.map { client.get(CatEndpoint.pet(catName: $0), as: Cat.self) })
            .done { cats in print(cats.map(\.mood)) }

        let patient = Promise.retry(attempts: 3, delay: 0.5) {
            client.get(CatEndpoint.cuddle, as: Cat.self)
        }.timeout(10)
        _ = patient

        let request = client.get(CatEndpoint.cuddle, as: Cat.self).done { print($0.name) }
        request.cancel()   // the HTTP request is cancelled too
    }

    struct Spinner {
        func stop() {}
    }

    static func show(_ cat: Cat) { print(cat) }

    /// The chaining table's one-line examples, each in a chain of its own, and the seed one-liner.
    static func chaining(client: NetworkClient, mirror: NetworkClient, endpoint: CatEndpoint, spinner: Spinner) {
        let cat = client.get(CatEndpoint.cuddle, as: Cat.self)
        _ = cat
            .then { cat in client.get(CatEndpoint.pet(catName: cat.name)) }
        _ = cat
            .map { cat in cat.name.uppercased() }
        cat
            .tap { cat in print("got \(cat.name)") }
        cat
            .done { cat in show(cat) }
        _ = cat
            .recover { _ in Cat(name: "Nobody", mood: "absent") }
        _ = cat
            .recoverWith { _ in mirror.get(CatEndpoint.cuddle, as: Cat.self) }
        cat
            .catch { error in print(error) }
        cat
            .always { spinner.stop() }
        _ = cat
            .validate { cat in cat.mood != "grumpy" }

        client.get(endpoint).then { _ in print("🐱") }.catch { error in print("You gotta be kitten me!") }

        client.get(CatEndpoint.cuddle, as: Cat.self)
            .then { cat in
                print("\(cat.name) wakes up")
                return client.put(Meal(food: "tuna", grams: 80), to: CatEndpoint.feed(catName: cat.name), as: Cat.self)
            }
            .map { cat in cat.mood }
            .recover { _ in "unknown" }
            .done { mood in print("Tom is \(mood)") }
    }

    static func cookies() throws {
        var withCookies = NetworkClient.Configuration()
        // Your user's own data directory (~/.local/share or $XDG_DATA_HOME on Linux), never /tmp.
        let appData = try FileManager.default.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        let cookiesFile = appData.appendingPathComponent("catapp-cookies.json")
        withCookies.cookieJar = try CookieJar(fileURL: cookiesFile)   // persistent: saved after changes
        let persistentClient = NetworkClient(configuration: withCookies)

        var noCookies = NetworkClient.Configuration()
        noCookies.cookieJar = nil                                     // cookies off
        _ = (persistentClient, noCookies)
    }

    static func choosingATransport() {
        let systemStackClient = NetworkClient(transport: URLSessionTransport())
        let curlClient = NetworkClient(transport: CurlTransport())
        _ = (systemStackClient, curlClient)
    }

    static func proxies(proxyPassword: String) {
        var proxySettings = CurlTransport.Configuration()
        proxySettings.proxy = .url(
            "http://proxy.internal:3128", username: "build", password: proxyPassword,
            noProxy: ["localhost", "127.0.0.1", ".internal", "10.0.0.0/8", "registry.internal:5000"])
        let proxiedClient = NetworkClient(transport: CurlTransport(configuration: proxySettings))
        // Through an SSH tunnel (`ssh -D 1080 jump-host`), names resolved at the far end:
        let tunnelled = CurlTransport(configuration: .init(proxy: .url("socks5h://127.0.0.1:1080")))
        _ = (proxiedClient, tunnelled)
    }

    static func transports() {
        let loggingClient = NetworkClient(transport: LoggingTransport(base: NetworkClient.makeDefaultTransport()))
        _ = loggingClient
    }

    static func testing() throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/v2/cuddle", with: .json(#"{"name": "Tom", "mood": "purring"}"#))
        let stubbedClient = NetworkClient(transport: transport)
        let tom = try stubbedClient.get(CatEndpoint.cuddle, as: Cat.self).wait()
        _ = tom

        let server = try LoopbackServer { request in
            request.path == "/cuddle" ? .json(#"{"name": "Tom", "mood": "purring"}"#) : .status(404)
        }
        defer { server.shutdown() }
        // point an endpoint's baseURL at server.baseURL
        print(server.baseURL)

        let clock = ManualClock()
        var timed = NetworkClient.Configuration()
        timed.clock = clock
        timed.timeout = 10
        let slowStub = StubTransport(clock: clock)
        slowStub.stub(.get, "/api/v2/cuddle", with: .init(status: 200, delay: 60))
        let call = NetworkClient(configuration: timed, transport: slowStub).get(CatEndpoint.cuddle)
        clock.advance(by: 10)
        print(call.isRejected)   // true: timed out, and nothing waited
    }

    enum Docker: Endpoint {
        case containers(all: Bool)

        var baseURL: URL { URL(string: "http+unix://%2Fvar%2Frun%2Fdocker.sock")! }
        var path: String { "/containers/json" }
        var queryItems: [URLQueryItem] {
            switch self {
            case .containers(let all): return [URLQueryItem(name: "all", value: all ? "1" : "0")]
            }
        }
    }

    struct Container: Decodable, Sendable {
        var id: String
        var names: [String]
        var image: String
        var state: String

        enum CodingKeys: String, CodingKey {
            case id = "Id", names = "Names", image = "Image", state = "State"
        }
    }

    static func unixDomainSockets() async throws {
        let docker = NetworkClient(transport: CurlTransport())
        let containers = try await docker.get(Docker.containers(all: true), as: [Container].self).value
        for container in containers {
            print(container.names.first ?? container.id, container.image, container.state)
        }
    }

    static func testingWithoutTheNetwork() throws {
        // Record once (every exchange, each redirect hop and retry its own entry)…
        let cassette = URL(fileURLWithPath: "Tests/AppTests/Cassettes/cuddle.har")
        let recorder = RecordingTransport(recording: NetworkClient.makeDefaultTransport(), to: cassette)
        let cat = try NetworkClient(transport: recorder).get(CatEndpoint.cuddle, as: Cat.self).wait()

        // …then replay: the same values and errors, and nothing reaches the network.
        let replaying = NetworkClient(transport: try ReplayTransport(cassette: cassette))
        let sameCat = try replaying.get(CatEndpoint.cuddle, as: Cat.self).wait()
        _ = (cat, sameCat)

        let client = try NetworkClient.cassette()   // in cuddlesTom(): Cassettes/cuddlesTom.har
        _ = client

        var matching = CassetteMatching()
        matching.headers = ["Accept"]   // these header values must be equal too
        matching.body = true            // and the bodies (JSON as values: key order aside)
        matching.order = .recorded      // and the requests come in the recorded order
        let strict = try ReplayTransport(cassette: cassette, matching: matching)
        _ = strict

        var redaction = CassetteRedaction()
        redaction.rules.additionalHeaderNames.insert("X-API-Key")
        redaction.body = CassetteRedaction.jsonFields(["password", "token"])
        let careful = RecordingTransport(recording: CurlTransport(), to: cassette, redaction: redaction)
        _ = careful
    }

    static func replayingAStream(_ cassette: URL) async throws {
        let clock = ManualClock()
        let paced = try ReplayTransport(cassette: cassette, pacing: .recorded, clock: clock)
        for try await event in NetworkClient(transport: paced).events(Chat.updates) {
            print(event.data)   // each at its recorded time: clock.advance(by:) moves the stream on
            if event.event == "bye" { break }
        }
    }
}

@Suite("README", .generousTimeLimit)
struct ReadmeExampleTests {
    @Test("the README's StubTransport example decodes its stub")
    func stubExample() async throws {
        let transport = StubTransport()
        transport.stub(.get, "/api/v2/cuddle", with: .json(#"{"name": "Tom", "mood": "purring"}"#))
        let client = NetworkClient(transport: transport)
        let tom = try await client.get(ReadmeExamples.CatEndpoint.cuddle, as: ReadmeExamples.Cat.self).value
        #expect(tom.name == "Tom")
        #expect(transport.requests.first?.url.absoluteString == "https://cats.example/api/v2/cuddle")
    }

    @Test("the README's ManualClock example times out at once, as it says")
    func manualClockExample() async throws {
        let clock = ManualClock()
        var timed = NetworkClient.Configuration()
        timed.clock = clock
        timed.timeout = 10
        let slowStub = StubTransport(clock: clock)
        slowStub.stub(.get, "/api/v2/cuddle", with: .init(status: 200, delay: 60))
        let call = NetworkClient(configuration: timed, transport: slowStub).get(ReadmeExamples.CatEndpoint.cuddle)
        clock.advance(by: 10)
        #expect(call.isRejected)
        #expect(await call.outcome().kringleError?.caseName == "timedOut")
    }

    @Test("the README's curlDescription example prints what it says")
    func curlDescriptionExample() {
        var login = HTTPRequest(url: URL(string: "https://cats.example/login")!, method: .post)
        login.headers["Authorization"] = "Bearer a1"
        #expect(login.curlDescription == "curl -X 'POST' 'https://cats.example/login' -H 'Authorization: ***'")
    }
}

@Suite("README in sync", .generousTimeLimit)
struct ReadmeSyncTests {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The README's Swift code: every line of its `swift` blocks and of the inline examples in
    /// its chaining table, trimmed. Imports aside (the examples file has its own), the
    /// library's own declarations that the README quotes (`public …`, and their members), and
    /// the adapter to swift-distributed-tracing (the block that imports `Tracing`), which
    /// needs that package: Kringle depends on nothing, so it is compiled against it by hand.
    private static func readmeCodeLines() throws -> [String] {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var lines: [String] = []
        var block: [String]?
        var importsTracing = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                if let finished = block, !(finished.first?.hasPrefix("public ") ?? false), !importsTracing {
                    lines += finished
                }
                block = block == nil && trimmed == "```swift" ? [] : nil
                importsTracing = false
            } else if block != nil {
                if trimmed == "import Tracing" { importsTracing = true }
                if !trimmed.isEmpty, !trimmed.hasPrefix("import ") { block?.append(trimmed) }
            } else if trimmed.hasPrefix("| "), trimmed.contains("| `.") {
                // A chaining-table row: its example is the last code span.
                let spans = trimmed.split(separator: "`", omittingEmptySubsequences: false)
                if spans.count >= 3 { lines.append(String(spans[spans.count - 2])) }
            }
        }
        return lines
    }

    @Test("every line of the README's Swift examples stands in ReadmeExamples.swift, so it compiles")
    func everyExampleLineIsCompiled() throws {
        let examples = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let compiled = examples.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let code = try Self.readmeCodeLines()
        #expect(code.count > 100)
        let missing = code.filter { !compiled.contains($0) }
        #expect(missing.isEmpty, "README lines not in ReadmeExamples.swift: \(missing)")
    }
}
