import Foundation

extension CookieJar {
    /// Why a persistent ``CookieJar`` could not read or write its file.
    public enum PersistenceError: Error, CustomStringConvertible {
        /// The file exists but could not be read (permissions, a directory, I/O error).
        /// The underlying error is the one the file system reported.
        case unreadable(URL, underlying: any Error)
        /// The file was read but is not a cookie file this version understands. The file
        /// is left untouched: ``CookieJar/init(fileURL:limits:now:)`` throws, so no jar
        /// exists that could overwrite it.
        case corrupt(URL, reason: String)
        /// Writing the file failed; the previous file, if any, is still intact.
        case unwritable(URL, underlying: any Error)

        /// The file the error is about.
        public var fileURL: URL {
            switch self {
            case .unreadable(let url, _), .corrupt(let url, _), .unwritable(let url, _): return url
            }
        }

        /// A sentence saying what went wrong and what to do about it.
        public var description: String {
            switch self {
            case .unreadable(let url, let underlying):
                return "Cannot read the cookie file at \(url.path(percentEncoded: false)): \(underlying). "
                    + "Check that it is a readable file."
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
