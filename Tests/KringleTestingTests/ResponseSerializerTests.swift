import Foundation
import KringleTestSupport
import Testing

@testable import KringleTesting

@Suite("RFC 9112 response serialization", .generousTimeLimit)
struct ResponseSerializerTests {
    private let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    private func plan(
        _ response: LoopbackServer.Response,
        method: String = "GET",
        minorVersion: Int = 1,
        keepAlive: Bool = true
    ) -> (head: String, plan: ResponsePlan) {
        let plan = ResponseSerializer.plan(
            for: response, method: method, minorVersion: minorVersion, clientKeepsAlive: keepAlive, date: date
        )
        return (String(decoding: plan.head, as: UTF8.self), plan)
    }

    @Test func plainResponse() {
        let (head, plan) = plan(.text("hi"))
        #expect(
            head
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\nDate: \(date)\r\n\r\n"
        )
        #expect(plan.sendsBody && !plan.chunked && !plan.closesConnection)
    }

    @Test func closingAndHTTP10KeepAlive() {
        #expect(plan(.status(404), keepAlive: false).head.contains("\r\nConnection: close\r\n"))
        #expect(plan(.status(404), minorVersion: 0).head.contains("\r\nConnection: keep-alive\r\n"))
        #expect(plan(.status(404), minorVersion: 0, keepAlive: false).plan.closesConnection)
    }

    @Test func headAnnouncesLengthWithoutBody() {
        let (head, plan) = plan(.text("four"), method: "HEAD")
        #expect(head.contains("Content-Length: 4\r\n"))
        #expect(!plan.sendsBody)
    }

    @Test func chunkedBehavior() throws {
        let (head, plan) = plan(.text("abc").withBehavior(.chunked(chunkSize: 2)))
        #expect(head.contains("Transfer-Encoding: chunked\r\n"))
        #expect(!head.contains("Content-Length"))
        #expect(plan.chunked)
    }

    @Test func closeMidBodyDoesNotAnnounceTheClose() {
        let (head, plan) = plan(.text("abcd").withBehavior(.closeMidBody))
        #expect(head.contains("Content-Length: 4\r\n"))
        #expect(!head.contains("Connection"))
        #expect(plan.closesConnection)
    }

    @Test func resetMidBodyDoesNotAnnounceTheClose() {
        let (head, plan) = plan(.text("abcd").withBehavior(.resetMidBody))
        #expect(head.contains("Content-Length: 4\r\n"))
        #expect(!head.contains("Connection"))
        #expect(plan.closesConnection)
    }

    @Test func rejectionIsACompleteClosingResponse() {
        let text = String(decoding: ResponseSerializer.rejection(.badRequest("nope"), date: date), as: UTF8.self)
        #expect(
            text == "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 22\r\n"
                + "Date: \(date)\r\nConnection: close\r\n\r\n400 Bad Request: nope\n")
    }
}
