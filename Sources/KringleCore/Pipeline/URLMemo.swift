import Foundation
@_spi(KringleInternals) import KringlePromise

/// The URLs built lately, by what each was built from, so that a call to an endpoint the
/// process has called before skips building its URL again.
///
/// Most programs call a few dozen endpoints over and over, and building the URL (the path
/// percent-encoded and checked for dot segments, the text parsed by Foundation's RFC 3986
/// parser into a `URL`) costs more than the rest of assembling the request. Building is a
/// pure function of the key, so a remembered URL is the one building would give. Only
/// URLs that were built are remembered: an input that fails is built (and fails) again.
///
/// Bounded: once `capacity` URLs are remembered, the next new one starts the memo afresh.
/// Paths that differ on every call (an ID in each) then cost one look-up and one insertion
/// more than building alone, and the memory stays small.
final class URLMemo: Sendable {
    /// What a URL is built from.
    struct Key: Hashable, Sendable {
        var base: String
        var path: String
        var queryItems: [URLQueryItem]
    }

    let capacity: Int
    private let urls = Locked<[Key: URL]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The URL remembered for `key`, or the one `build` gives, remembered.
    func url(for key: Key, build: () throws -> URL) rethrows -> URL {
        if let url = urls.withLock({ $0[key] }) { return url }
        // Built outside the lock: another thread that builds the same URL at the same
        // time builds an equal one.
        let url = try build()
        urls.withLock { urls in
            if urls.count >= capacity { urls.removeAll(keepingCapacity: true) }
            urls[key] = url
        }
        return url
    }

    /// How many URLs are remembered.
    var count: Int {
        urls.withLock { $0.count }
    }
}
