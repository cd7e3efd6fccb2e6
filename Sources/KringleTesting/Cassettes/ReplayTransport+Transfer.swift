import Foundation
@_spi(KringleInternals) import KringlePromise

extension ReplayTransport {
    /// When the chunks of a replayed stream reach the reader.
    ///
    /// The head (status and fields) is given at once either way; pacing applies to the body
    /// of a streamed response (``/KringleCore/TransferRequest/responseBodyChannel``), which is
    /// replayed in the chunks ``RecordingTransport`` recorded (its `_kringleChunks` field).
    /// An entry without them (a browser's export, or a body a redaction hook changed in
    /// length) is cut as a reader would likely have got it: a `text/event-stream` body
    /// after each event's blank line, anything else in pieces of 16 KiB; those pieces have
    /// no recorded time and are delivered at once whatever the pacing.
    public enum Pacing: Sendable, Hashable {
        /// Every chunk as soon as the reader takes it.
        case immediate
        /// Each chunk when as much time has passed on the transport's clock, since the
        /// request was replayed, as had passed since the recorded exchange began: a Server-Sent
        /// Events stream's events arrive as far apart as they did. Give the transport a
        /// `ManualClock` to step through them in a test.
        case recorded
    }

    /// Answers `transfer` from the cassette (or, in a recording mode, from the network):
    /// a streamed body in its recorded chunks, as ``pacing`` says; a download written to its
    /// file; a streamed request body read whole to be matched.
    ///
    /// - Returns: What ``send(_:)`` answers; for a streamed body, the head, its body then
    ///   arriving in the channel.
    public func transfer(_ transfer: TransferRequest) -> Promise<HTTPResponse> {
        if recordsEverything, let recorder { return recorder.transfer(transfer) }
        let body: Data
        do {
            body = try transfer.body?.readAll() ?? transfer.request.request.body ?? Data()
        } catch {
            return Promise(error: error)
        }
        switch choose(asked(transfer.request, body: body)) {
        case .success(let (index, entry)):
            let response: HTTPResponse
            do {
                response = try self.response(index, entry, for: transfer.request)
            } catch {
                return Promise(error: error)
            }
            guard let channel = transfer.responseBodyChannel else {
                // A download or an upload: the default transfer writes the body to its file
                // (or handle) and reports progress, as for any transport that cannot stream.
                // The streamed request body was read once already: it goes in memory, so that
                // progress still counts its bytes as sent.
                var answered = transfer
                if answered.body != nil {
                    answered.request = transfer.request.withBody(body)
                    answered.body = nil
                }
                return Answered(response: response).transfer(answered)
            }
            return stream(response, of: entry, to: channel, within: transfer.limits.maximumDownloadBytes)
        case .failure(let mismatch):
            if let recorder { return recorder.transfer(transfer) }
            return Promise(error: KringleError.transport(CassetteError.unmatchedRequest(mismatch)))
        }
    }

    /// Gives `response`'s head now and its body to `channel` in the entry's chunks. A body
    /// longer than `maximum` (``/KringleCore/ResponseLimits/maximumDownloadBytes``) ends as a
    /// live transport ends it: the chunks within the bound, then
    /// ``/KringleCore/KringleError/responseTooLarge(_:limit:)``.
    private func stream(
        _ response: HTTPResponse, of entry: HAR.Entry, to channel: ResponseBodyChannel, within maximum: Int64?
    ) -> Promise<HTTPResponse> {
        let timeline = StreamTimeline(entry.response.content)
        var pieces = timeline.pieces(of: response.body, mimeType: entry.response.content.mimeType)
        var ending: (any Error)? =
            if case .failed(let message) = timeline.end {
                KringleError.transport(RecordedFailure(message: message))
            } else {
                nil
            }
        if let maximum, Int64(response.body.count) > maximum {
            var delivered: Int64 = 0
            pieces = Array(
                pieces.prefix { piece in
                    delivered += Int64(piece.data.count)
                    return delivered <= maximum
                })
            ending = KringleError.responseTooLarge(response.url, limit: .downloadBytes(maximum))
        }
        ReplayedBody(
            pieces: pieces, ending: ending, to: channel, pacing: pacing, clock: clock,
            started: clock.uptimeNanoseconds
        ).start()
        var head = response
        head.body = Data()
        return Promise(head)
    }
}

/// A transport that answers every request with one response: so that the default
/// ``/KringleCore/Transport/transfer(_:)`` writes a replayed body where a transfer wants it.
private struct Answered: Transport {
    let response: HTTPResponse

    func send(_ request: ValidatedRequest) -> Promise<HTTPResponse> {
        Promise(response)
    }
}
