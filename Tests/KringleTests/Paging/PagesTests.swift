import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Walking a paged API on a real server on 127.0.0.1: by `Link` header and by cursor, the
/// walk's guards, and asking for a page only when the loop wants it.
@Suite("Pages", .generousTimeLimit)
struct PagesTests {
    /// One page of items, with the cursor of the next when there is one.
    struct Page: Codable, Sendable, Equatable {
        var items: [Int]
        var next: String?
    }

    /// A server of `count` pages of four items each, page `n` at `/items?page=n`, each
    /// linking to the next with a relative `Link` (`linkTo` changes where page `n` leads).
    private static func server(
        pages count: Int, linkTo: @escaping @Sendable (Int) -> String? = { "/items?page=\($0 + 1)" }
    ) throws -> (LoopbackServer, Counter) {
        let requests = Counter()
        let server = try LoopbackServer { request in
            requests.increment()
            let number = Int(request.queryItems.first { $0.name == "page" || $0.name == "cursor" }?.value ?? "1") ?? 1
            let items = (0..<4).map { String((number - 1) * 4 + $0) }.joined(separator: ",")
            let next = number < count ? #", "next": "\#(number + 1)""# : ""
            var response = LoopbackServer.Response.json(#"{"items": [\#(items)]\#(next)}"#)
            if number < count, let link = linkTo(number) {
                response = response.addingHeader("Link", #"<\#(link)>; rel="next", </items?page=1>; rel="first""#)
            }
            return response
        }
        return (server, requests)
    }

    @Test("a 25-page walk by Link header returns every item once, in order", arguments: TransportUnderTest.allCases)
    func walkByLink(_ subject: TransportUnderTest) async throws {
        let (server, requests) = try Self.server(pages: 25)
        defer { server.shutdown() }
        var items: [Int] = []
        for try await page in subject.client().pages(server.clientEndpoint("/items"), as: Page.self) {
            items += page.items
        }
        #expect(items == Array(0..<100))
        #expect(requests.value == 25)
    }

    @Test("a 25-page walk by cursor returns every item once; the promise form collects them")
    func walkByCursor() async throws {
        let (server, requests) = try Self.server(pages: 25, linkTo: { _ in nil })
        defer { server.shutdown() }
        let pages = TransportUnderTest.curl.client().pages(
            server.clientEndpoint("/items", query: [URLQueryItem(name: "size", value: "4")]), as: Page.self,
            navigation: .cursor { page in page.next.map { [URLQueryItem(name: "cursor", value: $0)] } })
        let collected = try await pages.collect().valueWithin()
        #expect(collected.flatMap(\.items) == Array(0..<100))
        #expect(requests.value == 25)
        let first = try await pages.collect(upTo: 3).valueWithin()
        #expect(first.count == 3)
        #expect(requests.value == 28, "the promise form stops at its limit")
    }

    @Test("breaking out of the loop after page 3 sends no fourth request")
    func breakingOut() async throws {
        let (server, requests) = try Self.server(pages: 25)
        defer { server.shutdown() }
        var seen = 0
        for try await _ in TransportUnderTest.curl.client().pages(server.clientEndpoint("/items"), as: Page.self) {
            seen += 1
            if seen == 3 { break }
        }
        await allowTimeForAWrongEvent()
        #expect(requests.value == 3)
    }

    @Test("a next link on another origin ends the walk with crossOriginPage, unless allowed")
    func crossOrigin() async throws {
        let port = Box(0)
        let (server, requests) = try Self.server(
            pages: 5, linkTo: { _ in "http://localhost:\(port.value)/items?page=2" })
        defer { server.shutdown() }
        port.withLock { $0 = server.port }
        let client = TransportUnderTest.curl.client()
        var pages = 0
        do {
            for try await _ in client.pages(server.clientEndpoint("/items"), as: Page.self) { pages += 1 }
            Issue.record("the walk went on to another origin")
        } catch KringleError.crossOriginPage(let source, let target) {
            #expect(source.host == "127.0.0.1")
            #expect(target.host == "localhost")
        }
        #expect(pages == 1, "the first page is handed over; the walk ends before the second")
        #expect(requests.value == 1)
        let allowed = try await client.pages(server.clientEndpoint("/items"), as: Page.self, allowsOtherOrigins: true)
            .collect(upTo: 2).valueWithin()
        #expect(allowed.count == 2)
    }

    @Test("a next link back to a page walked before ends the walk with repeatedPage, not sent again")
    func cycle() async throws {
        let (server, requests) = try Self.server(
            pages: 5, linkTo: { $0 == 3 ? "/items?page=2" : "/items?page=\($0 + 1)" })
        defer { server.shutdown() }
        let outcome = await TransportUnderTest.curl.client().pages(server.clientEndpoint("/items"), as: Page.self)
            .collect().outcome()
        guard case .failure(KringleError.repeatedPage(let url)) = outcome else {
            Issue.record("expected repeatedPage, got \(outcome)")
            return
        }
        #expect(url.query == "page=2")
        #expect(requests.value == 3)
    }

    @Test("cancelling the loop's task cancels the page request in flight")
    func cancellation() async throws {
        let requests = Counter()
        let server = try LoopbackServer { request in
            requests.increment()
            guard request.query == nil else { return .json("{}").heldUntilHangUp() }
            return LoopbackServer.Response.json(#"{"items": [1]}"#).addingHeader("Link", "</items?page=2>; rel=next")
        }
        defer { server.shutdown() }
        let client = TransportUnderTest.curl.client()
        let walk = Task {
            var count = 0
            for try await _ in client.pages(server.clientEndpoint("/items"), as: Page.self) { count += 1 }
            return count
        }
        #expect(await eventually { requests.value == 2 })
        walk.cancel()
        let outcome = await walk.result
        #expect((try? outcome.get()) == nil)
        #expect(
            await server.awaitStatistics { $0.connectionsClosedByPeer >= 1 }, "the held request's connection closed")
    }
}
