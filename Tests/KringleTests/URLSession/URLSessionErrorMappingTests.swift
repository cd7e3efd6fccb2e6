import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLSessionTransport.kringleError(for:url:head:receivedBodyBytes:)`: URLSession's codes
/// read as the same ``KringleError`` that ``CurlTransport`` gives for the same fault.
@Suite("URLSession error mapping", .generousTimeLimit)
struct URLSessionErrorMappingTests {
    static let url = URL(string: "http://127.0.0.1:8080/thing")!

    /// A `URLError` as FoundationNetworking makes it: libcurl's error buffer as the description.
    static func error(_ code: URLError.Code, _ message: String = "") -> URLError {
        var info: [String: Any] = [NSURLErrorFailingURLErrorKey: url]
        if !message.isEmpty { info[NSLocalizedDescriptionKey] = message }
        return URLError(code, userInfo: info)
    }

    /// A head with `Content-Length: length` (none when `nil`).
    static func head(contentLength length: Int?) -> HTTPURLResponse? {
        var fields = ["Content-Type": "text/plain"]
        if let length { fields["Content-Length"] = "\(length)" }
        return HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
    }

    static func caseName(_ error: any Error) -> String {
        if error.isCancellation { return "cancelled" }
        guard let error = error as? KringleError else { return "not a KringleError: \(error)" }
        switch error {
        case .incompleteResponse: return "incompleteResponse"
        case .malformedResponse: return "malformedResponse"
        case .transport: return "transport"
        case .timedOut: return "timedOut"
        case .tls: return "tls"
        default: return "\(error)"
        }
    }

    @Test(
        "a status line libcurl refuses (URLError -1002 on an http URL) is a malformed response",
        arguments: [
            "Received HTTP/0.9 when not allowed", "Unsupported HTTP version (1.2) in response",
            "Unsupported response code in HTTP response",
        ])
    func refusedStatusLine(_ message: String) {
        let mapped = URLSessionTransport.kringleError(
            for: Self.error(.unsupportedURL, message), url: Self.url, head: nil, receivedBodyBytes: nil)
        guard case KringleError.malformedResponse(let url, let reason) = mapped else {
            Issue.record("expected malformedResponse, got \(mapped)")
            return
        }
        #expect(url == Self.url)
        #expect(reason == message)
    }

    @Test(
        "unsupportedURL about the request stays a transport error",
        arguments: [
            ("ftp://127.0.0.1/file", "unsupported URL"),
            // FoundationNetworking's own refusal of a scheme in upper case.
            ("HTTP://127.0.0.1/", "unsupported URL"),
            ("https://127.0.0.1/", "Protocol \"https\" not supported or disabled in libcurl"),
        ])
    func unsupportedRequest(_ url: String, _ message: String) throws {
        let requestURL = try #require(URL(string: url))
        let mapped = URLSessionTransport.kringleError(
            for: Self.error(.unsupportedURL, message), url: requestURL, head: nil, receivedBodyBytes: nil)
        #expect(Self.caseName(mapped) == "transport")
    }

    @Test("cannotParseResponse (Apple's URLSession) is a malformed response")
    func cannotParse() {
        let mapped = URLSessionTransport.kringleError(
            for: Self.error(.cannotParseResponse), url: Self.url, head: nil, receivedBodyBytes: nil)
        #expect(Self.caseName(mapped) == "malformedResponse")
    }

    @Test(
        "after the head, a lost connection or FoundationNetworking's catch-all cuts the response short",
        arguments: [URLError.Code.unknown, .networkConnectionLost])
    func cutShort(_ code: URLError.Code) {
        let underlying = Self.error(code, "transfer closed with 5000 bytes remaining to read")
        let mapped = URLSessionTransport.kringleError(
            for: underlying, url: Self.url, head: Self.head(contentLength: 10_000), receivedBodyBytes: 5_000)
        guard case KringleError.incompleteResponse(let url, 5_000, 10_000, let inner) = mapped else {
            Issue.record("expected incompleteResponse after 5,000 of 10,000 bytes, got \(mapped)")
            return
        }
        #expect(url == Self.url)
        #expect((inner as? URLError)?.code == code)
    }

    @Test("a chunked or coded body cut short says what is known")
    func cutShortUnknownLengths() {
        let mapped = URLSessionTransport.kringleError(
            for: Self.error(.unknown), url: Self.url, head: Self.head(contentLength: nil), receivedBodyBytes: nil)
        guard case KringleError.incompleteResponse(_, nil, nil, _) = mapped else {
            Issue.record("expected incompleteResponse without counts, got \(mapped)")
            return
        }
    }

    @Test(
        "before any head, the same codes are transport errors",
        arguments: [URLError.Code.unknown, .networkConnectionLost, .badServerResponse])
    func noHead(_ code: URLError.Code) {
        let mapped = URLSessionTransport.kringleError(
            for: Self.error(code, "Failed writing header"), url: Self.url, head: nil, receivedBodyBytes: nil)
        #expect(Self.caseName(mapped) == "transport")
    }

    @Test("time-outs, cancellations and TLS failures keep their own cases, with or without a head")
    func ownCases() {
        for head in [nil, Self.head(contentLength: 10)] {
            let map = { (error: URLError) in
                Self.caseName(
                    URLSessionTransport.kringleError(for: error, url: Self.url, head: head, receivedBodyBytes: 0))
            }
            #expect(map(Self.error(.timedOut)) == "timedOut")
            #expect(map(Self.error(.cancelled)) == "cancelled")
            #expect(map(Self.error(.unknown, "SSL certificate problem: certificate has expired")) == "tls")
        }
    }

    @Test("an error that is not a URLError is kept as a transport error")
    func otherErrors() {
        let mapped = URLSessionTransport.kringleError(
            for: CocoaError(.fileWriteOutOfSpace), url: Self.url, head: Self.head(contentLength: 10),
            receivedBodyBytes: 1)
        #expect(Self.caseName(mapped) == "transport")
    }
}
