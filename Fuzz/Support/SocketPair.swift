import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected pair of local stream sockets, for the harnesses of LoopbackServer's readers,
/// which read from a descriptor: the input is written to one end, which is then shut for
/// writing, so the reader sees exactly the input and then the end of the stream.
struct SocketPair: ~Copyable {
    /// The end the reader reads from.
    let reading: Int32
    /// The end the input is written to.
    let writing: Int32

    /// A new pair; stops the run when the system has none to give, which is no finding.
    init() {
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else { fatalError("socketpair: errno \(errno)") }
        reading = descriptors[0]
        writing = descriptors[1]
    }

    /// Writes `bytes` to the writing end. Nothing reads yet, so they must fit the socket's
    /// buffer (some 200 KB; libFuzzer's inputs are a few KB).
    func send(_ bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        var offset = 0
        while offset < array.count {
            let sent = array.withUnsafeBytes { write(writing, $0.baseAddress! + offset, array.count - offset) }
            guard sent > 0 else { fatalError("write to the socket pair: errno \(errno)") }
            offset += sent
        }
    }

    /// Shuts the writing end: the reader sees the end of the stream after what was written.
    func endStream() {
        shutdown(writing, Int32(SHUT_WR))
    }

    deinit {
        close(reading)
        close(writing)
    }
}
