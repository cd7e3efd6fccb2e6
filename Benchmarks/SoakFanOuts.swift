import Foundation
import Kringle

/// (d) A script's fan-outs: `Promise.all` over `smallFanOut` GETs to one host, many times in a
/// row (the slowest must stay under 2 s); then `largeFanOut` GETs a few times in a row, the
/// first with its peak memory and descriptors, each followed by the resident memory (which
/// should not ratchet up). Straight to nginx, without faults, with the default configuration.
struct SoakFanOuts {
    let options: SoakOptions
    let transportName: String
    let endpoint: BenchmarkEndpoint
    let transport: any Transport

    /// How long a fan-out may take before it counts as never settled.
    private var giveUp: Double { options.short ? 15 : 30 }

    func run() -> SoakPhaseResult {
        let start = Date()
        let client = NetworkClient(transport: transport)
        let sampler = ProcessSampler()
        let recorder = SoakRecorder()
        var result = SoakPhaseResult(
            transport: transportName, phase: "fan-outs",
            heading: "Promise.all over \(options.smallFanOut) GETs × \(options.smallFanOutRounds), then over "
                + "\(options.largeFanOut) GETs × \(options.largeFanOutRounds), nginx without the proxy")

        var times: [Double] = []
        for round in 0..<options.smallFanOutRounds {
            let seconds = fanOut(client, count: options.smallFanOut, recorder: recorder, result: &result)
            times.append(seconds)
            if seconds > options.fanOutBound, options.short {
                result.lines.append("stopped after round \(round + 1) of \(options.smallFanOutRounds): it failed")
                break
            }
        }
        let sorted = times.sorted()
        let slow = times.count { $0 > options.fanOutBound }
        result.lines.append(
            String(
                format: "%d × %d GETs: median %.3f s, slowest %.3f s; %d slower than %.0f s", times.count,
                options.smallFanOut, sorted[sorted.count / 2], sorted.last ?? 0, slow, options.fanOutBound))
        if slow > 0 {
            result.failures.append(
                String(
                    format: "%d of %d fan-outs of %d GETs took longer than %.0f s (slowest %.2f s)", slow, times.count,
                    options.smallFanOut, options.fanOutBound, sorted.last ?? 0))
        }
        result.target(
            String(format: "slowest fan-out of %d: %.3f s (target ≤ 1 s)", options.smallFanOut, sorted.last ?? 0),
            met: (sorted.last ?? 0) <= 1)

        var residentAfter: [Int] = []
        for round in 0..<options.largeFanOutRounds {
            if round == 0 {
                let peaks = measuredFanOut(client, recorder: recorder, result: &result)
                result.lines.append(peaks.line(count: options.largeFanOut))
                result.target(
                    String(
                        format: "peak RSS growth of a %d-GET fan-out %.1f MB (target ≤ 16 MB)", options.largeFanOut,
                        peaks.growthMB), met: peaks.growthMB <= 16)
            } else {
                _ = fanOut(client, count: options.largeFanOut, recorder: recorder, result: &result)
            }
            residentAfter.append(ProcessStatus.now().residentKB)
        }
        if residentAfter.count > 1 {
            let ratchet = Double((residentAfter.last ?? 0) - (residentAfter.first ?? 0)) / 1024
            result.lines.append(
                "RSS after each \(options.largeFanOut)-GET fan-out: "
                    + residentAfter.map { String(format: "%.1f", Double($0) / 1024) }.joined(separator: " → ") + " MB")
            result.target(
                String(format: "RSS after the last large fan-out %+.1f MB from the first (target ≤ +8 MB)", ratchet),
                met: ratchet <= 8)
        }

        result.tally = recorder.settledTally(bound: .infinity)
        result.peaks = sampler.stop()
        result.seconds = Date().timeIntervalSince(start)
        result.checkSettlements(options)
        return result
    }

    /// One fan-out of `count` GETs; returns its wall time. The fan-out is recorded as one
    /// request, from the first call to `Promise.all`'s settlement; one that has not settled
    /// after `giveUp` seconds is cancelled and counted as a failure in `result`.
    private func fanOut(
        _ client: NetworkClient, count: Int, recorder: SoakRecorder, result: inout SoakPhaseResult
    ) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let promises = (0..<count).map { _ in client.get(endpoint, as: Overhead.Item.self) }
        recorder.record({ Promise.all(promises) }, call: { try $0.wait(timeout: giveUp) })
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if seconds >= giveUp {
            for promise in promises { promise.cancel() }
            result.failures.append(String(format: "a fan-out of %d GETs had not settled after %.0f s", count, giveUp))
        }
        return seconds
    }

    /// What one large fan-out held at its peak.
    private struct Peaks {
        var seconds: Double
        var growthMB: Double
        var status: ProcessStatus

        func line(count: Int) -> String {
            String(
                format: "a fan-out of %d GETs: %.3f s, peak RSS +%.1f MB (VmHWM over VmRSS before), "
                    + "peaks: %d descriptors, %d threads", count, seconds, growthMB, status.descriptors,
                status.threads)
        }
    }

    /// A large fan-out with `VmHWM` restarted before it and the process sampled every 10 ms.
    private func measuredFanOut(
        _ client: NetworkClient, recorder: SoakRecorder, result: inout SoakPhaseResult
    ) -> Peaks {
        let hasPeak = ProcessStatus.resetPeak()
        let before = ProcessStatus.now().residentKB
        let sampler = ProcessSampler(every: 0.01)
        let seconds = fanOut(client, count: options.largeFanOut, recorder: recorder, result: &result)
        var status = sampler.stop()
        if !hasPeak { status.peakResidentKB = status.residentKB }  // sampled only
        let growth = Double(status.peakResidentKB - before) / 1024
        return Peaks(seconds: seconds, growthMB: growth, status: status)
    }
}
