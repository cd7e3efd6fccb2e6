import Foundation
import Synchronization

/// The tests and suites skipped for want of a ``TestTool``, printed when the test process
/// exits, after Swift Testing's own summary: how many were skipped, for which tools, and
/// the one line that installs everything missing.
///
/// ```text
/// Kringle: 7 tests and suites skipped (listed above) because a program is missing: nginx (apt-get install -y nginx-light): 4; …
/// Kringle: to run them all, as .ci/run does: apt-get install -y nginx-light tinyproxy-bin && python3 -m pip install haralyzer
/// ```
final class SkipReport: Sendable {
    static let shared = SkipReport()

    private struct Skips {
        var total = 0
        /// Per tool name.
        var counts: [String: Int] = [:]
        var tools: [String: TestTool] = [:]
    }

    private let skips = Mutex(Skips())

    private init() {
        atexit { SkipReport.shared.print() }
    }

    /// Counts one test or suite skipped because `tools` are missing.
    func skipped(for tools: [TestTool]) {
        skips.withLock { skips in
            skips.total += 1
            for tool in tools {
                skips.counts[tool.name, default: 0] += 1
                skips.tools[tool.name] = tool
            }
        }
    }

    /// Writes the summary to standard error, or nothing when nothing was skipped.
    private func print() {
        let skips = skips.withLock { $0 }
        guard skips.total > 0 else { return }
        let tools = skips.tools.values.sorted { $0.name < $1.name }
        let perTool = tools.map { "\($0): \(skips.counts[$0.name] ?? 0)" }
        let install = TestTool.Package.installCommand(for: tools.map(\.package))
        let summary = """
            Kringle: \(skips.total) tests and suites skipped (listed above) because a program is missing: \
            \(perTool.joined(separator: "; ")).
            Kringle: to run them all, as .ci/run does: \(install)

            """
        FileHandle.standardError.write(Data(summary.utf8))
    }
}
