import Kringle
import KringleTestSupport
import Testing

@testable import KringleCore

@Suite("TransferProgress")
struct TransferProgressTests {
    @Test(
        "fractionCompleted is completed over total, clamped to 1; 1 for an empty transfer; nil without a total",
        arguments: [
            (0, 100, 0.0),
            (25, 100, 0.25),
            (50, 100, 0.5),
            (100, 100, 1.0),
            (150, 100, 1.0),
            (0, 0, 1.0),
            (52_428_800, 52_428_800, 1.0),
        ] as [(Int64, Int64, Double)])
    func fraction(completed: Int64, total: Int64, fraction: Double) {
        #expect(TransferProgress(completedBytes: completed, totalBytes: total).fractionCompleted == fraction)
    }

    @Test("an unknown total has no fraction")
    func unknownTotal() {
        #expect(TransferProgress(completedBytes: 5, totalBytes: nil).fractionCompleted == nil)
        #expect(TransferProgress(completedBytes: 0, totalBytes: nil).fractionCompleted == nil)
    }
}
