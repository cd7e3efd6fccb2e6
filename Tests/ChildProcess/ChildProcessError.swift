import Foundation

/// A child process that could not be started or read from.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What failed and the system's reason, such as
    /// `cannot start /usr/bin/nginx: No such file or directory`.
    public let description: String

    init(_ what: String, code: Int32) {
        description = "\(what): \(String(cString: strerror(code)))"
    }

    /// Throws unless `result`, what the C function `call` returned, is 0 (the `posix_spawn`
    /// family returns its error number rather than setting `errno`).
    static func check(_ result: Int32, _ call: String) throws {
        if result != 0 { throw ChildProcessError(call, code: result) }
    }
}
