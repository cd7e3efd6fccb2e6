import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directory storage trusts only its own, complete files: anything else at an entry's
/// name reads as nothing and is removed (a link itself, never what it names), and files
/// replaced while other storages read them are never seen half written.
@Suite("DirectoryCacheStorage trust", .generousTimeLimit)
struct DirectoryCacheStorageTrustTests {
    private typealias Fixtures = CacheStorageFixtures
    private static let key = "https://example.com/trusted"

    /// A storage in a fresh directory with one valid entry for ``key``, and its file.
    private static func storageWithEntry() throws -> (storage: DirectoryCacheStorage, root: URL, file: URL) {
        let root = try Fixtures.temporaryDirectory()
        let storage = try DirectoryCacheStorage(directory: root, maximumBytes: 1 << 20)
        storage.setResponses(Fixtures.variants(key, count: 2), forKey: key)
        #expect(storage.responses(forKey: key) == Fixtures.variants(key, count: 2))
        return (storage, root, storage.fileURL(forKey: key))
    }

    /// Expects `key` to read as nothing, its file to be gone, and the storage to work
    /// again for it afterwards.
    private static func expectIgnoredAndRemoved(
        _ storage: DirectoryCacheStorage, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let file = storage.fileURL(forKey: key)
        #expect(storage.responses(forKey: key).isEmpty, sourceLocation: sourceLocation)
        #expect(!Fixtures.exists(file), "removed", sourceLocation: sourceLocation)
        storage.setResponses(Fixtures.variants(key, count: 1), forKey: key)
        #expect(storage.responses(forKey: key) == Fixtures.variants(key, count: 1), sourceLocation: sourceLocation)
    }

    /// The magic line, a JSON length and `json`, then `bodies`: a file in the entry format.
    private static func entry(json: String, bodies: Data = Data(), length: UInt32? = nil) -> Data {
        var data = Data(CacheEntryFile.magic)
        let bytes = Data(json.utf8)
        withUnsafeBytes(of: (length ?? UInt32(bytes.count)).bigEndian) { data.append(contentsOf: $0) }
        return data + bytes + bodies
    }

    /// One response of a description, with some part of it changed.
    private static func described(
        url: String = key, status: String = "200", headers: String = #"[["A","b"]]"#, bodyLength: String = "3"
    ) -> String {
        #"{"key":"\#(key)","responses":[{"url":"\#(url)","status":\#(status),"headers":\#(headers),"#
            + #""vary":{},"requested":1,"received":2,"bodyLength":\#(bodyLength)}]}"#
    }

    @Test("a file cut short anywhere is ignored and removed", arguments: [0, 1, 14, 15, 17, 19, 60, -1])
    func truncated(at cut: Int) throws {
        let (storage, root, file) = try Self.storageWithEntry()
        defer { Fixtures.remove(root) }
        let size = Int(Fixtures.status(of: file)?.st_size ?? 0)
        #expect(truncate(file.path, off_t(cut >= 0 ? cut : size + cut)) == 0)
        Self.expectIgnoredAndRemoved(storage)
    }

    @Test("garbage, and files that only look like entries, are ignored and removed")
    func garbage() throws {
        let (storage, root, file) = try Self.storageWithEntry()
        defer { Fixtures.remove(root) }
        var generator = SystemRandomNumberGenerator()
        let contents: [Data] = [
            Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            Data("KringleCache/0\n{}".utf8),
            Data("{\"key\":\"\(Self.key)\"}".utf8),
            Self.entry(json: Self.described(), bodies: Data("abc".utf8), length: .max),
            Self.entry(json: Self.described(), bodies: Data("abc".utf8), length: 5),
            Self.entry(json: "not json"),
            Self.entry(json: Self.described(), bodies: Data("ab".utf8)),  // a body short
            Self.entry(json: Self.described(), bodies: Data("abcd".utf8)),  // a byte too many
            Self.entry(json: Self.described(bodyLength: "-1"), bodies: Data("abc".utf8)),
            Self.entry(json: Self.described(bodyLength: "9223372036854775807"), bodies: Data("abc".utf8)),
            Self.entry(json: Self.described(bodyLength: "1e300"), bodies: Data("abc".utf8)),
            Self.entry(json: Self.described(status: "99"), bodies: Data("abc".utf8)),
            Self.entry(json: Self.described(status: "1000"), bodies: Data("abc".utf8)),
            Self.entry(json: Self.described(headers: #"[["A"]]"#), bodies: Data("abc".utf8)),
            Self.entry(json: Self.described(headers: #"[["A","b","c"]]"#), bodies: Data("abc".utf8)),
            Self.entry(json: Self.described(url: ""), bodies: Data("abc".utf8)),
        ]
        // The last is the description every other one spoils: it must itself be valid.
        let valid = Self.entry(json: Self.described(), bodies: Data("abc".utf8))
        for (index, data) in (contents + [valid]).enumerated() {
            try data.write(to: file)
            guard index < contents.count else {
                #expect(storage.responses(forKey: Self.key).map(\.body) == [Data("abc".utf8)])
                break
            }
            #expect(storage.responses(forKey: Self.key).isEmpty, "content \(index)")
            #expect(!Fixtures.exists(file), "content \(index) removed")
        }
    }

    @Test("one key's file under another key's name is ignored and removed; the first key keeps its own")
    func anotherKeysFile() throws {
        let (storage, root, file) = try Self.storageWithEntry()
        defer { Fixtures.remove(root) }
        let other = "https://example.com/other"
        storage.setResponses(Fixtures.variants(other, count: 1), forKey: other)
        let otherFile = storage.fileURL(forKey: other)
        #expect(otherFile != file)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.copyItem(at: otherFile, to: file)

        Self.expectIgnoredAndRemoved(storage)
        #expect(storage.responses(forKey: other) == Fixtures.variants(other, count: 1))
    }

    @Test("a symbolic link at an entry's name is not followed: the link is removed, its target untouched")
    func symbolicLink() throws {
        let (storage, root, file) = try Self.storageWithEntry()
        defer { Fixtures.remove(root) }
        // The target is a valid entry for the very key: even so a link is not trusted.
        let target = root.appendingPathComponent("target.bin")
        try FileManager.default.moveItem(at: file, to: target)
        let before = try Data(contentsOf: target)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)

        Self.expectIgnoredAndRemoved(storage)
        #expect(try Data(contentsOf: target) == before)
        #expect(Fixtures.status(of: file).map { $0.st_mode & S_IFMT } == S_IFREG, "a file of its own now")

        // A dangling link, too; and removeAll removes links without touching targets.
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: root.appendingPathComponent("none"))
        Self.expectIgnoredAndRemoved(storage)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
        storage.removeAll()
        #expect(!Fixtures.exists(file))
        #expect(try Data(contentsOf: target) == before)
    }

    @Test("a directory or a FIFO at an entry's name is ignored and removed, without blocking")
    func notARegularFile() throws {
        let (storage, root, file) = try Self.storageWithEntry()
        defer { Fixtures.remove(root) }
        try FileManager.default.removeItem(at: file)
        #expect(mkdir(file.path, 0o700) == 0)
        Self.expectIgnoredAndRemoved(storage)

        try FileManager.default.removeItem(at: file)
        #expect(mkfifo(file.path, 0o600) == 0)
        Self.expectIgnoredAndRemoved(storage)
    }

    @Test("a file owned by another user is ignored and removed", .enabled(if: geteuid() == 0, "needs root to chown"))
    func anotherUsersFile() throws {
        let (storage, root, file) = try Self.storageWithEntry()
        defer { Fixtures.remove(root) }
        #expect(chown(file.path, 65_534, 65_534) == 0)
        Self.expectIgnoredAndRemoved(storage)
    }

    @Test("a file larger than maximumBytes is ignored and removed before it is read")
    func oversizedFile() throws {
        let (_, root, file) = try Self.storageWithEntry()
        defer { Fixtures.remove(root) }
        let size = Int(Fixtures.status(of: file)?.st_size ?? 0)
        let smaller = try DirectoryCacheStorage(directory: root, maximumBytes: size - 1)
        #expect(smaller.responses(forKey: Self.key).isEmpty)
        #expect(!Fixtures.exists(file))
    }

    @Test("a key rewritten from many threads through two storages is never missing, nor half read")
    func atomicReplacement() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let storages = try (0..<2).map { _ in try DirectoryCacheStorage(directory: root, maximumBytes: 1 << 20) }
        storages[0].setResponses(Fixtures.variants(Self.key, count: 1), forKey: Self.key)
        let broken = Recorder<Int>()
        DispatchQueue.concurrentPerform(iterations: 400) { iteration in
            let storage = storages[iteration % 2]
            if iteration % 3 == 0 {
                storage.setResponses(Fixtures.variants(Self.key, count: iteration % 4 + 1), forKey: Self.key)
            } else {
                let read = storage.responses(forKey: Self.key)
                if read.isEmpty || read != Fixtures.variants(Self.key, count: read.count) { broken.append(read.count) }
            }
        }
        #expect(broken.elements.isEmpty, "every read found a whole list")
        #expect(Fixtures.names(in: root) == [CacheEntryFile.name(forKey: Self.key)], "and no temporary file is left")
    }

    @Test("two storages on one directory, used from many threads at once, never read a broken entry")
    func concurrentStorages() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let keys = (0..<6).map { "https://example.com/shared/\($0)" }
        let listSize = CacheEntryFile.encode(key: keys[0], responses: Fixtures.variants(keys[0], count: 3)).count
        // Small enough that both storages evict while the other writes.
        let storages = try (0..<2).map { _ in
            try DirectoryCacheStorage(directory: root, maximumBytes: 4 * listSize)
        }
        let broken = Recorder<String>()
        DispatchQueue.concurrentPerform(iterations: 600) { iteration in
            let storage = storages[iteration % 2]
            let key = keys[(iteration / 2) % keys.count]
            switch iteration % 5 {
            case 0, 1: storage.setResponses(Fixtures.variants(key, count: iteration % 3 + 1), forKey: key)
            case 2 where iteration % 40 == 2: storage.setResponses([], forKey: key)
            default:
                let read = storage.responses(forKey: key)
                guard read.isEmpty || read == Fixtures.variants(key, count: read.count) else {
                    broken.append("\(key): \(read.count) responses")
                    return
                }
            }
        }
        #expect(broken.elements.isEmpty)
        #expect(Fixtures.names(in: root).allSatisfy(CacheEntryFile.isEntryName), "no temporary file left")
        for key in keys {
            let read = storages[0].responses(forKey: key)
            #expect(read.isEmpty || read == Fixtures.variants(key, count: read.count), "\(key)")
            storages[0].setResponses(Fixtures.variants(key, count: 3), forKey: key)
            #expect(storages[1].responses(forKey: key) == Fixtures.variants(key, count: 3), "\(key) written last")
        }
    }
}
