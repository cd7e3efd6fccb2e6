import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// DNS overrides and the IP version, against a server that only listens on 127.0.0.1.
@Suite("CurlTransport addresses", .generousTimeLimit)
struct CurlAddressTests {
    private static func endpoint(host: String, port: Int, path: String = "/") throws -> ClientTestEndpoint {
        ClientTestEndpoint(baseURL: try #require(URL(string: "http://\(host):\(port)")), path: path)
    }

    @Test("a DNS override sends a made-up host name to the address given, the Host field keeping the name")
    func dnsOverride() async throws {
        let hosts = Box<[String]>([])
        let server = try LoopbackServer { request in
            hosts.withLock { $0.append(request.headers.first { $0.name.lowercased() == "host" }?.value ?? "") }
            var response = LoopbackServer.Response.text("ok")
            response.headers.append(("Set-Cookie", "flavour=tuna"))
            return response
        }
        defer { server.shutdown() }
        let client = curlClient {
            $0.dnsOverrides = [.init(host: "kringle.test", port: server.port, addresses: ["127.0.0.1"])]
        }
        let endpoint = try Self.endpoint(host: "kringle.test", port: server.port)
        let response = try await client.request(.get, endpoint, as: Data.self).valueWithin()
        #expect(response.metrics?.exchanges.last?.metrics?.remoteAddress == "127.0.0.1")
        _ = try await client.get(endpoint, as: Data.self).valueWithin()
        #expect(hosts.withLock { $0 } == ["kringle.test:\(server.port)", "kringle.test:\(server.port)"])
        // Cookies belong to the name, not the address.
        let cookies = client.configuration.cookieJar?.cookies(for: try #require(URL(string: "http://kringle.test/")))
        #expect(cookies?.map(\.name) == ["flavour"])
    }

    @Test("ipVersion: with both families overridden, v4 connects to 127.0.0.1 and v6 to ::1, where nothing listens")
    func ipVersion() async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let overrides = [
            CurlTransport.DNSOverride(host: "dual.test", port: server.port, addresses: ["::1", "127.0.0.1"])
        ]
        let endpoint = try Self.endpoint(host: "dual.test", port: server.port)

        let v4 = curlClient {
            $0.dnsOverrides = overrides
            $0.ipVersion = .v4
        }
        let response = try await v4.request(.get, endpoint, as: Data.self).valueWithin()
        #expect(response.metrics?.exchanges.last?.metrics?.remoteAddress == "127.0.0.1")

        let v6 = curlClient {
            $0.dnsOverrides = overrides
            $0.ipVersion = .v6
        }
        let outcome = await v6.get(endpoint, as: Data.self).outcome()
        guard case .failure(KringleError.transport(let error as CurlError)) = outcome else {
            Issue.record("expected a CurlError (no connection on ::1), got \(outcome)")
            return
        }
        #expect(error.code == 7, "CURLE_COULDNT_CONNECT: \(error)")
        #expect(server.statistics.requestsReceived == 1)
    }

    @Test(
        "a malformed DNS override is refused naming it, before anything is sent",
        arguments: [
            CurlTransport.DNSOverride(host: "bad host", port: 80, addresses: ["127.0.0.1"]),
            CurlTransport.DNSOverride(host: "kringle.test", port: 0, addresses: ["127.0.0.1"]),
            CurlTransport.DNSOverride(host: "kringle.test", port: 80, addresses: []),
            CurlTransport.DNSOverride(host: "kringle.test", port: 80, addresses: ["not-an-address"]),
        ])
    func malformedOverride(_ override: CurlTransport.DNSOverride) async throws {
        let server = try LoopbackServer { _ in .text("ok") }
        defer { server.shutdown() }
        let client = curlClient { $0.dnsOverrides = [override] }
        let outcome = await client.get(server.clientEndpoint("/"), as: Data.self).outcome()
        guard case .failure(KringleError.invalidRequest(let reason)) = outcome else {
            Issue.record("expected invalidRequest, got \(outcome)")
            return
        }
        #expect(reason.contains("DNSOverride"))
        #expect(server.statistics.connectionsAccepted == 0)
    }

    @Test("DNSOverride's curl entry: IPv6 in brackets, several addresses in order")
    func curlEntry() throws {
        let entry = try CurlTransport.DNSOverride(
            host: "api.test", port: 443, addresses: ["::1", "[fd00::2]", "10.0.0.7"]
        )
        .curlEntry()
        #expect(entry == "api.test:443:[::1],[fd00::2],10.0.0.7")
    }
}
