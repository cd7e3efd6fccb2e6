@_spi(KringleInternals) import KringlePromise

/// How a finished transfer's promise settles and its body's channel ends, kept by the
/// driver until its own state is in order (``CurlDriver``).
struct Settlement {
    let promise: Promise<HTTPResponse>
    let outcome: Result<HTTPResponse, any Error>
    /// The channel a streamed body arrives through, if any.
    let channel: ResponseBodyChannel?

    /// The largest body whose follow-up the driving thread runs itself: decoding 64 KiB of
    /// JSON takes well under a millisecond, much less than the watch's tick (``DrivingSeat``).
    static let largestLightBody = 64 << 10

    /// Whether what the promise sets off is likely quick enough to run on the driving thread:
    /// a failure, or a response whose body is not over ``largestLightBody``.
    var isLight: Bool {
        guard case .success(let response) = outcome else { return true }
        return response.body.count <= Self.largestLightBody
    }

    /// Settles the promise, then ends the channel the same way.
    func settle() {
        promise.resolve(outcome)
        guard let channel else { return }
        if case .failure(let error) = outcome { channel.finish(throwing: error) } else { channel.finish() }
    }
}
