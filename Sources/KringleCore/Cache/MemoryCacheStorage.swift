@_spi(KringleInternals) import KringlePromise

/// An ``HTTPCacheStorage`` in memory, bounded in bytes, evicting the least recently used
/// URL first. ``HTTPCache/memory(maximumBytes:)`` makes one.
public final class MemoryCacheStorage: HTTPCacheStorage {
    /// The most bytes the stored responses may take (``CachedResponse/cost``).
    public let maximumBytes: Int
    private let state: Locked<LeastRecentlyUsed>

    /// A storage holding at most `maximumBytes`.
    public init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
        state = Locked(LeastRecentlyUsed())
    }

    /// What the stored responses take now, in bytes.
    public var totalBytes: Int {
        state.withLock { $0.totalCost }
    }

    /// The responses for `key`, which becomes the most recently used.
    public func responses(forKey key: String) -> [CachedResponse] {
        state.withLock { $0.use(key) } ?? []
    }

    /// Replaces the responses for `key`, then evicts the least recently used keys until the
    /// rest fit; a list larger than the whole storage is not kept.
    public func setResponses(_ responses: [CachedResponse], forKey key: String) {
        let cost = responses.reduce(0) { $0 + $1.cost }
        state.withLock { lru in
            lru.remove(key)
            guard !responses.isEmpty, cost <= maximumBytes else { return }
            lru.insert(responses, cost: cost, forKey: key)
            while lru.totalCost > maximumBytes, let oldest = lru.oldestKey { lru.remove(oldest) }
        }
    }

    /// Removes everything.
    public func removeAll() {
        state.withLock { $0 = LeastRecentlyUsed() }
    }
}

/// Keys in order of use: a doubly linked list through a dictionary, each operation O(1).
private struct LeastRecentlyUsed: Sendable {
    private struct Node: Sendable {
        var responses: [CachedResponse]
        var cost: Int
        var newer: String?
        var older: String?
    }

    private var nodes: [String: Node] = [:]
    private var newest: String?
    private(set) var oldestKey: String?
    private(set) var totalCost = 0

    /// The responses of `key`, moved to the front.
    mutating func use(_ key: String) -> [CachedResponse]? {
        guard let node = nodes[key] else { return nil }
        if newest != key {
            unlink(key)
            link(key)
        }
        return node.responses
    }

    mutating func insert(_ responses: [CachedResponse], cost: Int, forKey key: String) {
        nodes[key] = Node(responses: responses, cost: cost)
        totalCost += cost
        link(key)
    }

    mutating func remove(_ key: String) {
        guard let node = nodes[key] else { return }
        unlink(key)
        totalCost -= node.cost
        nodes[key] = nil
    }

    /// Puts `key` (already in `nodes`, not linked) at the front.
    private mutating func link(_ key: String) {
        nodes[key]?.older = newest
        nodes[key]?.newer = nil
        if let newest { nodes[newest]?.newer = key }
        newest = key
        if oldestKey == nil { oldestKey = key }
    }

    private mutating func unlink(_ key: String) {
        guard let node = nodes[key] else { return }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldestKey = node.newer }
    }
}
