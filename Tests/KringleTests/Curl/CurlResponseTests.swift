import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

/// Status, headers and body come back as the server sent them.
@Suite(.generousTimeLimit) struct CurlResponseTests {
    @Test func threeSetCookieHeadersStayThreeValues() async throws {
        let server = try LoopbackServer { _ in
            .text("ok")
                .addingHeader("Set-Cookie", "a=1; Path=/")
                .addingHeader("Set-Cookie", "b=2; Expires=Wed, 09 Jun 2021 10:18:14 GMT")
                .addingHeader("Set-Cookie", "c=3; HttpOnly")
        }
        defer { server.shutdown() }

        let response = try await CurlTransport().send(makeRequest(server.url("/"))).valueWithin()

        #expect(
            response.headers.values(for: "set-cookie") == [
                "a=1; Path=/",
                "b=2; Expires=Wed, 09 Jun 2021 10:18:14 GMT",
                "c=3; HttpOnly",
            ])
    }

    @Test func commaInSetCookieIsOneValue() async throws {
        let server = try LoopbackServer { _ in .text("ok").addingHeader("Set-Cookie", "a=b, c=d") }
        defer { server.shutdown() }

        let response = try await CurlTransport().send(makeRequest(server.url("/"))).valueWithin()

        #expect(response.headers.values(for: "Set-Cookie") == ["a=b, c=d"])
    }

    @Test func headersKeepTheirOrderAndRepeats() async throws {
        let server = try LoopbackServer { _ in
            LoopbackServer.Response(
                status: 200,
                headers: [
                    ("X-First", "1"), ("Vary", "Accept"), ("X-Second", "  padded  "), ("Vary", "Origin"),
                ], body: Data("b".utf8))
        }
        defer { server.shutdown() }

        let response = try await CurlTransport().send(makeRequest(server.url("/"))).valueWithin()

        let names = response.headers.fields.map(\.name).filter { $0.hasPrefix("X-") || $0 == "Vary" }
        #expect(names == ["X-First", "Vary", "X-Second", "Vary"])
        #expect(response.headers.values(for: "vary") == ["Accept", "Origin"])
        #expect(response.headers["x-second"] == "padded")
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectIsReturnedNotFollowed(status: Int) async throws {
        let paths = Recorder<String>()
        let server = try LoopbackServer { request in
            paths.append(request.path)
            return request.path == "/old" ? .redirect(to: "/new", status: status) : .text("new")
        }
        defer { server.shutdown() }

        let response = try await CurlTransport().send(
            makeRequest(server.url("/old"), method: "POST", body: Data("x".utf8))
        ).valueWithin()

        #expect(response.statusCode == status)
        #expect(response.headers["Location"] == "/new")
        #expect(response.url == server.url("/old"))
        #expect(paths.elements == ["/old"])
    }

    @Test func gzipBodyIsDecoded() async throws {
        let text = String(repeating: "{\"kringle\": \"curl\"}\n", count: 500)
        let compressed = try await onOwnThread { try gzipped(Data(text.utf8)) }
        let acceptEncodings = Recorder<String?>()
        let server = try LoopbackServer { request in
            acceptEncodings.append(request.header("accept-encoding"))
            return .data(compressed, contentType: "application/json").addingHeader("Content-Encoding", "gzip")
        }
        defer { server.shutdown() }

        let response = try await CurlTransport().send(makeRequest(server.url("/"))).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == text)
        // Headers stay as sent: Content-Length counts the compressed bytes.
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(response.headers["Content-Length"] == String(compressed.count))
        #expect(acceptEncodings.elements.first??.contains("gzip") == true)
    }

    @Test func chunkedBodyIsReassembled() async throws {
        let text = String(repeating: "0123456789", count: 1000)
        let server = try LoopbackServer { _ in .text(text).withBehavior(.chunked(chunkSize: 333)) }
        defer { server.shutdown() }

        let response = try await CurlTransport().send(makeRequest(server.url("/"))).valueWithin()

        #expect(String(decoding: response.body, as: UTF8.self) == text)
        #expect(response.headers["Transfer-Encoding"] == "chunked")
    }

    @Test(arguments: [204, 404, 500, 503])
    func everyStatusIsAResponse(status: Int) async throws {
        let server = try LoopbackServer { _ in status == 204 ? .status(204) : .text("status \(status)", status: status)
        }
        defer { server.shutdown() }

        let response = try await CurlTransport().send(makeRequest(server.url("/s"))).valueWithin()

        #expect(response.statusCode == status)
        #expect(response.url == server.url("/s"))
    }
}
