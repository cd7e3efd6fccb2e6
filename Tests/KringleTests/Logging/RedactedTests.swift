import Foundation
import Kringle
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Redacted: what a Redaction vouches for")
struct RedactedTests {
    @Test("a redacted URL holds the redacted URL, and describes itself as its absolute string")
    func url() throws {
        let url = try #require(URL(string: "https://ann:s3cr3t@cats.example/cats?token=t0k3n&page=2"))
        let redacted = Redaction.default.redacting(url)
        #expect(redacted.value.absoluteString == "https://ann:***@cats.example/cats?token=***&page=2")
        #expect(redacted.description == redacted.value.absoluteString)
        #expect(redacted == Redaction.default.redacting(url), "equal values redact to equal wrappers")
        #expect(Redaction.disabled.redacting(url).value == url, "disabled: the value as it was, by choice")
    }

    @Test("redacted headers hold the redacted fields, in their order")
    func headers() {
        let headers: HTTPHeaders = ["Authorization": "Bearer s3cr3t", "X-Trace": "t-1"]
        let redacted = Redaction(additionalHeaderNames: ["X-Trace"]).redacting(headers)
        #expect(redacted.value.fields.map(\.value) == [Redaction.placeholder, Redaction.placeholder])
        #expect(redacted.value.fields.map(\.name) == headers.fields.map(\.name))
        #expect(!redacted.description.contains("s3cr3t"))
    }

    @Test("one placeholder hides every secret (header values, query values, user info) and reads as it is in a URL")
    func onePlaceholder() throws {
        // A query value and user info stay readable with it: it needs no percent-encoding there.
        #expect(
            Redaction.placeholder.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)
                == Redaction.placeholder)
        #expect(
            Redaction.placeholder.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed)
                == Redaction.placeholder)
        #expect(
            Redaction.placeholder.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) == Redaction.placeholder
        )
        let p = Redaction.placeholder
        let headers = Redaction.default.redacting(["Authorization": "Bearer s3cr3t"]).value
        #expect(headers["Authorization"] == p)
        let url = try #require(URL(string: "https://ann:s3cr3t@cats.example/cats?token=t0k3n"))
        let shown = Redaction.default.redacting(url).value
        #expect(shown.absoluteString == "https://ann:\(p)@cats.example/cats?token=\(p)")
        #expect(
            shown.password == p
                && URLComponents(url: shown, resolvingAgainstBaseURL: false)?.queryItems?.first?.value == p)
        let userOnly = try #require(URL(string: "https://t0k3n@cats.example/"))
        #expect(Redaction.default.redacting(userOnly).value.user == p)
    }

    @Test("a redacted KringleError hides its URLs and its response's URL, headers, trailers and exchanges")
    func kringleError() throws {
        let secretURL = try #require(URL(string: "https://ann:s3cr3t-pass@cats.example/cats?api_key=s3cr3t-key"))
        var response = Response(
            value: Data("no".utf8), statusCode: 403, headers: ["Set-Cookie": "sid=s3cr3t-cookie", "X-Id": "7"],
            trailers: ["Authorization": "s3cr3t-trailer"], body: Data("no".utf8), url: secretURL)
        response.metrics = RequestMetrics(exchanges: [
            .init(attempt: 1, url: secretURL, statusCode: 403, metrics: nil)
        ])
        let original = KringleError.unacceptableStatusCode(403, response)

        let redacted = Redaction.default.redacting(original)
        guard case KringleError.unacceptableStatusCode(403, let shown) = redacted.value else {
            Issue.record("the redacted error should be the same case: \(redacted.value)")
            return
        }
        #expect(shown.url.absoluteString == "https://ann:***@cats.example/cats?api_key=***")
        #expect(shown.headers["Set-Cookie"] == Redaction.placeholder && shown.headers["X-Id"] == "7")
        #expect(shown.trailers["Authorization"] == Redaction.placeholder)
        #expect(shown.metrics?.exchanges.map(\.url) == [shown.url])
        #expect(shown.body == response.body, "bodies are not the redaction's: they are kept")
        var everything = redacted.description
        dump(redacted, to: &everything)
        #expect(!everything.contains("s3cr3t"), "\(everything)")
        #expect(response.url == secretURL, "the original error is untouched")
    }

    @Test(
        "a URL-carrying KringleError case is redacted",
        arguments: [
            KringleError.tooManyRedirects(URL(string: "https://cats.example/a?token=s3cr3t")!),
            .insecureRedirect(
                from: URL(string: "https://cats.example/a?token=s3cr3t")!, to: URL(string: "http://u:s3cr3t@x.example")!
            ),
            .notCached(URL(string: "https://cats.example/a?sig=s3cr3t")!),
            .malformedResponse(URL(string: "https://cats.example/a?key=s3cr3t")!, reason: "bad"),
        ])
    func urlCases(_ error: KringleError) {
        var everything = ""
        dump(Redaction.default.redacting(error), to: &everything)
        #expect(!everything.contains("s3cr3t"), "\(everything)")
        #expect(everything.contains("***"), "\(everything)")
    }

    @Test("an error that is not a KringleError is kept as it is")
    func otherError() {
        let redacted = Redaction.default.redacting(RedactedTestError(label: "mine"))
        #expect(redacted.value as? RedactedTestError == RedactedTestError(label: "mine"))
        #expect(redacted.description == "RedactedTestError(label: \"mine\")")
    }
}

/// An error of the Redacted tests' own.
private struct RedactedTestError: Error, Equatable {
    var label: String
}
