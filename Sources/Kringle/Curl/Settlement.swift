@_spi(KringleInternals) import KringlePromise

/// How a finished transfer's promise settles and its body's channel ends, kept by the
/// driver until its own state is in order (``CurlDriver``).
struct Settlement {
    let promise: Promise<HTTPResponse>
    let outcome: Result<HTTPResponse, any Error>
    /// The channel a streamed body arrives through, if any.
    let channel: ResponseBodyChannel?

    /// Settles the promise, then ends the channel the same way.
    func settle() {
        promise.resolve(outcome)
        guard let channel else { return }
        if case .failure(let error) = outcome { channel.finish(throwing: error) } else { channel.finish() }
    }
}
