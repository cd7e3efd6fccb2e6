import Foundation
@_spi(KringleInternals) import KringlePromise

/// The pages of a paged API, typed, one request per page: an `AsyncSequence`, and a promise
/// of them all (``collect(upTo:)``). Made by ``NetworkClient/pages(_:as:navigation:allowsOtherOrigins:)``.
///
/// ```swift
/// for try await page in client.pages(GitHub.issues(repo: "apple/swift"), as: [Issue].self) {
///     for issue in page { print(issue.title) }
/// }
/// ```
///
/// A page is asked for only when the loop asks for it: leaving the loop after the third page
/// sends no fourth request, and cancelling the loop's task cancels the request in flight.
/// Every page is a call like any other (its endpoint's headers, the client's interceptors,
/// retries, cookies and time limits). The walk ends with the last page, or with an error: a
/// page's own, ``KringleError/crossOriginPage(from:to:)`` for a `next` on another origin (unless
/// allowed), ``KringleError/repeatedPage(_:)`` for a `next` already walked (a loop).
public struct Pages<Page: Decodable & Sendable>: AsyncSequence, Sendable {
    /// What the sequence yields: one decoded page.
    public typealias Element = Page

    let walk: PageWalk<Page>

    /// An iterator over the pages; each makes its own walk from the first page.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(walk: walk)
    }

    /// Fetches the pages one at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let walk: PageWalk<Page>
        private var step: PageWalk<Page>.Step? = .first
        private var visited: Set<String> = []
        private var origin: URL?

        init(walk: PageWalk<Page>) {
            self.walk = walk
        }

        /// The next page, or `nil` after the last; an error ends the walk.
        public mutating func next() async throws -> Page? {
            guard let current = step else { return nil }
            step = nil
            let fetched = try await walk.fetch(current, visited: visited, origin: origin).value
            visited.insert(fetched.url.absoluteString)
            origin = origin ?? fetched.url
            step = fetched.next
            return fetched.page
        }
    }

    /// The promise of every page in order, up to `limit` pages (the walk stops there, its
    /// next page not asked for). Cancelling it cancels the request in flight.
    ///
    /// ```swift
    /// client.pages(Shop.orders, as: OrderPage.self).collect(upTo: 10).done { pages in … }
    /// ```
    public func collect(upTo limit: Int = .max) -> Promise<[Page]> {
        Self.collect(walk, from: .first, visited: [], origin: nil, into: [], limit: limit)
    }

    private static func collect(
        _ walk: PageWalk<Page>, from step: PageWalk<Page>.Step, visited: Set<String>, origin: URL?, into pages: [Page],
        limit: Int
    ) -> Promise<[Page]> {
        guard pages.count < limit else { return Promise(pages) }
        return walk.fetch(step, visited: visited, origin: origin).flatMapResultInline { result in
            let fetched = try result.get()
            let collected = pages + [fetched.page]
            guard let next = fetched.next else { return Promise(collected) }
            return collect(
                walk, from: next, visited: visited.union([fetched.url.absoluteString]), origin: origin ?? fetched.url,
                into: collected, limit: limit)
        }
    }
}
