import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file format of ``DirectoryCacheStorage``: a magic line, the length of a JSON
/// description (key, statuses, fields, dates, body lengths), the description, then the
/// bodies one after another, so a large body is neither base64-encoded nor parsed.
///
/// Dates are stored as `Date` keeps them, seconds since 2001 (`timeIntervalSinceReferenceDate`),
/// so that they read back equal to the bit; through seconds since 1970 about half would not.
enum CacheEntryFile {
    /// The first bytes of every entry file; another version's files do not start with them.
    /// Version 1 stored dates as seconds since 1970.
    static let magic = Array("KringleCache/2\n".utf8)
    static let fileExtension = "kcache"

    enum ReadResult {
        case missing
        case unusable
        case read(key: String, responses: [CachedResponse])
    }

    /// The file name of `key`: two FNV-1a hashes of it (64 bits each, different offsets),
    /// in hexadecimal.
    static func name(forKey key: String) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = [first, second].map { value -> String in
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex.joined() + "." + fileExtension
    }

    static func isEntryName(_ name: String) -> Bool {
        name.hasSuffix("." + fileExtension) && !name.hasPrefix(".")
    }

    /// Whether `name` is one of the temporary files `write` renames into place.
    static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }

    static func encode(key: String, responses: [CachedResponse]) -> Data {
        let description = Description(
            key: key,
            responses: responses.map { response in
                Description.Response(
                    url: response.url.absoluteString, status: response.statusCode,
                    headers: response.headers.fields.map { [$0.name, $0.value] },
                    vary: response.varyingRequestHeaders,
                    requested: response.requestDate.timeIntervalSinceReferenceDate,
                    received: response.responseDate.timeIntervalSinceReferenceDate, bodyLength: response.body.count)
            })
        // Encoding these plain types cannot fail.
        let json = (try? JSONEncoder().encode(description)) ?? Data()
        var data = Data(magic)
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { data.append(contentsOf: $0) }
        data.append(json)
        for response in responses { data.append(response.body) }
        return data
    }

    static func decode(_ data: Data) -> (key: String, responses: [CachedResponse])? {
        let headerLength = magic.count + 4
        guard data.count >= headerLength, data.prefix(magic.count).elementsEqual(magic) else { return nil }
        let lengthBytes = data.dropFirst(magic.count).prefix(4)
        let jsonLength = Int(lengthBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        guard jsonLength <= data.count - headerLength else { return nil }
        let jsonStart = data.startIndex + headerLength
        guard
            let description = try? JSONDecoder().decode(
                Description.self, from: data[jsonStart..<jsonStart + jsonLength])
        else { return nil }
        var offset = jsonStart + jsonLength
        var responses: [CachedResponse] = []
        for stored in description.responses {
            guard stored.bodyLength >= 0, stored.bodyLength <= data.endIndex - offset,
                (100..<1000).contains(stored.status), stored.headers.allSatisfy({ $0.count == 2 }),
                let url = URL(string: stored.url)
            else { return nil }
            responses.append(
                CachedResponse(
                    url: url, statusCode: stored.status, headers: HTTPHeaders(stored.headers.map { ($0[0], $0[1]) }),
                    body: Data(data[offset..<offset + stored.bodyLength]), varyingRequestHeaders: stored.vary,
                    requestDate: Date(timeIntervalSinceReferenceDate: stored.requested),
                    responseDate: Date(timeIntervalSinceReferenceDate: stored.received)))
            offset += stored.bodyLength
        }
        guard offset == data.endIndex else { return nil }
        return (description.key, responses)
    }

    /// Reads an entry file that is a regular file of the current user's, no larger than
    /// `maximumBytes`, and marks it used (its modification time, which eviction goes by).
    ///
    /// `O_NONBLOCK` makes a FIFO at the path open at once (to be refused by `fstat`) instead
    /// of waiting for a writer forever; it changes nothing for a regular file.
    static func read(_ url: URL, maximumBytes: Int) -> ReadResult {
        let descriptor = url.withUnsafeFileSystemRepresentation { path in
            path.map { open($0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) } ?? -1
        }
        // A link at the name (ELOOP with O_NOFOLLOW) is no entry of ours; any other failure
        // (no descriptor left, a permission) says nothing of the file, which stays.
        guard descriptor >= 0 else { return errno == ELOOP ? .unusable : .missing }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
            status.st_size <= maximumBytes,
            let data = try? handle.readToEnd(), let (key, responses) = decode(data)
        else { return .unusable }
        futimens(descriptor, nil)
        return .read(key: key, responses: responses)
    }

    /// Writes `data` to a new private file beside `url`, then renames it to `url`; not
    /// synced to disk, since an entry lost in a crash is fetched again.
    static func write(_ data: Data, to url: URL) -> Bool {
        PrivateFile.replace(url, with: data, durably: false) == 0
    }

    /// The JSON part of an entry file.
    private struct Description: Codable {
        struct Response: Codable {
            var url: String
            var status: Int
            var headers: [[String]]
            var vary: [String: String]
            /// Seconds since 2001, as `Date` keeps them.
            var requested: TimeInterval
            /// Seconds since 2001, as `Date` keeps them.
            var received: TimeInterval
            var bodyLength: Int
        }
        var key: String
        var responses: [Response]
    }
}
