import Foundation
import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

/// Persistent jars: file format, atomic writes, coalescing, failure modes.
@Suite("Cookie jar persistence", .generousTimeLimit)
struct CookieJarPersistenceTests {
    private static let https = "https://example.com/"

    /// The cookie names in a jar file, read independently of the jar code.
    private static func namesInFile(_ url: URL) throws -> [String] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        let root = try #require(object as? [String: Any])
        #expect(root["version"] as? Int == 1)
        let cookies = try #require(root["cookies"] as? [[String: Any]])
        return cookies.compactMap { $0["name"] as? String }
    }

    @Test("round trip: persistent cookies survive, session cookies do not")
    func roundTrip() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file, now: TestSupport.now)
        jar.store(
            "persist=1; Max-Age=3600; Secure; HttpOnly; SameSite=Strict; Path=/app",
            "domain=2; Domain=example.com; Max-Age=7200", "session=3", from: "https://www.example.com/")
        jar.flush()
        #expect(try Self.namesInFile(file) == ["persist", "domain"])

        let reloaded = try CookieJar(fileURL: file, now: TestSupport.now.addingTimeInterval(1))
        #expect(reloaded.allCookies == jar.allCookies.filter { $0.name != "session" })
        #expect(
            reloaded.header("https://www.example.com/app", now: TestSupport.now.addingTimeInterval(2))
                == "persist=1; domain=2")
    }

    @Test("expired cookies are neither written nor loaded")
    func expiredNotPersisted() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file, now: TestSupport.now)
        jar.store("short=1; Max-Age=10", "long=2; Max-Age=1000", from: Self.https)
        jar.store("later=3; Max-Age=1000", from: Self.https, now: TestSupport.now.addingTimeInterval(20))
        jar.flush()
        #expect(try Self.namesInFile(file) == ["long", "later"])

        let reloaded = try CookieJar(fileURL: file, now: TestSupport.now.addingTimeInterval(1_010))
        #expect(reloaded.allCookies.map(\.name) == ["later"])
    }

    @Test("a missing file is an empty jar, and nothing is written until a change")
    func missingFile() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file)
        #expect(jar.allCookies.isEmpty)
        jar.flush()
        #expect(!FileManager.default.fileExists(atPath: file.path(percentEncoded: false)))
        jar.store("session=1", from: Self.https)  // session cookies alone need no write
        jar.flush()
        #expect(!FileManager.default.fileExists(atPath: file.path(percentEncoded: false)))
        #expect(jar.persistenceWriteCount == 0)
    }

    @Test(
        "a corrupt file throws and is left untouched",
        arguments: [
            "not json at all",
            "{\"version\": 1}",
            "{\"version\": 2, \"cookies\": []}",
            "{\"version\": 1, \"cookies\": [{\"name\": \"a\"}]}",
            "",
        ])
    func corruptFile(content: String) throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        try Data(content.utf8).write(to: file)
        // Not writable by group or others, whatever the umask: this test is about the content.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect {
            _ = try CookieJar(fileURL: file)
        } throws: { error in
            guard case .corrupt(let url, let reason)? = error as? CookieJar.PersistenceError else { return false }
            let description = String(describing: error)
            return url == file && !reason.isEmpty && description.contains("corrupt")
                && description.contains(file.lastPathComponent)
        }
        #expect(try Data(contentsOf: file) == Data(content.utf8))
    }

    @Test("an unreadable file throws .unreadable")
    func unreadableFile() throws {
        let directory = try TestSupport.temporaryDirectory()  // a directory is not a readable file
        defer { TestSupport.remove(directory) }
        #expect {
            _ = try CookieJar(fileURL: directory)
        } throws: { error in
            guard case .unreadable(let url, _)? = error as? CookieJar.PersistenceError else { return false }
            return url == directory && String(describing: error).contains("Cannot read")
        }
    }

    @Test("the file has mode 0600 and no temporary files are left behind")
    func permissions() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file)
        jar.store("a=1; Max-Age=60", from: Self.https)
        jar.flush()
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path(percentEncoded: false))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false))
                == ["cookies.json"])
    }

    @Test("a burst of changes is coalesced into one write")
    func coalescing() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file, limits: .default, now: TestSupport.now, saveDelay: .seconds(5))
        for index in 0..<100 {
            jar.store("c\(index)=v; Max-Age=600", from: Self.https)
        }
        #expect(jar.persistenceWriteCount == 0)
        jar.flush()
        #expect(jar.persistenceWriteCount == 1)
        #expect(try Self.namesInFile(file).count == 50)  // per-domain limit
        jar.flush()
        #expect(jar.persistenceWriteCount == 1)  // nothing new to write
    }

    @Test("changes are written by themselves shortly after")
    func delayedWrite() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file, limits: .default, now: TestSupport.now, saveDelay: .milliseconds(20))
        jar.store("a=1; Max-Age=60", from: Self.https)
        for _ in 0..<200 where jar.persistenceWriteCount == 0 {
            // Polling for the debounced write, which the persister schedules in real time.
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(jar.persistenceWriteCount == 1)
        #expect(try Self.namesInFile(file) == ["a"])
    }

    @Test("removals are persisted")
    func removalsPersisted() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file, now: TestSupport.now)
        jar.store("a=1; Max-Age=60", "b=2; Max-Age=60", from: Self.https)
        jar.flush()
        jar.store("a=; Max-Age=0", from: Self.https)
        jar.flush()
        #expect(try Self.namesInFile(file) == ["b"])
        jar.removeAll()
        jar.flush()
        #expect(try Self.namesInFile(file) == [])
    }

    @Test("a jar writes pending changes when it is released")
    func flushOnDeinit() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        do {
            let jar = try CookieJar(fileURL: file, limits: .default, now: TestSupport.now, saveDelay: .seconds(60))
            jar.store("a=1; Max-Age=60", from: Self.https)
        }
        #expect(try Self.namesInFile(file) == ["a"])
    }

    @Test("a failed write is reported and the jar keeps working")
    func unwritable() throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("missing-directory", isDirectory: true)
            .appendingPathComponent("cookies.json")
        let jar = try CookieJar(fileURL: file)
        jar.store("a=1; Max-Age=60", from: Self.https)
        jar.flush()
        guard case .unwritable(let url, _)? = jar.lastPersistenceError else {
            Issue.record("expected .unwritable, got \(String(describing: jar.lastPersistenceError))")
            return
        }
        #expect(url == file)
        #expect(jar.header(Self.https) == "a=1")
        #expect(CookieJar().lastPersistenceError == nil)
    }

    @Test("two jars writing one file never leave it half-written")
    func concurrentWriters() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jars = try (0..<2).map { _ in
            try CookieJar(fileURL: file, limits: .default, now: TestSupport.now, saveDelay: .milliseconds(1))
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (jarIndex, jar) in jars.enumerated() {
                group.addTask {
                    for index in 0..<150 {
                        jar.store(
                            "j\(jarIndex)c\(index % 40)=\(index); Max-Age=600",
                            from: "https://site\(index % 7).example.com/")
                        if index % 10 == 0 { jar.flush() }
                    }
                    jar.flush()
                    return jar.persistenceWriteCount
                }
            }
            // A reader that keeps parsing the file while the writers work.
            group.addTask {
                var reads = 0
                for _ in 0..<200 {
                    if let data = try? Data(contentsOf: file) {
                        _ = try JSONDecoder().decode(CookieJarFile.self, from: data)
                        reads += 1
                    }
                    // Spreads the reads over the writers' work; how many land is not asserted.
                    try await Task.sleep(for: .milliseconds(1))
                }
                return reads
            }
            var total = 0
            for try await count in group { total += count }
            #expect(total > 0)
        }
        let final = try CookieJar(fileURL: file, now: TestSupport.now)
        #expect(!final.allCookies.isEmpty)
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: file.deletingLastPathComponent()
                .path(percentEncoded: false))
        #expect(leftovers == ["cookies.json"])
    }
}
