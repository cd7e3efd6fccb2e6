import Foundation
@_spi(KringleInternals) import KringlePromise

/// A request on its way from `send` to the driving thread: everything needed to start the
/// transfer and settle its promise.
struct CurlSubmission: Sendable {
    /// Names the transfer in cancellation commands.
    let id: UInt64
    var plan: CurlRequestPlan
    let promise: Promise<HTTPResponse>
    /// The server it goes to, for the connection limits (``CurlAdmission/hostKey(ofURL:)``),
    /// worked out on the caller's thread rather than the driving thread's.
    let hostKey: Substring
    /// Where the response body goes instead of memory (``Transport/transfer(_:)``).
    var responseBodyFile: URL?
    /// A descriptor to write the response body through; preferred to opening
    /// ``responseBodyFile`` (see ``TransferRequest/responseBodyHandle``).
    var responseBodyHandle: FileHandle?
    /// Told the byte counts as they change (``Transport/transfer(_:)``).
    var progress: ProgressRelay.Report?
    /// The bounds the response must stay within.
    var limits = ResponseLimits.default
    /// Where the body goes as it arrives (``TransferRequest/responseBodyChannel``): the
    /// promise then settles with the response's head.
    var channel: ResponseBodyChannel?
}
