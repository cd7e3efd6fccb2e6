#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

extension Socket {
    /// Creates a listening Unix domain socket at `path`, non-blocking as the TCP listener is.
    ///
    /// A file already at `path` is left alone, and the bind fails with `EADDRINUSE`: it may
    /// be another server's socket. The caller removes the socket file when it stops
    /// (``removeSocketFile(_:)``).
    ///
    /// - Throws: ``LoopbackServerError/socketCallFailed(call:errno:)``; `bind` with
    ///   `ENAMETOOLONG` for a path longer than a socket address holds.
    static func makeUnixListener(path: String) throws(LoopbackServerError) -> Int32 {
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // The path and its terminating NUL must fit.
        guard path.utf8.count < capacity, !path.utf8.contains(0) else {
            throw .socketCallFailed(call: "bind", errno: ENAMETOOLONG)
        }
        #if canImport(Darwin)
        address.sun_len = UInt8(MemoryLayout<sockaddr_un>.size)
        let descriptor = socket(AF_UNIX, SOCK_STREAM, 0)
        if descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        #else
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw .socketCallFailed(call: "socket", errno: errno) }
        var keepOpen = false
        defer { if !keepOpen { closeDescriptor(descriptor) } }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8)
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw .socketCallFailed(call: "bind", errno: errno) }
        guard listen(descriptor, 512) == 0 else {
            let failure = errno
            removeSocketFile(path)
            throw .socketCallFailed(call: "listen", errno: failure)
        }
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            let failure = errno
            removeSocketFile(path)
            throw .socketCallFailed(call: "fcntl(O_NONBLOCK)", errno: failure)
        }
        keepOpen = true
        return descriptor
    }

    /// Removes the socket file a listener was bound to; closing the listener leaves it.
    static func removeSocketFile(_ path: String) {
        _ = unlink(path)
    }
}
