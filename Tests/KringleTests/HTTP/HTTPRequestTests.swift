import Foundation
import Kringle
import Testing

@testable import KringleCore
@testable import KringleURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("HTTPRequest")
struct HTTPRequestTests {
    static let url = URL(string: "https://cats.example/cats?page=2")!

    @Test("a new request is a GET with no fields or body, 60 s and the protocol's cache policy")
    func defaults() {
        let request = HTTPRequest(url: Self.url)
        #expect(request.method == .get)
        #expect(request.headers.isEmpty)
        #expect(request.body == nil)
        #expect(request.timeout == 60)
        #expect(request.cachePolicy == .useProtocol)
    }

    @Test("a URLRequest becomes the same request: method, URL, fields, body, timeout, cache policy")
    func fromURLRequest() throws {
        var urlRequest = URLRequest(url: Self.url)
        urlRequest.httpMethod = "PUT"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("Bearer a1", forHTTPHeaderField: "Authorization")
        urlRequest.httpBody = Data("{}".utf8)
        urlRequest.timeoutInterval = 2.5
        urlRequest.cachePolicy = .returnCacheDataDontLoad

        let request = try HTTPRequest(urlRequest)

        #expect(request.url == Self.url)
        #expect(request.method == .put)
        #expect(request.headers == ["Authorization": "Bearer a1", "Content-Type": "application/json"])
        #expect(request.body == Data("{}".utf8))
        #expect(request.timeout == 2.5)
        #expect(request.cachePolicy == .cacheOnly)
    }

    @Test("a URLRequest with a body stream, which an HTTPRequest cannot hold, is refused")
    func bodyStreamIsRefused() {
        var urlRequest = URLRequest(url: Self.url)
        urlRequest.httpMethod = "POST"
        urlRequest.httpBodyStream = InputStream(data: Data("x".utf8))

        #expect {
            try HTTPRequest(urlRequest)
        } throws: { error in
            guard case KringleError.invalidRequest(let reason) = error else { return false }
            return reason.contains("httpBodyStream")
        }
    }

    @Test("the URLRequest it becomes joins repeated fields and keeps the timeout and the cache policy")
    func toURLRequest() {
        var request = HTTPRequest(url: Self.url, method: .post, body: Data("a=1".utf8), timeout: 7)
        request.headers.add(name: "Accept", value: "text/html")
        request.headers.add(name: "accept", value: "application/json")
        request.cachePolicy = .reload

        let urlRequest = URLRequest(request)

        #expect(urlRequest.url == Self.url)
        #expect(urlRequest.httpMethod == "POST")
        #expect(urlRequest.value(forHTTPHeaderField: "Accept") == "text/html,application/json")
        #expect(urlRequest.httpBody == Data("a=1".utf8))
        #expect(urlRequest.timeoutInterval == 7)
        #expect(urlRequest.cachePolicy == .reloadIgnoringLocalCacheData)
    }
}
