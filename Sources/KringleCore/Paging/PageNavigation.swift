import Foundation

/// How a walk through a paged API finds the next page (``NetworkClient/pages(_:as:navigation:allowsOtherOrigins:)``).
public struct PageNavigation<Page: Sendable>: Sendable {
    enum Kind: Sendable {
        case linkHeader
        case cursor(@Sendable (Page) -> [URLQueryItem]?)
    }

    let kind: Kind

    /// The link whose relation is `next` in the response's `Link` header fields (RFC 8288), as
    /// GitHub, GitLab, Jira and Shopify send it; resolved against the page's request URL. No
    /// such link ends the walk.
    public static var linkHeader: PageNavigation { PageNavigation(kind: .linkHeader) }

    /// The next page is the first request with the query items `next` makes from the page
    /// just read (replacing any of the same name); `nil` ends the walk.
    ///
    /// ```swift
    /// .cursor { page in page.nextCursor.map { [URLQueryItem(name: "cursor", value: $0)] } }
    /// ```
    public static func cursor(_ next: @escaping @Sendable (Page) -> [URLQueryItem]?) -> PageNavigation {
        PageNavigation(kind: .cursor(next))
    }
}
