import Foundation
@_spi(KringleInternals) import KringlePromise

/// A request on its way from `send` to the driving thread: everything needed to start the
/// transfer and settle its promise.
///
/// A class, shared rather than copied: a submission goes from the sender to the inbox or the
/// admission queue, to its transfer and to the settlement, and as a struct (its plan holds the
/// URL, the header lines, the body) each of those copies cost a retain and release of every
/// reference in it. Nothing in it changes once made.
final class CurlSubmission: Sendable {
    /// Names the transfer in cancellation commands.
    let id: UInt64
    let plan: CurlRequestPlan
    let promise: Promise<HTTPResponse>
    /// The server it goes to, for the connection limits (``CurlAdmission/hostKey(ofURL:)``),
    /// worked out on the caller's thread rather than the driving thread's.
    let hostKey: Substring
    /// Where the response body goes instead of memory (``Transport/transfer(_:)``).
    let responseBodyFile: URL?
    /// A descriptor to write the response body through; preferred to opening
    /// ``responseBodyFile`` (see ``TransferRequest/responseBodyHandle``).
    let responseBodyHandle: FileHandle?
    /// Told the byte counts as they change (``Transport/transfer(_:)``).
    let progress: ProgressRelay.Report?
    /// The bounds the response must stay within.
    let limits: ResponseLimits
    /// Where the body goes as it arrives (``TransferRequest/responseBodyChannel``): the
    /// promise then settles with the response's head.
    let channel: ResponseBodyChannel?

    init(
        id: UInt64, plan: CurlRequestPlan, promise: Promise<HTTPResponse>, hostKey: Substring,
        responseBodyFile: URL? = nil, responseBodyHandle: FileHandle? = nil, progress: ProgressRelay.Report? = nil,
        limits: ResponseLimits = .default, channel: ResponseBodyChannel? = nil
    ) {
        self.id = id
        self.plan = plan
        self.promise = promise
        self.hostKey = hostKey
        self.responseBodyFile = responseBodyFile
        self.responseBodyHandle = responseBodyHandle
        self.progress = progress
        self.limits = limits
        self.channel = channel
    }
}
