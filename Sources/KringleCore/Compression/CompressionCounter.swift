import Synchronization

/// What the latest reader of a compressed body has done: bytes of its pieces read, and
/// compressed bytes handed out; read by the upload's progress reporter and the log on
/// other threads.
final class CompressionCounter: Sendable {
    private let source = Atomic<Int64>(0)
    private let output = Atomic<Int64>(0)

    /// Bytes of the pieces read, before compression.
    var bytesRead: Int64 { source.load(ordering: .relaxed) }
    /// Compressed bytes handed out to be sent.
    var bytesWritten: Int64 { output.load(ordering: .relaxed) }

    func read(_ count: Int) {
        source.add(Int64(count), ordering: .relaxed)
    }

    func wrote(_ count: Int) {
        output.add(Int64(count), ordering: .relaxed)
    }

    /// A new reader starts from the first byte (a retry, a 307 redirect).
    func restart() {
        source.store(0, ordering: .relaxed)
        output.store(0, ordering: .relaxed)
    }
}
