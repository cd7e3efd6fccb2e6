import Foundation

/// One exchange as a recorder saw it, before redaction.
struct RecordedExchange {
    /// The request as the transport was given it.
    var request: HTTPRequest
    /// Its body (a streamed body read whole).
    var requestBody: Data
    /// When it started, if the transport did not measure it.
    var started: Date
    /// The outcome: a response with its body (a download's read from its file), or the error
    /// that left the exchange without one.
    var outcome: Result<(response: HTTPResponse, body: Data), any Error>
}
