import Foundation

extension CookieJar {
    /// Why a persistent ``CookieJar`` could not read or write its file.
    public enum PersistenceError: Error, CustomStringConvertible {
        /// The file exists but could not be read (permissions, a directory, I/O error).
        /// The underlying error is the one the file system reported.
        case unreadable(URL, underlying: any Error)
        /// The file is not one the jar may trust: someone other than the current user could
        /// have written it, so it may hold cookies planted to hijack a session. The file is
        /// left untouched: ``CookieJar/init(fileURL:limits:now:)`` throws, so no jar exists
        /// that could overwrite it.
        case untrusted(URL, TrustProblem)
        /// The file was read but is not a cookie file this version understands. The file
        /// is left untouched: ``CookieJar/init(fileURL:limits:now:)`` throws, so no jar
        /// exists that could overwrite it.
        case corrupt(URL, reason: String)
        /// Writing the file failed; the previous file, if any, is still intact.
        case unwritable(URL, underlying: any Error)

        /// What makes a cookie file untrustworthy, as seen by `fstat` on the opened file.
        public enum TrustProblem: Sendable, Hashable, CustomStringConvertible {
            /// The file belongs to another user (`owner`) than the one running the process
            /// (`currentUser`, the effective user ID).
            case ownedByAnotherUser(owner: UInt32, currentUser: UInt32)
            /// The group or other users may write the file; `permissions` are its mode
            /// bits, such as `0o666`. A jar writes its file with `0o600`.
            case writableByOthers(permissions: UInt16)
            /// The path names a FIFO, a device or a socket, not a regular file.
            case notARegularFile

            /// The problem in a few words, such as `writable by group or others (mode 0666)`.
            public var description: String {
                switch self {
                case .ownedByAnotherUser(let owner, let currentUser):
                    return "owned by user \(owner), not by the current user \(currentUser)"
                case .writableByOthers(let permissions):
                    return "writable by group or others (mode 0\(String(permissions, radix: 8)))"
                case .notARegularFile:
                    return "not a regular file"
                }
            }
        }

        /// The file the error is about.
        public var fileURL: URL {
            switch self {
            case .unreadable(let url, _), .untrusted(let url, _), .corrupt(let url, _), .unwritable(let url, _):
                return url
            }
        }

        /// A sentence saying what went wrong and what to do about it.
        public var description: String {
            switch self {
            case .unreadable(let url, let underlying):
                return "Cannot read the cookie file at \(url.path(percentEncoded: false)): \(underlying). "
                    + "Check that it is a readable file."
            case .untrusted(let url, let problem):
                return "The cookie file at \(url.path(percentEncoded: false)) is not trusted: it is \(problem). "
                    + "It was left untouched; if its cookies are yours, make it a regular file owned by you "
                    + "with mode 0600, otherwise move it away or delete it."
            case .corrupt(let url, let reason):
                return "The cookie file at \(url.path(percentEncoded: false)) is corrupt: \(reason). "
                    + "It was left untouched; move it away or delete it to start with an empty jar."
            case .unwritable(let url, let underlying):
                return "Cannot write the cookie file at \(url.path(percentEncoded: false)): \(underlying). "
                    + "The previous file, if any, is unchanged."
            }
        }
    }
}
