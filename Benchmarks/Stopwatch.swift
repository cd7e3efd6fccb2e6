import Foundation

/// Wall-clock and CPU time of one piece of work.
struct Timing {
    var wall: Double
    var cpu: Double

    /// Measures `body` once.
    static func of(_ body: () throws -> Void) rethrows -> Timing {
        let cpuStart = processCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Timing(wall: wall, cpu: processCPUSeconds() - cpuStart)
    }

    /// Runs `baseline` and `candidate` alternately `rounds` times and keeps each one's
    /// median, so that a noisy neighbour on the machine hurts both sides alike.
    static func compare(rounds: Int = 5, baseline: () throws -> Void, candidate: () throws -> Void) rethrows
        -> (baseline: Timing, candidate: Timing)
    {
        var baselines: [Timing] = []
        var candidates: [Timing] = []
        for _ in 0..<rounds {
            baselines.append(try of(baseline))
            candidates.append(try of(candidate))
        }
        return (median(baselines), median(candidates))
    }

    private static func median(_ timings: [Timing]) -> Timing {
        let walls = timings.map(\.wall).sorted()
        let cpus = timings.map(\.cpu).sorted()
        return Timing(wall: walls[walls.count / 2], cpu: cpus[cpus.count / 2])
    }
}

private func resourceUsage() -> rusage {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    #else
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #endif
    return usage
}

/// User plus system CPU seconds this process has used.
func processCPUSeconds() -> Double {
    let usage = resourceUsage()
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// Context switches of this process's threads so far, voluntary (a thread blocked: waiting for
/// a wake-up, a lock, the network) and involuntary (preempted).
func processContextSwitches() -> Int {
    let usage = resourceUsage()
    return Int(usage.ru_nvcsw + usage.ru_nivcsw)
}

/// The peak resident set size of this process so far, in megabytes.
func peakResidentMegabytes() -> Double {
    let usage = resourceUsage()
    #if canImport(Darwin)
    return Double(usage.ru_maxrss) / 1_048_576
    #else
    return Double(usage.ru_maxrss) / 1024
    #endif
}

/// A Markdown table, printed as rows arrive.
struct Table {
    let columns: [String]

    init(_ columns: String...) {
        self.columns = columns
        print("| " + columns.joined(separator: " | ") + " |")
        print("|" + columns.map { _ in "---" }.joined(separator: "|") + "|")
    }

    func row(_ cells: String...) {
        print("| " + cells.joined(separator: " | ") + " |")
    }
}

func milliseconds(_ seconds: Double) -> String {
    String(format: "%.1f ms", seconds * 1000)
}

func ratio(_ candidate: Double, _ baseline: Double) -> String {
    String(format: "%.2fx", candidate / baseline)
}
