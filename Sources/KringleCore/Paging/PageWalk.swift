import Foundation
@_spi(KringleInternals) import KringlePromise

/// A walk through a paged API, one page at a time: what ``Pages`` and its promise form share.
struct PageWalk<Page: Decodable & Sendable>: Sendable {
    /// Which page to fetch.
    enum Step: Sendable {
        /// The first: the endpoint as given.
        case first
        /// A `Link` target, taken as the server wrote it.
        case link(URL)
        /// The first page's request with these query items.
        case cursor([URLQueryItem])
        /// None: the walk ends with this error, once the page before has been handed over.
        case refused(KringleError)
    }

    /// A page, the URL it was asked for, and the step to the next (`nil` at the end).
    struct Fetched: Sendable {
        var page: Page
        var url: URL
        var next: Step?
    }

    let client: NetworkClient
    let first: any Endpoint
    let navigation: PageNavigation<Page>
    let allowsOtherOrigins: Bool

    /// The page `step` names, within a walk that has asked for the URLs in `visited` and
    /// started at `origin` (`nil` for the first page). A URL asked for before ends the walk
    /// with ``KringleError/repeatedPage(_:)`` before it is sent again.
    func fetch(_ step: Step, visited: Set<String>, origin: URL?) -> Promise<Fetched> {
        let built: RequestAssembly.Built
        do {
            switch step {
            case .first:
                built = try RequestAssembly.build(.get, first, body: nil, for: client)
            case .link(let url):
                // The server's link holds the query it wants: the client's defaults are not
                // added again.
                built = try RequestAssembly.build(
                    .get, PageEndpoint(first: first, url: url), body: nil, addsDefaultQueryItems: false, for: client)
            case .cursor(let items):
                built = try RequestAssembly.build(
                    .get, PageEndpoint(first: first, cursor: items), body: nil, for: client)
            case .refused(let error):
                throw error
            }
        } catch {
            return Promise(error: error)
        }
        let url = built.request.url
        if visited.contains(url.absoluteString) { return Promise(error: KringleError.repeatedPage(url)) }
        let configuration = client.configuration
        return client.runPipeline(for: built.request, options: built.options) { response in
            let decoded = try ResponseDecoding.decode(response, as: Page.self, configuration: configuration)
            return Fetched(page: decoded.value, url: url, next: next(after: decoded, at: url, origin: origin ?? url))
        }
    }

    /// The step after the page `response` answered at `url`.
    private func next(after response: Response<Page>, at url: URL, origin: URL) -> Step? {
        switch navigation.kind {
        case .cursor(let cursor):
            return cursor(response.value).map(Step.cursor)
        case .linkHeader:
            // A link with an anchor is about another resource than this page (RFC 8288 §3.2).
            guard
                let link = WebLink.links(in: response.headers.values(for: "Link"))
                    .first(where: { $0.relations.contains("next") && $0.parameters["anchor"] == nil }),
                let target = link.url(relativeTo: url)
            else { return nil }
            guard allowsOtherOrigins || Self.sameOrigin(target, origin) else {
                return .refused(.crossOriginPage(from: origin, to: target))
            }
            return .link(target)
        }
    }

    /// RFC 6454 §5: the same scheme, host and port (the scheme's default when none is given).
    private static func sameOrigin(_ one: URL, _ other: URL) -> Bool {
        func origin(_ url: URL) -> (String?, String?, Int?) {
            let scheme = url.scheme?.lowercased()
            return (scheme, url.host?.lowercased(), url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil))
        }
        return origin(one) == origin(other)
    }
}
