import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one call moves bytes that do not fit in memory: a body to stream, a file for the
/// response body, and whom to tell about progress.
struct TransferOptions: Sendable {
    var body: StreamedBody?
    /// The download's temporary file, which every hop writes through a descriptor of its own.
    var responseBodyFile: DownloadTemporaryFile?
    var progress: ProgressReporter?

    /// No streaming: the plain ``Transport/send(_:)`` path.
    static let none = TransferOptions()

    var isStreaming: Bool {
        body != nil || responseBodyFile != nil || progress != nil
    }
}

extension HTTPResponse {
    /// The most of a body written to a file that an error keeps.
    static let errorBodyLimit = 1 << 20

    /// This response with its body read back from the transfer's file (at most
    /// ``errorBodyLimit`` bytes), so an error keeps it as for any request.
    func withBody(from options: TransferOptions) -> HTTPResponse {
        guard let file = options.responseBodyFile else { return self }
        var copy = self
        copy.body = file.prefix(Self.errorBodyLimit)  // through the descriptor, not the path
        return copy
    }
}
