import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// The in-memory storage: a least recently used list bounded by ``CachedResponse/cost``.
@Suite("MemoryCacheStorage", .generousTimeLimit)
struct MemoryCacheStorageTests {
    private typealias Fixtures = CacheStorageFixtures

    /// Keys of the same length, so that their responses cost the same.
    private static func key(_ index: Int) -> String {
        "https://example.com/item/" + String(1000 + index)
    }

    /// What one list of `Fixtures.variants(key(_:), count: 1)` costs.
    private static let unitCost = Fixtures.variants(key(0), count: 1).reduce(0) { $0 + $1.cost }

    /// The sum of the costs of what `storage` returns for `keys`.
    private static func readableCost(_ storage: MemoryCacheStorage, _ keys: [String]) -> Int {
        keys.reduce(0) { total, key in total + storage.responses(forKey: key).reduce(0) { $0 + $1.cost } }
    }

    @Test("a list is stored, read back as it was, replaced, and removed by an empty list")
    func storeReadReplaceRemove() {
        let storage = MemoryCacheStorage(maximumBytes: 1 << 20)
        let key = Self.key(1)
        #expect(storage.responses(forKey: key).isEmpty)
        #expect(storage.totalBytes == 0)

        let first = Fixtures.variants(key, count: 2)
        storage.setResponses(first, forKey: key)
        #expect(storage.responses(forKey: key) == first)
        #expect(storage.totalBytes == first.reduce(0) { $0 + $1.cost })

        let second = [Fixtures.response(key, body: Data("replacement".utf8))]
        storage.setResponses(second, forKey: key)
        #expect(storage.responses(forKey: key) == second)
        #expect(storage.totalBytes == second[0].cost, "the replaced list no longer counts")

        storage.setResponses(Fixtures.variants(Self.key(2), count: 1), forKey: Self.key(2))
        storage.setResponses([], forKey: key)
        #expect(storage.responses(forKey: key).isEmpty)
        #expect(storage.responses(forKey: Self.key(2)).count == 1, "only that key is removed")
        #expect(storage.totalBytes == Self.unitCost)
        storage.setResponses([], forKey: "https://example.com/never-stored")
        #expect(storage.totalBytes == Self.unitCost)
    }

    @Test("the least recently used key goes first; reading or replacing a key protects it")
    func leastRecentlyUsedOrder() {
        let storage = MemoryCacheStorage(maximumBytes: 3 * Self.unitCost)
        let keys = (0..<6).map(Self.key)
        for key in keys[0..<3] { storage.setResponses(Fixtures.variants(key, count: 1), forKey: key) }
        #expect(storage.totalBytes == 3 * Self.unitCost)

        #expect(storage.responses(forKey: keys[0]).count == 1)  // 0 is now the most recent: 1, 2, 0
        storage.setResponses(Fixtures.variants(keys[3], count: 1), forKey: keys[3])  // evicts 1
        #expect(storage.responses(forKey: keys[1]).isEmpty)
        // Order now: 2, 0, 3. Replacing 2 makes it the most recent: 0, 3, 2.
        storage.setResponses(Fixtures.variants(keys[2], count: 1), forKey: keys[2])
        storage.setResponses(Fixtures.variants(keys[4], count: 1), forKey: keys[4])  // evicts 0
        #expect(storage.responses(forKey: keys[0]).isEmpty)
        // Order: 3, 2, 4. A read of a missing key changes nothing.
        #expect(storage.responses(forKey: keys[5]).isEmpty)
        storage.setResponses(Fixtures.variants(keys[5], count: 1), forKey: keys[5])  // evicts 3
        #expect(storage.responses(forKey: keys[3]).isEmpty)
        for key in [keys[2], keys[4], keys[5]] {
            #expect(storage.responses(forKey: key) == Fixtures.variants(key, count: 1), "\(key)")
        }
        #expect(storage.totalBytes == 3 * Self.unitCost)
    }

    @Test("after many inserts of every size the total stays within the bound and matches what is readable")
    func byteBound() {
        let maximum = 10 * Self.unitCost
        let storage = MemoryCacheStorage(maximumBytes: maximum)
        let keys = (0..<40).map(Self.key)
        var generator = SplitMix64(seed: 42)
        for _ in 0..<500 {
            let key = keys[Int(generator.next() % UInt64(keys.count))]
            let count = Int(generator.next() % 3) + 1
            let length = Int(generator.next() % UInt64(3 * Self.unitCost))
            storage.setResponses(Fixtures.variants(key, count: count, bodyLength: length), forKey: key)
            #expect(storage.totalBytes <= maximum)
        }
        #expect(storage.totalBytes > 0)
        #expect(storage.totalBytes == Self.readableCost(storage, keys))
    }

    @Test("a list larger than the whole storage is not kept, replaces what its key had, and evicts nothing else")
    func oversizedList() {
        let storage = MemoryCacheStorage(maximumBytes: 4 * Self.unitCost)
        let small = Self.key(1)
        let other = Self.key(2)
        storage.setResponses(Fixtures.variants(small, count: 1), forKey: small)
        storage.setResponses(Fixtures.variants(other, count: 1), forKey: other)

        let huge = [Fixtures.response(small, body: Data(count: 4 * Self.unitCost))]
        #expect(huge[0].cost > storage.maximumBytes)
        storage.setResponses(huge, forKey: small)
        #expect(storage.responses(forKey: small).isEmpty, "neither the new list nor the old one")
        #expect(storage.responses(forKey: other).count == 1)
        #expect(storage.totalBytes == Self.unitCost)

        // Exactly the bound fits.
        let exact = Fixtures.response(small, body: Data(count: 4 * Self.unitCost - (huge[0].cost - huge[0].body.count)))
        #expect(exact.cost == storage.maximumBytes)
        storage.setResponses([exact], forKey: small)
        #expect(storage.responses(forKey: small) == [exact])
        #expect(storage.responses(forKey: other).isEmpty, "evicted to make room")
        #expect(storage.totalBytes == storage.maximumBytes)

        let none = MemoryCacheStorage(maximumBytes: 0)
        none.setResponses(Fixtures.variants(small, count: 1), forKey: small)
        #expect(none.responses(forKey: small).isEmpty)
        #expect(none.totalBytes == 0)
    }

    @Test("removeAll empties the storage, which then works as new")
    func removeAll() {
        let storage = MemoryCacheStorage(maximumBytes: 2 * Self.unitCost)
        let keys = (0..<3).map(Self.key)
        for key in keys { storage.setResponses(Fixtures.variants(key, count: 1), forKey: key) }
        storage.removeAll()
        #expect(storage.totalBytes == 0)
        #expect(keys.allSatisfy { storage.responses(forKey: $0).isEmpty })

        for key in keys { storage.setResponses(Fixtures.variants(key, count: 1), forKey: key) }
        #expect(storage.responses(forKey: keys[0]).isEmpty, "the order was reset with the rest")
        #expect(storage.responses(forKey: keys[1]).count == 1)
        #expect(storage.responses(forKey: keys[2]).count == 1)
        #expect(storage.totalBytes == 2 * Self.unitCost)
    }

    @Test("many threads storing, reading and removing at once leave a consistent storage")
    func concurrentUse() {
        let maximum = 8 * Self.unitCost
        let storage = MemoryCacheStorage(maximumBytes: maximum)
        let keys = (0..<24).map(Self.key)
        let invalid = Counter()
        DispatchQueue.concurrentPerform(iterations: 2_000) { iteration in
            let key = keys[iteration % keys.count]
            switch iteration % 7 {
            case 0: storage.setResponses([], forKey: key)
            case 1, 2, 3: storage.setResponses(Fixtures.variants(key, count: iteration % 3 + 1), forKey: key)
            default:
                let read = storage.responses(forKey: keys[(iteration * 5) % keys.count])
                let valid = read.isEmpty || read == Fixtures.variants(read[0].url.absoluteString, count: read.count)
                if !valid { _ = invalid.increment() }
            }
            if storage.totalBytes > maximum { _ = invalid.increment() }
        }
        #expect(invalid.value == 0)
        #expect(storage.totalBytes <= maximum)
        #expect(storage.totalBytes == Self.readableCost(storage, keys))
        storage.removeAll()
        #expect(storage.totalBytes == 0)
    }
}
