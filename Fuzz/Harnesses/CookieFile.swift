import Foundation

@testable import KringleCore

/// Reading a persistent jar's file: `CookieJarFile.read(from:maximumSize:)`, then the checks a jar runs
/// when it loads the cookies (`CookieStore.load`).
///
/// Beyond not crashing: a bad file is `corrupt`, never `unreadable` (it was readable); what
/// is read writes back to a file that reads the same; and what a jar keeps of it is
/// persistent, unexpired, canonical, and can be saved again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Foundation's `Data(contentsOf:)` leaks a 4 KB buffer reading an empty file (in
    // swift-foundation's readBytesFromFile), which LeakSanitizer would report here. An empty
    // file is no JSON, so it reads as corrupt like any other.
    guard size > 0 else { return 0 }
    let cookies: [Cookie]
    do {
        do {
            try Data(bytes: data, count: size).write(to: scratchFile)
        } catch {
            fatalError("cannot write the scratch file \(scratchFile.path): \(error)")
        }
        guard let read = try CookieJarFile.read(from: scratchFile, maximumSize: maximumFileSize) else {
            fatalError("an existing file read as no file")
        }
        cookies = read
    } catch {
        guard case .corrupt = error else { fatalError("a readable file gave \(error)") }
        return 0
    }

    let rewritten: Data
    do {
        rewritten = try CookieJarFile.encode(cookies)
    } catch {
        fatalError("cookies read from a file cannot be written back: \(error)")
    }
    let reread = try? JSONDecoder().decode(CookieJarFile.self, from: rewritten)
    require(reread?.cookies == cookies, "the cookies do not survive being written and read again")

    var store = CookieStore(limits: .default)
    _ = store.load(cookies, now: now)
    let kept = store.persistentCookies
    for cookie in kept {
        require(cookie.isPersistent && !cookie.isExpired(at: now), "a session or expired cookie was kept: \(cookie)")
        require(cookie.path.utf8.first == UInt8(ascii: "/"), "a relative path was kept: \(cookie)")
        require(DomainMatching.canonicalHost(cookie.domain) == cookie.domain, "a non-canonical domain: \(cookie)")
    }
    do {
        _ = try CookieJarFile.encode(kept)
    } catch {
        fatalError("a jar that loaded this file could never save it: \(error)")
    }
    return 0
}

/// Far above what libFuzzer's inputs reach: the size check is not what this harness is about.
private let maximumFileSize = 1 << 24

/// A fixed time, so that an input expires the same way in every run.
private let now = Date(timeIntervalSince1970: 1_700_000_000)

/// The one file every input is written to: the reader is meant for files, and writing one
/// costs microseconds.
private let scratchFile: URL = {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kringle-fuzz-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("cookies.json")
}()
