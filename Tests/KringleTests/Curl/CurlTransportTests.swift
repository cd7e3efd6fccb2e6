import Foundation
import Kringle
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
import KringleTestSupport
#endif

/// How requests are translated into curl options, without curl.
@Suite struct CurlRequestPlanTests {
    static let url = URLComponents(string: "http://example.test/a?b=c")?.url ?? URL(fileURLWithPath: "/")

    @Test(
        arguments: [
            ("GET", nil, CurlRequestPlan.Method.get, nil),
            ("GET", "", .get, nil),
            ("GET", "body", .custom("GET"), "body"),
            ("HEAD", "ignored", .head, nil),
            ("POST", nil, .post, ""),
            ("POST", "x", .post, "x"),
            ("PUT", nil, .custom("PUT"), ""),
            ("PATCH", "p", .custom("PATCH"), "p"),
            ("DELETE", nil, .custom("DELETE"), nil),
            ("OPTIONS", nil, .custom("OPTIONS"), nil),
            ("MKCOL", "m", .custom("MKCOL"), "m"),
        ] as [(String, String?, CurlRequestPlan.Method, String?)])
    func methodMapping(method: String, body: String?, expected: CurlRequestPlan.Method, expectedBody: String?) {
        let (mapped, mappedBody) = CurlRequestPlan.method(method, body: body.map { Data($0.utf8) })

        #expect(mapped == expected)
        #expect(mappedBody == expectedBody.map { Data($0.utf8) })
    }

    /// The request's fields go in their order, repeats kept; then the lines that switch curl's
    /// own off.
    @Test func headerLinesSuppressCurlDefaults() throws {
        let lines = try CurlRequestPlan.headerLines(
            HTTPHeaders([("X-B", "2"), ("x-a", "1"), ("X-Empty", ""), ("x-a", "3")]), hasBody: true)

        #expect(
            lines == ["X-B: 2", "x-a: 1", "X-Empty;", "x-a: 3"] + acceptEncoding() + ["Expect:", "Content-Type:"])
    }

    @Test func headerLinesKeepEveryByteOfLongAndUTF8Values() throws {
        let long = String(repeating: "token-", count: 40)
        let lines = try CurlRequestPlan.headerLines(
            ["Authorization": "Bearer " + long, "X-Name": "café ☕"], hasBody: false)

        #expect(lines == ["Authorization: Bearer " + long, "X-Name: café ☕"] + acceptEncoding() + ["Expect:"])
    }

    @Test func givenExpectAndContentTypeAreKept() throws {
        let lines = try CurlRequestPlan.headerLines(
            ["Expect": "100-continue", "Content-Type": "text/plain"], hasBody: true)

        #expect(lines == ["Expect: 100-continue", "Content-Type: text/plain"] + acceptEncoding())
    }

    @Test func aGivenAcceptEncodingIsKept() throws {
        let lines = try CurlRequestPlan.headerLines(["accept-encoding": "identity"], hasBody: false)

        #expect(lines == ["accept-encoding: identity", "Expect:"])
    }

    /// The `Accept-Encoding` line a request without its own gets: the codings of the libcurl
    /// loaded here (gzip among them), none where libcurl is missing.
    private func acceptEncoding() -> [String] {
        guard let line = CurlRequestPlan.acceptEncodingLine else { return [] }
        #expect(line.hasPrefix("Accept-Encoding: ") && line.contains("gzip"))
        return [line]
    }

    @Test(arguments: [
        ["Bad Name": "v"], ["X": "a\nb"], ["X": "a\rb"], ["": "v"], ["X:Y": "v"], ["X": "nul\0"],
        ["Ünï": "v"], ["X": "a\r\nInjected: 1"],
    ])
    func unsendableHeadersAreRejected(fields: [String: String]) {
        #expect(throws: KringleError.self) {
            try CurlRequestPlan.headerLines(HTTPHeaders(fields.map { ($0.key, $0.value) }), hasBody: false)
        }
    }

    @Test(
        arguments: [
            (0.3, 300), (0.0001, 1), (1.5, 1_500), (0.2995, 300), (0, 0), (-1, 0),
            (.infinity, 0), (.nan, 0), (1e300, Int(Int32.max)),
        ] as [(TimeInterval, Int)])
    func timeoutMilliseconds(seconds: TimeInterval, milliseconds: Int) {
        #expect(CurlRequestPlan.milliseconds(seconds) == milliseconds)
    }

    /// The time limit is the caller's choice (the client's deadline, or one made from the
    /// request's `timeoutInterval` by `send`), never worked out again from the request.
    @Test(arguments: [60.0, 0.25, 0])
    func thePlanKeepsTheTimeLimitItIsGiven(requestTimeout: TimeInterval) throws {
        var request = HTTPRequest(url: Self.url)
        request.timeout = requestTimeout
        let deadline = Deadline(uptimeNanoseconds: 7_000_000_000)

        let plan = try CurlRequestPlan(request, timeLimit: .deadline(deadline))
        let transfer = try CurlRequestPlan(request, timeLimit: .silence(milliseconds: 5_000))

        #expect(plan.deadline == deadline)
        #expect(plan.url == "http://example.test/a?b=c")
        #expect(transfer.deadline == nil, "a transfer is limited by silence, not by a deadline")
    }

    /// The refusal quotes the URL as a log would show it: no password.
    @Test func aNonHTTPURLIsRefusedWithoutItsPassword() throws {
        let url = try #require(URL(string: "ftp://user:hunter2@files.example.test/report.csv"))

        #expect {
            try CurlRequestPlan(HTTPRequest(url: url), timeLimit: .deadline(nil))
        } throws: { error in
            guard case KringleError.invalidRequest(let reason) = error else { return false }
            return reason.contains("ftp://") && reason.contains("files.example.test") && !reason.contains("hunter2")
        }
    }
}
