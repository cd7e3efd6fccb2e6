import Foundation

extension NetworkClient {
    /// The pages of `endpoint`, each decoded as `type`, following the `Link` header's `next`
    /// (RFC 8288) or a cursor: see ``Pages``.
    ///
    /// ```swift
    /// for try await page in client.pages(Tickets.open, as: [Ticket].self) { tickets += page }
    /// let all = try await client.pages(Tickets.open, as: [Ticket].self).collect(upTo: 50).value
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: The first page; the others are asked for with its headers and settings.
    ///   - type: What each page's body decodes into.
    ///   - navigation: How the next page is found: ``PageNavigation/linkHeader`` (the
    ///     default) or ``PageNavigation/cursor(_:)``.
    ///   - allowsOtherOrigins: Whether a `next` link may lead to another origin (scheme, host,
    ///     port) than the first page's; no by default, since the endpoint's headers would go
    ///     there too.
    public func pages<Page: Decodable & Sendable>(
        _ endpoint: some Endpoint, as type: Page.Type, navigation: PageNavigation<Page> = .linkHeader,
        allowsOtherOrigins: Bool = false
    ) -> Pages<Page> {
        Pages(
            walk: PageWalk(
                client: self, first: endpoint, navigation: navigation, allowsOtherOrigins: allowsOtherOrigins))
    }
}
