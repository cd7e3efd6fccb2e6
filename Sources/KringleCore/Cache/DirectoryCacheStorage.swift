import Foundation
@_spi(KringleInternals) import KringlePromise

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An ``HTTPCacheStorage`` in a directory: one file per URL, so a cache outlives its
/// process. ``HTTPCache/directory(_:maximumBytes:)`` makes one.
///
/// - Each file is written whole to a new private file (mode 0600) and renamed into place,
///   so a reader (another client, another process) sees the old file or the new one,
///   never half of one.
/// - A file that cannot be read as an entry of this storage (cut short, another
///   program's, another user's, a link, a FIFO, an empty directory) is ignored and removed,
///   never trusted; a link is removed itself, what it names is never touched.
/// - When the files pass `maximumBytes`, the least recently used are removed (reading an
///   entry marks it used) until they take nine tenths of it; the file just written is kept.
public final class DirectoryCacheStorage: HTTPCacheStorage {
    /// Where the files are.
    public let directory: URL
    /// The most bytes the files may take.
    public let maximumBytes: Int
    /// What the files take, as far as this storage knows: counted from the directory when
    /// first needed, then kept up to date by its own writes (and recounted at each eviction,
    /// which corrects what other writers changed).
    private let totalBytes = Locked<Int?>(nil)

    /// A storage in `directory`, created (mode 0700) if missing.
    ///
    /// - Throws: ``KringleError/file(_:underlying:)`` when it cannot be created, or is not a
    ///   directory of the current user's that only they can write to (`EACCES`), since
    ///   another user could then plant responses in it; a symbolic link to a directory is
    ///   refused too (pass the directory it names).
    public init(directory: URL, maximumBytes: Int) throws {
        self.directory = directory
        self.maximumBytes = maximumBytes
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw KringleError.file(directory, underlying: error)
        }
        // lstat: a link in place of the directory (planted where others can write, such as
        // /tmp) would send every file, and every removal, elsewhere.
        var status = stat()
        let found = directory.withUnsafeFileSystemRepresentation { path in
            path.map { lstat($0, &status) == 0 } ?? false
        }
        guard found else { throw KringleError.file(directory, underlying: PrivateFile.posixError(errno)) }
        guard status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(), status.st_mode & 0o022 == 0 else {
            throw KringleError.file(directory, underlying: PrivateFile.posixError(EACCES))
        }
    }

    /// The responses in `key`'s file, which becomes the most recently used; none when the
    /// file is missing, and none (the file removed) when it is not a valid entry for `key`.
    public func responses(forKey key: String) -> [CachedResponse] {
        let url = fileURL(forKey: key)
        switch CacheEntryFile.read(url, maximumBytes: maximumBytes) {
        case .missing:
            return []
        case .unusable:
            remove(url)
            return []
        case .read(let storedKey, let responses):
            guard storedKey == key else {
                remove(url)  // another key with the same file name: a collision, or a forgery
                return []
            }
            return responses
        }
    }

    /// Writes `key`'s file anew (removes it for an empty list), then evicts if the
    /// directory has grown past `maximumBytes`. A write that fails leaves the old file (or
    /// none): a cache may always forget.
    public func setResponses(_ responses: [CachedResponse], forKey key: String) {
        let url = fileURL(forKey: key)
        guard !responses.isEmpty else {
            remove(url)
            return
        }
        let encoded = CacheEntryFile.encode(key: key, responses: responses)
        guard encoded.count <= maximumBytes else {
            remove(url)
            return
        }
        let replaced = Self.size(atPath: url.path) ?? 0
        guard CacheEntryFile.write(encoded, to: url) else { return }
        let total = totalBytes.withLock { total -> Int in
            // Counted from the directory the first time (the new file is in it by now).
            let updated = total.map { $0 - replaced + encoded.count } ?? currentFiles().reduce(0) { $0 + $1.size }
            total = updated
            return updated
        }
        if total > maximumBytes { evict(sparing: url.path, now: Date()) }
    }

    /// Removes every entry file (and nothing else in the directory).
    public func removeAll() {
        for file in currentFiles() { Self.removeEntry(atPath: file.path) }
        totalBytes.withLock { $0 = 0 }
    }

    /// The file of `key`: a 128-bit hash of it, in hexadecimal (keys are URLs, too long and
    /// too varied for file names). The key is stored inside the file, and checked.
    func fileURL(forKey key: String) -> URL {
        directory.appendingPathComponent(CacheEntryFile.name(forKey: key), isDirectory: false)
    }

    private func remove(_ url: URL) {
        let size = Self.size(atPath: url.path)
        guard Self.removeEntry(atPath: url.path) else { return }
        totalBytes.withLock { total in total = total.map { $0 - (size ?? 0) } }
    }

    /// Removes what is at an entry's name: a file or link (`unlink`, which never follows a
    /// link), or an empty directory (`rmdir`; a full one, which this storage never makes, is
    /// left alone rather than removed with all it holds).
    @discardableResult
    private static func removeEntry(atPath path: String) -> Bool {
        guard unlink(path) != 0 else { return true }
        // Linux says EISDIR for a directory, Darwin EPERM.
        guard errno == EISDIR || errno == EPERM else { return false }
        return rmdir(path) == 0
    }

    /// Removes the least recently used files until they take nine tenths of `maximumBytes`,
    /// but never `sparing`, the file just written: a clock set back, or files copied in,
    /// can make the others look more recently used, and files written within one kernel
    /// tick have equal modification times.
    private func evict(sparing: String, now: Date) {
        removeAbandonedTemporaries(now: now)
        totalBytes.withLock { total in
            let files = currentFiles().sorted { $0.used < $1.used }
            var remaining = files.reduce(0) { $0 + $1.size }
            for file in files where remaining > maximumBytes / 10 * 9 && file.path != sparing {
                if Self.removeEntry(atPath: file.path) { remaining -= file.size }
            }
            total = remaining
        }
    }

    /// Removes temporary files a writer left an hour ago or more (it stopped between writing
    /// and renaming); younger ones may still be on their way into place.
    private func removeAbandonedTemporaries(now: Date) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let anHourAgo = now.timeIntervalSince1970 - 3600
        for name in names where CacheEntryFile.isTemporaryName(name) {
            let path = directory.appendingPathComponent(name, isDirectory: false).path
            if let modified = Self.modificationTime(atPath: path), modified < anHourAgo { unlink(path) }
        }
    }

    /// The entry files in the directory now, with their sizes and last use.
    private func currentFiles() -> [(path: String, size: Int, used: TimeInterval)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter(CacheEntryFile.isEntryName).compactMap { name in
            let path = directory.appendingPathComponent(name, isDirectory: false).path
            guard let size = Self.size(atPath: path), let used = Self.modificationTime(atPath: path) else { return nil }
            return (path, size, used)
        }
    }

    /// When what is at `path` (not what a link names) was last modified, in seconds since
    /// 1970.
    private static func modificationTime(atPath path: String) -> TimeInterval? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = status.st_mtimespec
        #else
        let modified = status.st_mtim
        #endif
        return TimeInterval(modified.tv_sec) + TimeInterval(modified.tv_nsec) / 1e9
    }

    private static func size(atPath path: String) -> Int? {
        var status = stat()
        return lstat(path, &status) == 0 ? Int(status.st_size) : nil
    }
}
