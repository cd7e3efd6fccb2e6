/// Passes curl's byte counts to a transfer's progress callback, only when they change.
///
/// curl calls its progress function often, also while nothing moves; the client's idle
/// watchdog counts every call as activity, so repeats must not get through. Confined to the
/// driving thread.
final class ProgressRelay {
    typealias Report = @Sendable (TransferReport) -> Void

    private let report: Report
    private var lastSent: Int64 = -1
    private var lastReceived: Int64 = -1
    /// The status of the response being received (curl's `CURLINFO_RESPONSE_CODE`, 0 before
    /// its head has arrived).
    var statusCode: () -> Int = { 0 }

    init(_ report: @escaping Report) {
        self.report = report
    }

    /// Reports the counts if either has changed; a total of 0 or less means "unknown".
    func update(sent: Int64, received: Int64, expectedToReceive: Int64) {
        guard sent != lastSent || received != lastReceived else { return }
        lastSent = sent
        lastReceived = received
        let status = statusCode()
        report(
            TransferReport(
                sent: sent,
                received: received,
                expectedToReceive: expectedToReceive > 0 ? expectedToReceive : nil,
                statusCode: status > 0 ? status : nil
            ))
    }
}
