import ChildProcess
import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request and the command line it should give.
struct InterceptorCurlCase: Sendable, CustomTestStringConvertible {
    var label: String
    var method: String
    var url: String
    var headers: HTTPHeaders = [:]
    var body: Data?
    var redaction: Redaction = .default
    var includingBody = false
    var expected: String

    var request: HTTPRequest {
        var request = HTTPRequest(url: URL(string: url) ?? URL(fileURLWithPath: "/"))
        request.method = HTTPMethod(rawValue: method)
        request.headers = headers
        request.body = body
        return request
    }

    var testDescription: String { label }
}

/// Runs `command` with `/bin/sh -c` on a thread of its own, killing it after `seconds`.
func interceptorRunShell(_ command: String, killAfter seconds: Double = 10) async throws -> ChildProcess.Outcome {
    try await onOwnThread {
        try ChildProcess.run("/bin/sh", ["-c", command], includingStandardError: true, killAfter: seconds)
    }
}

@Suite("curlDescription", .generousTimeLimit)
struct CurlDescriptionTests {
    @Test(
        "the command line for a request",
        arguments: [
            InterceptorCurlCase(
                label: "plain GET", method: "GET", url: "https://cats.example/cats?page=2",
                expected: "curl 'https://cats.example/cats?page=2'"),
            InterceptorCurlCase(
                label: "POST with headers and body, secrets redacted, body shown when asked", method: "POST",
                url: "https://cats.example/cats",
                headers: [
                    "Authorization": "Bearer abc", "Content-Type": "application/json", "Cookie": "s=1",
                    "Proxy-Authorization": "Basic xyz", "X-Trace": "t-1",
                ],
                body: Data(#"{"name":"Tom"}"#.utf8), includingBody: true,
                expected: "curl -X 'POST' 'https://cats.example/cats' -H 'Authorization: ***' "
                    + "-H 'Content-Type: application/json' -H 'Cookie: ***' "
                    + "-H 'Proxy-Authorization: ***' -H 'X-Trace: t-1' --data-binary '{\"name\":\"Tom\"}'"),
            InterceptorCurlCase(
                label: "nothing redacted when asked", method: "DELETE", url: "https://cats.example/cats/1",
                headers: ["Authorization": "Bearer abc", "Cookie": "s=1"], redaction: .disabled,
                expected:
                    "curl -X 'DELETE' 'https://cats.example/cats/1' -H 'Authorization: Bearer abc' -H 'Cookie: s=1'"),
            InterceptorCurlCase(
                label: "names added to the defaults, case-insensitive", method: "GET",
                url: "https://cats.example/?Session=s1&page=2",
                headers: ["X-Api-Key": "k", "Authorization": "a"],
                redaction: Redaction(additionalHeaderNames: ["x-api-key"], additionalQueryItemNames: ["session"]),
                expected:
                    "curl 'https://cats.example/?Session=***&page=2' -H 'X-Api-Key: ***' -H 'Authorization: ***'"
            ),
            InterceptorCurlCase(
                label: "secret query items and the URL's password redacted", method: "GET",
                url: "https://ann:pa55@cats.example/cats?api_key=k1&page=2&TOKEN=t&sig",
                expected: "curl 'https://ann:***@cats.example/cats?api_key=***&page=2&TOKEN=***&sig'"),
            InterceptorCurlCase(
                label: "a body is left out unless asked for", method: "POST", url: "https://cats.example/login",
                body: Data(#"{"password":"hunter2"}"#.utf8),
                expected: "curl -X 'POST' 'https://cats.example/login' --data-binary '<22 bytes of body left out>'"),
            InterceptorCurlCase(
                label: "single quotes are escaped for the shell", method: "PUT",
                url: "https://cats.example/cats/O'Malley",
                headers: ["X-Note": "it's"], body: Data("Tom's 'dinner'".utf8), includingBody: true,
                expected:
                    #"curl -X 'PUT' 'https://cats.example/cats/O'\''Malley' -H 'X-Note: it'\''s' --data-binary 'Tom'\''s '\''dinner'\'''"#
            ),
            InterceptorCurlCase(
                label: "binary body", method: "POST", url: "https://cats.example/photo",
                body: Data([0xFF, 0xFE, 0x00, 0x80]), includingBody: true,
                expected: "curl -X 'POST' 'https://cats.example/photo' --data-binary '<4 bytes of binary data>'"),
        ])
    func description(_ row: InterceptorCurlCase) {
        let request = row.request
        let description = request.curlDescription(redacting: row.redaction, includingBody: row.includingBody)
        if row.redaction == .default && !row.includingBody {
            #expect(request.curlDescription == description, "the property is the defaults")
        }
        #expect(description == row.expected)
    }

    @Test(
        "the command line, run with curl, sends the same request (nothing redacted)",
        arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    func reproducesRequest(method: String) async throws {
        let received = Box<[LoopbackServer.Request]>([])
        let server = try LoopbackServer { request in
            received.withLock { $0.append(request) }
            return .text("ok")
        }
        defer { server.shutdown() }
        var request = HTTPRequest(url: server.url("/cats/Tom?mood=sleepy&note=it%27s%20late"))
        request.method = HTTPMethod(rawValue: method)
        request.headers["Authorization"] = "Bearer t0k3n"
        request.headers["X-Quote"] = "it's here"
        let body = #"{"name": "O'Malley", "mood": "😺 $HOME `date`"}"#
        if method != "GET" {
            request.body = Data(body.utf8)
            request.headers["Content-Type"] = "application/json"
        }

        let result = try await interceptorRunShell(
            request.curlDescription(redacting: .disabled, includingBody: true) + " --silent --show-error --max-time 10")
        #expect(result.status == 0 && !result.timedOut, "\(result.text)")
        let seen = try #require(received.value.first)
        #expect(received.value.count == 1)
        #expect(seen.method == method)
        #expect(seen.target == "/cats/Tom?mood=sleepy&note=it%27s%20late")
        #expect(seen.header("Authorization") == "Bearer t0k3n")
        #expect(seen.header("X-Quote") == "it's here")
        if method != "GET" {
            #expect(seen.bodyText == body)
            #expect(seen.header("Content-Type") == "application/json")
        }
    }

    @Test("the redacted command line does not leak the secret to the server either")
    func redactedCommandSendsPlaceholder() async throws {
        let received = Box<[LoopbackServer.Request]>([])
        let server = try LoopbackServer { request in
            received.withLock { $0.append(request) }
            return .status(204)
        }
        defer { server.shutdown() }
        var request = HTTPRequest(url: server.url("/me"))
        request.headers["Authorization"] = "Bearer t0k3n"
        #expect(!request.curlDescription.contains("t0k3n"))

        let result = try await interceptorRunShell(request.curlDescription + " --silent --show-error --max-time 10")
        #expect(result.status == 0, "\(result.text)")
        #expect(received.value.map { $0.header("Authorization") } == ["***"])
    }

    @Test("a quote that a combining mark follows cannot end the shell quoting")
    func combiningMarkAfterQuote() async throws {
        var request = HTTPRequest(url: URL(string: "https://cats.example/")!)
        request.headers["X-Note"] = "a'\u{301}; echo pwned #"
        let command = request.curlDescription
        // Run by a shell, the header argument comes back whole: nothing after it ran.
        let result = try await interceptorRunShell("printf '%s' " + command.dropFirst("curl ".count))
        #expect(!result.text.contains("pwned\n") && result.text.contains("echo pwned"), "\(result.text)")
    }

    @Test("a HEAD request's command line completes with curl (curl needs --head, not -X HEAD)")
    func reproducesHead() async throws {
        let received = Box<[LoopbackServer.Request]>([])
        let server = try LoopbackServer { request in
            received.withLock { $0.append(request) }
            return .text("a body that HEAD does not send")
        }
        defer { server.shutdown() }
        var request = HTTPRequest(url: server.url("/cats"))
        request.method = "HEAD"

        let command = request.curlDescription
        let result = try await interceptorRunShell(command + " --silent --show-error --max-time 2 --output /dev/null")
        #expect(received.value.map(\.method) == ["HEAD"])
        #expect(result.status == 0, "`\(command)` failed (\(result.status)): \(result.text)")
    }
}
