import Foundation

/// What one phase over one transport found: its counts, its peaks, its broken promises
/// (which fail the run) and its targets (reported, met or not).
struct SoakPhaseResult {
    var transport: String
    var phase: String
    var heading: String
    /// The phase's wall time, waiting for the last requests included.
    var seconds = 0.0
    var tally = SoakTally()
    var peaks = ProcessStatus()
    /// The latest a request may settle, in seconds from its call (infinite: no bound).
    var bound = Double.infinity
    var lines: [String] = []
    /// Broken promises, each a sentence.
    var failures: [String] = []
    var targets: [(text: String, met: Bool)] = []

    mutating func target(_ text: String, met: Bool) {
        targets.append((text, met))
    }

    /// Adds a failure for every broken promise in ``tally`` and ``peaks``: a settlement later
    /// than ``bound``, a request never settled or settled twice, an untyped error, too many
    /// descriptors.
    mutating func checkSettlements(_ options: SoakOptions) {
        if tally.late > 0 {
            failures.append(
                String(
                    format: "%d of %d requests settled later than %.2f s after the call (slowest %.3f s)", tally.late,
                    tally.requests, bound, tally.slowest))
        }
        if tally.neverSettled > 0 {
            failures.append("\(tally.neverSettled) requests never settled (no result for the caller)")
        }
        if tally.handlerNeverRan > 0 {
            failures.append("\(tally.handlerNeverRan) requests whose promise's handler never ran")
        }
        if tally.settledTwice > 0 {
            failures.append("\(tally.settledTwice) requests whose promise's handler ran more than once")
        }
        if !tally.untypedKinds.isEmpty {
            let count = tally.untypedKinds.reduce(0) { $0 + (tally.errorKinds[$1] ?? 0) }
            failures.append("\(count) untyped errors: " + tally.untypedKinds.sorted().joined(separator: "; "))
        }
        if peaks.descriptors > options.descriptorBound {
            failures.append("\(peaks.descriptors) open descriptors at the peak (bound \(options.descriptorBound))")
        }
    }

    /// The phase's section of the report.
    func print(_ options: SoakOptions) {
        Swift.print("\n### \(transport) · \(phase)\n\(heading)", String(format: "(%.1f s in all)\n", seconds))
        Swift.print(
            String(
                format: "- requests %d, succeeded %d (%.2f%%); never settled %d, handler not run %d, settled twice %d",
                tally.requests, tally.successes, tally.successRate * 100, tally.neverSettled, tally.handlerNeverRan,
                tally.settledTwice))
        if !tally.errorKinds.isEmpty {
            let kinds = tally.errorKinds.sorted { $0.value > $1.value }.map { "\($0.value) \($0.key)" }
            Swift.print("- errors: " + kinds.joined(separator: ", "))
        }
        if bound.isFinite {
            Swift.print(
                String(
                    format: "- slowest settle %.3f s (timeout %.0f s; bound %.2f s): %d later than the bound",
                    tally.slowest, options.timeout, bound, tally.late))
        }
        Swift.print(
            String(
                format: "- peaks: %d descriptors, %d threads, RSS %.1f MB", peaks.descriptors, peaks.threads,
                Double(peaks.residentKB) / 1024))
        for line in lines { Swift.print("- \(line)") }
        for target in targets { Swift.print("- \(target.met ? "target met" : "TARGET MISSED"): \(target.text)") }
        for failure in failures { Swift.print("- BROKEN PROMISE: \(failure)") }
        fflush(nil)  // every stream: the output may be a pipe
    }
}

/// The table of every phase, the targets missed, and the verdict.
enum SoakReport {
    /// Prints the summary; returns whether no promise was broken.
    static func summarize(_ results: [SoakPhaseResult], options: SoakOptions, seconds: Double) -> Bool {
        print("\n## Soak summary (\(options.short ? "short" : "full") form, \(Int(seconds.rounded())) s)\n")
        let table = Table(
            "transport", "phase", "requests", "succeeded", "errors", "slowest settle", "never / twice",
            "untyped", "fds peak", "threads peak", "RSS peak")
        for result in results {
            let tally = result.tally
            table.row(
                result.transport, result.phase, "\(tally.requests)",
                String(format: "%.2f%%", tally.successRate * 100),
                "\(tally.requests - tally.successes - tally.neverSettled)",
                result.bound.isFinite ? String(format: "%.3f s (≤ %.2f)", tally.slowest, result.bound) : "–",
                "\(tally.neverSettled + tally.handlerNeverRan) / \(tally.settledTwice)",
                "\(tally.untypedKinds.reduce(0) { $0 + (tally.errorKinds[$1] ?? 0) })",
                "\(result.peaks.descriptors)", "\(result.peaks.threads)",
                String(format: "%.1f MB", Double(result.peaks.residentKB) / 1024))
        }
        let missed = results.flatMap { result in
            result.targets.filter { !$0.met }.map { "\(result.transport) \(result.phase): \($0.text)" }
        }
        if !missed.isEmpty {
            print("\nTargets missed (reported, not failing):")
            for target in missed { print("- \(target)") }
        }
        let broken = results.flatMap { result in result.failures.map { "\(result.transport) \(result.phase): \($0)" } }
        if broken.isEmpty {
            print("\nSOAK PASSED: every promise kept.")
            return true
        }
        print("\nSOAK FAILED: \(broken.count) broken promise\(broken.count == 1 ? "" : "s"):")
        for failure in broken { print("- \(failure)") }
        return false
    }
}
