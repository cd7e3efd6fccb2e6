import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// The configuration's options reach curl.
@Suite(.generousTimeLimit) struct CurlConfigurationTests {
    @Test func perHostLimitQueuesOnOneConnection() async throws {
        let connections = Recorder<Int>()
        let server = try LoopbackServer { request in
            connections.append(request.connectionID)
            return .text("ok").delayed(by: 0.05)
        }
        defer { server.shutdown() }
        let transport = CurlTransport(configuration: .init(maximumConnectionsPerHost: 1))

        let promises = (0..<4).map { _ in transport.send(makeRequest(server.url("/"))) }
        for promise in promises {
            _ = try await promise.valueWithin()
        }

        #expect(connections.elements.count == 4)
        #expect(server.statistics.connectionsAccepted == 1)
    }

    /// The CA file and CA data also reach an HTTPS proxy, for plain http URLs too, so the
    /// two together are refused whatever the URL's scheme (CurlTLSTests covers https).
    @Test func fileAndPEMDataTogetherAreRefusedForPlainHTTPToo() async throws {
        let server = try LoopbackServer { _ in .text("sent anyway") }
        defer { server.shutdown() }
        let transport = CurlTransport(
            configuration: .init(
                certificateAuthorityFile: "/nonexistent/ca.pem", certificateAuthorityPEM: Data("x".utf8)))

        let outcome = await transport.send(makeRequest(server.url("/"))).outcome()

        guard case .failure(KringleError.invalidRequest(let reason)) = outcome else {
            Issue.record("expected invalidRequest, got \(outcome)")
            return
        }
        #expect(reason.contains("certificateAuthorityFile") && reason.contains("certificateAuthorityPEM"))
        #expect(server.statistics.connectionsAccepted == 0)
    }

    @Test func proxyReceivesTheAbsoluteURL() async throws {
        let targets = Recorder<String>()
        let proxy = try LoopbackServer { request in
            targets.append(request.target)
            return .text("via proxy")
        }
        defer { proxy.shutdown() }
        let transport = CurlTransport(configuration: .init(proxy: .url(proxy.baseURL.absoluteString)))
        let url = try #require(URL(string: "http://kringle.invalid/through?x=1"))

        let response = try await transport.send(makeRequest(url)).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == "via proxy")
        #expect(targets.elements == ["http://kringle.invalid/through?x=1"])
    }

    @Test func everyOptionIsAcceptedByCurl() async throws {
        let versions = Recorder<String>()
        let server = try LoopbackServer { request in
            versions.append(request.httpVersion)
            return .status(204)
        }
        defer { server.shutdown() }
        let configuration = CurlTransport.Configuration(
            maximumConnections: 4,
            maximumConnectionsPerHost: 2,
            proxy: .direct,
            verifiesCertificates: false,
            certificateAuthorityFile: "/nonexistent/ca.pem",  // only read for https
            httpVersion: .http1_1
        )

        let response = try await CurlTransport(configuration: configuration).send(makeRequest(server.url("/")))
            .valueWithin()

        #expect(response.statusCode == 204)
        #expect(versions.elements == ["HTTP/1.1"])
    }

    @Test func cookiesAreNeitherStoredNorSent() async throws {
        let cookies = Recorder<String?>()
        let server = try LoopbackServer { request in
            cookies.append(request.header("cookie"))
            return .text("ok").addingHeader("Set-Cookie", "session=1; Path=/")
        }
        defer { server.shutdown() }
        let transport = CurlTransport()

        _ = try await transport.send(makeRequest(server.url("/"))).valueWithin()
        _ = try await transport.send(makeRequest(server.url("/"))).valueWithin()

        #expect(cookies.elements == [nil, nil])
    }
}
