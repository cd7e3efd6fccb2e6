import Foundation
import Kringle
import KringleTestSupport
import KringleTesting
import Testing

@testable import KringleCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directory storage: one private file per key, atomically replaced, bounded in bytes
/// by evicting the least recently used files, found again by the next storage (and client).
@Suite("DirectoryCacheStorage", .generousTimeLimit)
struct DirectoryCacheStorageTests {
    private typealias Fixtures = CacheStorageFixtures

    /// The size of the file of `responses` for `key`.
    private static func fileSize(_ key: String, _ responses: [CachedResponse]) -> Int {
        CacheEntryFile.encode(key: key, responses: responses).count
    }

    /// A date whose `timeIntervalSince1970` does not convert back to it exactly.
    private static let clockDate = Date(timeIntervalSinceReferenceDate: 745_622_922.717_216_1)

    /// Keys of the same length, so that their files of `Fixtures.variants(_, count: 1)` are
    /// the same size.
    private static func key(_ index: Int) -> String {
        "https://example.com/item/" + String(1000 + index)
    }

    @Test("lists of every shape are read back exactly as written, by this storage and by a new one")
    func roundTrip() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let directory = root.appendingPathComponent("cache")
        let storage = try DirectoryCacheStorage(directory: directory, maximumBytes: 10 << 20)

        let binary = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let repeated: HTTPHeaders = HTTPHeaders([
            ("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("Vary", "Accept"), ("Vary", "Accept-Language"),
            ("X-Text", #"quoted "é" \ and ☃"#),
        ])
        let lists: [String: [CachedResponse]] = [
            "https://example.com/empty": [Fixtures.response("https://example.com/empty", body: Data(), headers: [:])],
            "https://example.com/binary?q=%20x&r": [
                Fixtures.response("https://example.com/binary?q=%20x&r", body: binary, status: 404)
            ],
            "https://example.com/fields": [
                Fixtures.response("https://example.com/fields", headers: repeated),
                Fixtures.response(
                    "https://example.com/fields", body: Data(), status: 301, headers: repeated,
                    vary: ["accept": "text/html", "accept-language": "fr, en;q=0.5"],
                    received: Date(timeIntervalSince1970: 1_234_567_890.987_654)),
            ],
            "https://example.com/large": [Fixtures.response("https://example.com/large", body: Data(count: 300_000))],
            // A date as a clock makes it (Date counts from 2001): it must survive to the bit.
            "https://example.com/clock": [Fixtures.response("https://example.com/clock", received: Self.clockDate)],
            "https://example.com/" + String(repeating: "long/", count: 400): Fixtures.variants(
                "https://example.com/" + String(repeating: "long/", count: 400), count: 3),
        ]
        for (key, responses) in lists { storage.setResponses(responses, forKey: key) }
        #expect(Fixtures.entryNames(in: directory).count == lists.count)

        let reopened = try DirectoryCacheStorage(directory: directory, maximumBytes: 10 << 20)
        for (key, responses) in lists {
            #expect(storage.responses(forKey: key) == responses, "\(key.prefix(40))")
            #expect(reopened.responses(forKey: key) == responses, "a new storage: \(key.prefix(40))")
        }
        let dated = reopened.responses(forKey: "https://example.com/fields")
        #expect(dated.map(\.responseDate) == [Fixtures.now, Date(timeIntervalSince1970: 1_234_567_890.987_654)])
        #expect(dated.first?.requestDate == Fixtures.now.addingTimeInterval(-0.25))
        let clocked = reopened.responses(forKey: "https://example.com/clock").first
        #expect(clocked?.responseDate.timeIntervalSinceReferenceDate == Self.clockDate.timeIntervalSinceReferenceDate)
        #expect(reopened.responses(forKey: "https://example.com/missing").isEmpty)
    }

    @Test("replacing and removing a key changes only its file; removeAll is seen by every storage")
    func replaceAndRemove() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let storage = try DirectoryCacheStorage(directory: root, maximumBytes: 1 << 20)
        let (first, second) = (Self.key(1), Self.key(2))
        storage.setResponses(Fixtures.variants(first, count: 3), forKey: first)
        storage.setResponses(Fixtures.variants(second, count: 1), forKey: second)
        storage.setResponses(Fixtures.variants(first, count: 1), forKey: first)
        #expect(storage.responses(forKey: first) == Fixtures.variants(first, count: 1))
        #expect(Fixtures.entryBytes(in: root) == 2 * Self.fileSize(first, Fixtures.variants(first, count: 1)))

        storage.setResponses([], forKey: first)
        #expect(storage.responses(forKey: first).isEmpty)
        #expect(Fixtures.entryNames(in: root) == [CacheEntryFile.name(forKey: second)])

        let other = try DirectoryCacheStorage(directory: root, maximumBytes: 1 << 20)
        #expect(other.responses(forKey: second).count == 1)
        other.removeAll()
        #expect(storage.responses(forKey: second).isEmpty)
        #expect(Fixtures.names(in: root).isEmpty)
    }

    @Test("the directory is created 0700 and every file in it 0600, with no temporary file left behind")
    func permissions() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let directory = root.appendingPathComponent("a/b/http")
        let storage = try DirectoryCacheStorage(directory: directory, maximumBytes: 1 << 20)
        #expect(Fixtures.status(of: directory).map { $0.st_mode & S_IFMT } == S_IFDIR)
        #expect(Fixtures.permissions(of: directory) == 0o700)

        let keys = (0..<5).map(Self.key)
        for key in keys { storage.setResponses(Fixtures.variants(key, count: 2), forKey: key) }
        for key in keys { storage.setResponses(Fixtures.variants(key, count: 1), forKey: key) }
        let names = Fixtures.names(in: directory)
        #expect(names == keys.map(CacheEntryFile.name(forKey:)).sorted(), "entries only, no .tmp")
        for name in names {
            #expect(Fixtures.permissions(of: directory.appendingPathComponent(name)) == 0o600, "\(name)")
        }
        #expect(names.allSatisfy { $0.count == 32 + 1 + CacheEntryFile.fileExtension.count })
    }

    @Test(
        "a directory the group or others may write to is refused",
        arguments: [0o770, 0o720, 0o707, 0o702, 0o777, 0o1777] as [mode_t])
    func writableByOthers(mode: mode_t) throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        #expect(chmod(root.path, mode) == 0)
        Self.expectRefused(root, code: .EACCES)
        #expect(Fixtures.permissions(of: root) == mode, "left as it was")

        #expect(chmod(root.path, 0o755) == 0)  // readable by others is fine
        #expect(throws: Never.self) { try DirectoryCacheStorage(directory: root, maximumBytes: 1) }
    }

    @Test("a path that is a regular file, or a directory of another user's, is refused")
    func notAPrivateDirectory() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let file = root.appendingPathComponent("file")
        try Data("not a directory".utf8).write(to: file)
        Self.expectRefused(file, code: nil)
        #expect(try Data(contentsOf: file) == Data("not a directory".utf8))
        Self.expectRefused(file.appendingPathComponent("below"), code: nil)
        #expect(throws: KringleError.self) { try HTTPCache.directory(file) }

        if geteuid() == 0 {
            let foreign = root.appendingPathComponent("foreign")
            #expect(mkdir(foreign.path, 0o700) == 0)
            #expect(chown(foreign.path, 65_534, 65_534) == 0)
            Self.expectRefused(foreign, code: .EACCES)
        }
    }

    /// Expects `DirectoryCacheStorage(directory:)` to throw `KringleError.file(directory, …)`,
    /// with a `POSIXError` of `code` when given.
    private static func expectRefused(
        _ directory: URL, code: POSIXErrorCode?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try DirectoryCacheStorage(directory: directory, maximumBytes: 1 << 20)
            Issue.record("\(directory.path) was accepted", sourceLocation: sourceLocation)
        } catch KringleError.file(let url, let underlying) {
            #expect(url == directory, sourceLocation: sourceLocation)
            if let code {
                #expect((underlying as? POSIXError)?.code == code, "\(underlying)", sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("eviction removes the least recently used files, reads counting as use, down to nine tenths")
    func evictionOrder() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let keys = (0..<5).map(Self.key)
        let size = Self.fileSize(keys[0], Fixtures.variants(keys[0], count: 1))
        // Four files fit; a fifth makes five, and eviction goes down to 3.78 files' worth.
        let maximum = size * 42 / 10
        let storage = try DirectoryCacheStorage(directory: root, maximumBytes: maximum)
        let file = { (index: Int) in storage.fileURL(forKey: keys[index]) }
        for index in 0..<4 {
            storage.setResponses(Fixtures.variants(keys[index], count: 1), forKey: keys[index])
            Fixtures.setModified(file(index), to: 1_000_000 * (index + 1))
        }
        #expect(Fixtures.entryNames(in: root).count == 4)

        #expect(storage.responses(forKey: keys[0]).count == 1)  // marks 0 used: order 1, 2, 3, 0
        #expect((Fixtures.modified(file(0)) ?? 0) > 4_000_000)
        storage.setResponses(Fixtures.variants(keys[4], count: 1), forKey: keys[4])

        #expect(!Fixtures.exists(file(1)))
        #expect(!Fixtures.exists(file(2)))
        for index in [0, 3, 4] {
            #expect(storage.responses(forKey: keys[index]) == Fixtures.variants(keys[index], count: 1), "\(index)")
        }
        #expect(Fixtures.entryBytes(in: root) <= maximum / 10 * 9)
    }

    @Test("the file just written is never the one evicted, even when the others look more recently used")
    func newestFileIsKept() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let keys = (0..<4).map(Self.key)
        let size = Self.fileSize(keys[0], Fixtures.variants(keys[0], count: 1))
        let storage = try DirectoryCacheStorage(directory: root, maximumBytes: size * 35 / 10)
        for key in keys[0..<3] {
            storage.setResponses(Fixtures.variants(key, count: 1), forKey: key)
            // Copied from elsewhere, or a clock set back since: later than now.
            Fixtures.setModified(storage.fileURL(forKey: key), to: 4_000_000_000)
        }
        storage.setResponses(Fixtures.variants(keys[3], count: 1), forKey: keys[3])
        #expect(storage.responses(forKey: keys[3]) == Fixtures.variants(keys[3], count: 1))
        #expect(Fixtures.entryNames(in: root).count == 3, "one of the others went instead")
    }

    @Test("a temporary file a writer abandoned an hour ago goes at the next eviction; a recent one stays")
    func abandonedTemporaries() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let abandoned = root.appendingPathComponent(".\(UUID().uuidString).tmp")
        let recent = root.appendingPathComponent(".\(UUID().uuidString).tmp")
        for file in [abandoned, recent] { try Data(count: 10).write(to: file) }
        Fixtures.setModified(abandoned, to: Int(Date().timeIntervalSince1970) - 2 * 3600)
        let keys = (0..<3).map(Self.key)
        let size = Self.fileSize(keys[0], Fixtures.variants(keys[0], count: 1))
        let storage = try DirectoryCacheStorage(directory: root, maximumBytes: size * 25 / 10)

        for key in keys { storage.setResponses(Fixtures.variants(key, count: 1), forKey: key) }  // the third evicts

        #expect(!Fixtures.exists(abandoned))
        #expect(Fixtures.exists(recent))
    }

    @Test("many writes keep the files within maximumBytes, and other files are never counted or removed")
    func boundAndForeignFiles() throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let keys = (0..<30).map(Self.key)
        let size = Self.fileSize(keys[0], Fixtures.variants(keys[0], count: 1))
        let maximum = 6 * size
        let foreign = ["notes.txt", ".hidden.kcache", "entry.kcache.bak", "big.bin"]
        for name in foreign {
            try Data(count: name == "big.bin" ? 20 * size : 10).write(to: root.appendingPathComponent(name))
        }

        let storage = try DirectoryCacheStorage(directory: root, maximumBytes: maximum)
        for (index, key) in keys.enumerated() {
            storage.setResponses(Fixtures.variants(key, count: index % 2 + 1), forKey: key)
            #expect(Fixtures.entryBytes(in: root) <= maximum, "after \(index + 1) writes")
            // In writing order, whatever the kernel's timestamp granularity.
            Fixtures.setModified(storage.fileURL(forKey: key), to: 1_000_000 + index)
        }
        #expect(!storage.responses(forKey: keys[29]).isEmpty, "the newest stays")
        #expect(storage.responses(forKey: keys[0]).isEmpty, "the oldest went")

        let oversized = [Fixtures.response(keys[29], body: Data(count: maximum))]
        storage.setResponses(oversized, forKey: keys[29])
        #expect(storage.responses(forKey: keys[29]).isEmpty, "too large to keep, and the old file is gone too")

        storage.removeAll()
        #expect(Fixtures.names(in: root) == foreign.sorted())
    }

    @Test("a response stored by one client answers a new client on a new cache over the same directory")
    func survivesANewClient() async throws {
        let root = try Fixtures.temporaryDirectory()
        defer { Fixtures.remove(root) }
        let directory = root.appendingPathComponent("http")
        let transport = StubTransport()
        transport.stub(
            .get, "/cat",
            with: .init(
                headers: ["Cache-Control": "max-age=60", "Content-Type": "application/json"], body: Data("{}".utf8)))
        let endpoint = ClientTestEndpoint(baseURL: URL(string: "https://cache.example")!, path: "/cat")
        let clock = ManualClock(now: Fixtures.now)
        func client() throws -> NetworkClient {
            var configuration = NetworkClient.Configuration()
            configuration.cache = try .directory(directory)
            configuration.clock = clock
            return NetworkClient(configuration: configuration, transport: transport)
        }

        let first = try await client().request(.get, endpoint, as: Data.self).value
        #expect(first.cacheStatus == .network)
        #expect(Fixtures.entryNames(in: directory).count == 1)

        clock.advance(by: 10)
        let second = try await client().request(.get, endpoint, as: Data.self).value
        #expect(second.cacheStatus == .hit)
        #expect(second.body == Data("{}".utf8))
        #expect(second.headers["Age"] == "10")
        #expect(transport.requests.count == 1)
    }
}
