#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Errors thrown while starting a ``LoopbackServer``.
///
/// Once a server is running it never throws: misbehaving clients are answered with an HTTP
/// error status or dropped, and counted in ``LoopbackServer/Statistics``.
///
/// ```swift
/// do {
///     let server = try LoopbackServer { _ in .text("hello") }
///     defer { server.shutdown() }
/// } catch let error as LoopbackServerError {
///     print(error)  // "LoopbackServer: bind failed: Address already in use (errno 98)"
/// }
/// ```
public enum LoopbackServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A socket system call failed while setting up the listener.
    ///
    /// - Parameters:
    ///   - call: the failing call, such as `"bind"` or `"setsockopt(SO_REUSEADDR)"`.
    ///   - errno: the `errno` value the call reported.
    case socketCallFailed(call: String, errno: Int32)

    /// A readable explanation including the system's message for `errno`.
    public var description: String {
        switch self {
        case .socketCallFailed(let call, let code):
            return "LoopbackServer: \(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}
