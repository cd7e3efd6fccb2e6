import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP port on 127.0.0.1 that takes connections and never says a word: the kernel
/// completes the handshake for the listen queue, and nobody accepts, reads or writes.
///
/// A TLS client connected to it waits for the server's hello for ever, so its connect phase
/// never ends; a plain HTTP client sends its request and waits for an answer that never
/// comes.
final class SilentListener: Sendable {
    /// The port it listens on.
    let port: Int
    private let descriptor: Int32

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        var actual = sockaddr_in()
        var actualLength = length
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
        }
        guard bound == 0, named == 0, listen(descriptor, 8) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: actual.sin_port))
    }

    deinit {
        close(descriptor)
    }

    /// `scheme://127.0.0.1:port`.
    func url(_ scheme: String) -> URL {
        URL(string: "\(scheme)://127.0.0.1:\(port)")!
    }
}
