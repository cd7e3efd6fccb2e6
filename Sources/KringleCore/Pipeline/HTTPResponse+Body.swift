import Foundation

extension HTTPResponse {
    /// This response with its body cut to `limit` bytes, or read back from the transfer's
    /// file (at most `limit` bytes), so an error keeps it as for any request.
    func withBody(from options: TransferOptions, limit: Int) -> HTTPResponse {
        var copy = self
        guard let file = options.responseBodyFile else {
            if body.count > limit { copy.body = body.prefix(limit) }
            return copy
        }
        copy.body = file.prefix(limit)  // through the descriptor, not the path
        return copy
    }
}
