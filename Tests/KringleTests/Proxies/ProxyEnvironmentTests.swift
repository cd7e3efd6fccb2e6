import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// `CurlTransport.Proxy.environment`'s reading of the proxy variables, as a pure function:
/// variables in, routes out.
@Suite(.generousTimeLimit) struct ProxyEnvironmentTests {
    /// What `http` and `https` URLs to an unlisted host get, written as the proxy's curl URL,
    /// `direct`, or `refused`.
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let variables: [String: String]
        let http: String
        let https: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nothing set: direct", variables: [:], http: "direct", https: "direct"),
        Case(
            name: "lower case for each scheme", variables: ["http_proxy": "http://a:1", "https_proxy": "http://b:2"],
            http: "http://a:1", https: "http://b:2"),
        Case(
            name: "upper case for each scheme", variables: ["HTTP_PROXY": "http://a:1", "HTTPS_PROXY": "http://b:2"],
            http: "http://a:1", https: "http://b:2"),
        Case(
            name: "lower case wins over upper case",
            variables: [
                "http_proxy": "http://lower:1", "HTTP_PROXY": "http://upper:1", "https_proxy": "http://lower:2",
                "HTTPS_PROXY": "http://upper:2",
            ],
            http: "http://lower:1", https: "http://lower:2"),
        Case(
            name: "CGI: HTTP_PROXY is ignored when REQUEST_METHOD is set (httpoxy)",
            variables: ["REQUEST_METHOD": "GET", "HTTP_PROXY": "http://attacker:1", "HTTPS_PROXY": "http://b:2"],
            http: "direct", https: "http://b:2"),
        Case(
            name: "CGI: REQUEST_METHOD set but empty still counts",
            variables: ["REQUEST_METHOD": "", "HTTP_PROXY": "http://attacker:1"], http: "direct", https: "direct"),
        Case(
            name: "CGI: lower-case http_proxy is still read",
            variables: ["REQUEST_METHOD": "POST", "http_proxy": "http://a:1", "HTTP_PROXY": "http://attacker:1"],
            http: "http://a:1", https: "direct"),
        Case(
            name: "CGI: HTTP_PROXY ignored, ALL_PROXY used instead",
            variables: ["REQUEST_METHOD": "GET", "HTTP_PROXY": "http://attacker:1", "ALL_PROXY": "socks5h://s:3"],
            http: "socks5h://s:3", https: "socks5h://s:3"),
        Case(
            name: "all_proxy for both schemes", variables: ["all_proxy": "socks5h://s:1080"],
            http: "socks5h://s:1080", https: "socks5h://s:1080"),
        Case(
            name: "a scheme's own variable wins over all_proxy",
            variables: ["all_proxy": "socks5://s:1", "https_proxy": "http://b:2"], http: "socks5://s:1",
            https: "http://b:2"),
        Case(
            name: "all_proxy lower case wins over ALL_PROXY",
            variables: ["all_proxy": "http://lower:1", "ALL_PROXY": "http://upper:1"], http: "http://lower:1",
            https: "http://lower:1"),
        Case(
            name: "an empty lower-case variable hides the upper-case one",
            variables: ["http_proxy": "", "HTTP_PROXY": "http://upper:1"], http: "direct", https: "direct"),
        Case(
            name: "an empty variable leaves all_proxy to apply",
            variables: ["https_proxy": "", "all_proxy": "http://s:1"], http: "http://s:1", https: "http://s:1"),
        Case(
            name: "no scheme: an HTTP proxy", variables: ["https_proxy": "proxy.internal:3128"], http: "direct",
            https: "http://proxy.internal:3128"),
        Case(
            name: "the four kinds", variables: ["http_proxy": "HTTPS://p:443", "https_proxy": "socks5://p:1080"],
            http: "https://p:443", https: "socks5://p:1080"),
        Case(
            name: "an IPv6 proxy keeps its brackets",
            variables: ["http_proxy": "http://[::1]:3128", "https_proxy": "[fd00::5]"],
            http: "http://[::1]:3128", https: "http://[fd00::5]"),
        Case(
            name: "credentials are kept out of the curl URL", variables: ["http_proxy": "http://u:pw@p:8080/"],
            http: "http://p:8080", https: "direct"),
        Case(
            name: "an unusable scheme is refused, not ignored", variables: ["https_proxy": "ftp://p:21"],
            http: "direct", https: "refused"),
        Case(
            name: "a URL without a host is refused", variables: ["http_proxy": "http://:8080"], http: "refused",
            https: "direct"),
    ]

    @Test(arguments: cases)
    func routes(_ testCase: Case) {
        let routes = ProxyRoutes(environment: { testCase.variables[$0] })
        #expect(Self.text(routes.http) == testCase.http)
        #expect(Self.text(routes.https) == testCase.https)
    }

    @Test func credentialsInTheURLArePercentDecoded() throws {
        let routes = ProxyRoutes(environment: { ["https_proxy": "http://build%40ci:p%3Ass@p:3128"][$0] })
        guard case .proxy(let server) = routes.https else {
            Issue.record("expected a proxy, got \(routes.https)")
            return
        }
        #expect(server.username == "build@ci")
        #expect(server.password == "p:ss")
    }

    @Test func noProxyLowerCaseWinsAndAppliesToEveryKind() throws {
        let routes = ProxyRoutes(environment: {
            [
                "all_proxy": "socks5h://s:1080", "no_proxy": "internal.example", "NO_PROXY": "other.example",
            ][$0]
        })
        let internalURL = try #require(URL(string: "https://api.internal.example/"))
        let other = try #require(URL(string: "http://other.example/"))
        #expect(routes.decision(for: internalURL, isHTTPS: true) == .route(.direct))
        #expect(Self.isProxied(routes.decision(for: other, isHTTPS: false)))
    }

    @Test func noProxyUpperCaseIsReadWhenLowerIsUnset() throws {
        let routes = ProxyRoutes(environment: { ["HTTPS_PROXY": "http://p:1", "NO_PROXY": ".corp:8443"][$0] })
        #expect(
            routes.decision(for: try #require(URL(string: "https://git.corp:8443/")), isHTTPS: true) == .route(.direct))
        #expect(Self.isProxied(routes.decision(for: try #require(URL(string: "https://git.corp/")), isHTTPS: true)))
    }

    /// The refusal names the variable and the problem, never the password.
    @Test func aRefusalNamesTheVariableWithoutThePassword() {
        let routes = ProxyRoutes(environment: { ["HTTPS_PROXY": "gopher://user:hunter2@p:70"][$0] })
        guard case .refused(let reason) = routes.https else {
            Issue.record("expected a refusal, got \(routes.https)")
            return
        }
        #expect(reason.contains("HTTPS_PROXY"))
        #expect(reason.contains("gopher"))
        #expect(!reason.contains("hunter2"))
    }

    /// The variables `.environment` reads, unset in the child before each scenario sets its own.
    static let proxyVariables = [
        "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
        "REQUEST_METHOD",
    ]

    /// A process environment and what `.environment` must make of it: the routes for `http`
    /// and `https`, and whether `https://api.corp/` goes direct.
    struct ProcessScenario: Sendable, CustomStringConvertible {
        let name: String
        let variables: [String: String]
        let report: String
        var description: String { name }
    }

    static let processScenarios: [ProcessScenario] = [
        ProcessScenario(name: "nothing set", variables: [:], report: "http=direct https=direct corp=direct"),
        ProcessScenario(
            name: "lower-case http_proxy, upper-case HTTPS_PROXY with credentials, NO_PROXY",
            variables: [
                "http_proxy": "http://lower:1", "HTTPS_PROXY": "http://build:secret@upper:2",
                "NO_PROXY": "localhost,.corp",
            ],
            report: "http=http://lower:1 https=http://upper:2 corp=direct"),
        ProcessScenario(
            name: "under CGI HTTP_PROXY is ignored; ALL_PROXY applies to both",
            variables: ["REQUEST_METHOD": "GET", "HTTP_PROXY": "http://attacker:1", "ALL_PROXY": "socks5h://s:3"],
            report: "http=socks5h://s:3 https=socks5h://s:3 corp=proxy"),
    ]

    /// `.environment` reads the process's own variables (through `getenv`): a child process
    /// of this test binary is started with real variables set, and reports what it read.
    @Test(
        .enabled(if: ChildTestRun.isAvailable, "needs the test binary to run itself in a child process (Linux)"),
        arguments: processScenarios)
    func theProcessEnvironmentIsRead(_ scenario: ProcessScenario) async throws {
        if ChildTestRun.isChild("theProcessEnvironmentIsRead") {
            // The child: report what was read, on a line of its own.
            return print("kringle-proxy-routes:", Self.report(ProxyRoutes(.environment)))
        }
        let child = try await ChildTestRun.run(
            "ProxyEnvironmentTests/theProcessEnvironmentIsRead", setting: scenario.variables,
            unsetting: Self.proxyVariables)
        let reports = child.text.split(separator: "\n").filter { $0.hasPrefix("kringle-proxy-routes: ") }
        #expect(child.status == 0, "\(child.text)")
        // One report per scenario: the child runs every argument, all in the same environment.
        #expect(reports.count == Self.processScenarios.count, "\(child.text)")
        #expect(Set(reports) == ["kringle-proxy-routes: \(scenario.report)"], "\(child.text)")
    }

    /// What a child reports of `routes`.
    private static func report(_ routes: ProxyRoutes) -> String {
        let corp = URL(string: "https://api.corp/").map { routes.decision(for: $0, isHTTPS: true) }
        return
            "http=\(text(routes.http)) https=\(text(routes.https)) corp=\(corp == .route(.direct) ? "direct" : "proxy")"
    }

    @Test func libcurlIsLeftToReadTheEnvironmentOnlyWhenAsked() throws {
        let url = try #require(URL(string: "http://example.com/"))
        #expect(ProxyRoutes(.libcurlEnvironment).decision(for: url, isHTTPS: false) == .leftToLibcurl)
        #expect(ProxyRoutes(.direct).decision(for: url, isHTTPS: false) == .route(.direct))
        #expect(ProxyRoutes(.environment([:])).decision(for: url, isHTTPS: false) == .route(.direct))
    }

    private static func text(_ route: ProxyRoutes.Route) -> String {
        switch route {
        case .direct: "direct"
        case .proxy(let server): server.curlURL
        case .refused: "refused"
        }
    }

    private static func isProxied(_ decision: ProxyRoutes.Decision) -> Bool {
        if case .route(.proxy) = decision { return true }
        return false
    }
}
