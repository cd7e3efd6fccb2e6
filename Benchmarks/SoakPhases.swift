import Foundation
import Kringle
import KringleURLSession

/// The soak's phases over one transport: (a) faults, (b) retries, (c) an outage, each with
/// ``SoakLoops`` through the ``ChaosProxy``, then (d) fan-outs straight to nginx (see
/// ``SoakFanOuts``).
struct SoakPhases {
    let options: SoakOptions
    /// `curl` or `urlsession`.
    let transportName: String
    let proxy: ChaosProxy
    /// The JSON document through the proxy.
    let proxied: BenchmarkEndpoint
    /// The same document from nginx itself.
    let direct: BenchmarkEndpoint

    /// Runs the phases in turn, handing each one's result to `report` as soon as it is done.
    func run(report: (SoakPhaseResult) -> Void) throws {
        report(try faults())
        report(try retries())
        report(try outage())
        report(fanOuts())
    }

    /// (a) 22% of responses spoiled, `timeout = 2`, no retries: every request settles once,
    /// by the time limit (plus the margin), with a typed error if it fails.
    func faults() throws -> SoakPhaseResult {
        let (result, _) = try loopPhase(
            "faults", "\(describeLoops(options.faultSeconds)), no retries", client: client(retrying: false),
            seconds: options.faultSeconds, bound: options.settleBound)
        return result
    }

    /// (b) The same faults with `RetryPolicy` and `maxRetryCount = 3`: nearly every GET
    /// should succeed.
    func retries() throws -> SoakPhaseResult {
        var (result, _) = try loopPhase(
            "retries", "\(describeLoops(options.retrySeconds)), \(describeRetries)", client: client(retrying: true),
            seconds: options.retrySeconds, bound: options.retrySettleBound)
        result.target(
            String(format: "%.2f%% of GETs succeed with retries (target ≥ 99%%)", result.tally.successRate * 100),
            met: result.tally.successRate >= 0.99)
        return result
    }

    /// (c) The faults and retries of (b), and an outage in the middle: every connection
    /// reset, and every new one, for 3 s. Reports how soon a request succeeds after it.
    func outage() throws -> SoakPhaseResult {
        let seconds = options.outagePhaseSeconds
        let before = (seconds - options.outageSeconds) / 2
        var outageStart: UInt64 = 0
        var (result, recorder) = try loopPhase(
            "outage",
            "\(describeLoops(seconds)), \(describeRetries), a \(Int(options.outageSeconds)) s outage after "
                + String(format: "%.1f s", before),
            client: client(retrying: true), seconds: seconds, bound: options.retrySettleBound
        ) { _ in
            Thread.sleep(forTimeInterval: before)
            outageStart = DispatchTime.now().uptimeNanoseconds
            try proxy.command("outage \(options.outageSeconds)")
            Thread.sleep(forTimeInterval: seconds - before)
        }
        let outageEnd = outageStart + UInt64(options.outageSeconds * 1e9)
        let during = recorder.successes(between: outageStart + 50_000_000, and: outageEnd)
        if let recovered = recorder.firstSuccess(after: outageEnd) {
            let recovery = Double(recovered - outageEnd) / 1e9
            result.lines.append(String(format: "first success %.3f s after the outage ended", recovery))
            result.target(String(format: "recovery %.2f s (target ≤ 1 s)", recovery), met: recovery <= 1)
        } else {
            result.target("no request succeeded after the outage (target: recovery ≤ 1 s)", met: false)
        }
        result.lines.append("\(during) successes during the outage (the proxy reset every connection)")
        return result
    }

    /// (d) `Promise.all` over many GETs to one host, without faults.
    func fanOuts() -> SoakPhaseResult {
        SoakFanOuts(options: options, transportName: transportName, endpoint: direct, transport: makeTransport())
            .run()
    }

    /// Runs ``SoakLoops`` through the proxy with faults on for `seconds` (or while `during`
    /// runs), then collects what they saw.
    private func loopPhase(
        _ name: String, _ heading: String, client: NetworkClient, seconds: Double, bound: Double,
        during: (SoakRecorder) throws -> Void = { _ in }
    ) throws -> (SoakPhaseResult, SoakRecorder) {
        // The same fault sequence in every phase and every run.
        for command in ["seed \(options.seed)", "rate \(options.faultRate)", "reset-stats", "faults on"] {
            try proxy.command(command)
        }
        let recorder = SoakRecorder()
        let sampler = ProcessSampler()
        let loops = SoakLoops(
            count: options.loops, client: client, endpoint: proxied, as: Overhead.Item.self, recorder: recorder)
        let start = Date()
        try during(recorder)
        let remaining = seconds - Date().timeIntervalSince(start)
        if remaining > 0 { Thread.sleep(forTimeInterval: remaining) }
        _ = loops.stop(waitingAtMost: options.drainSeconds)
        let tally = recorder.settledTally(bound: bound)
        let peaks = sampler.stop()
        try proxy.command("faults off")
        let statistics = try proxy.statistics()
        var result = SoakPhaseResult(
            transport: transportName, phase: name, heading: heading, tally: tally, peaks: peaks)
        result.bound = bound
        result.seconds = Date().timeIntervalSince(start)
        result.lines.append("proxy: \(statistics.line)")
        result.checkSettlements(options)
        return (result, recorder)
    }

    private func describeLoops(_ seconds: Double) -> String {
        "\(options.loops) loops (half await, half wait()) for \(Int(seconds)) s, "
            + "\(Int(options.faultRate * 100))% spoiled, timeout \(Int(options.timeout)) s"
    }

    private var describeRetries: String {
        "RetryPolicy(baseDelay: \(options.retryBaseDelay), maximumDelay: \(options.retryMaximumDelay)), "
            + "maxRetryCount \(options.maxRetryCount)"
    }

    private func client(retrying: Bool) -> NetworkClient {
        var configuration = NetworkClient.Configuration()
        configuration.timeout = options.timeout
        if retrying {
            configuration.interceptors = [
                RetryPolicy(baseDelay: options.retryBaseDelay, maximumDelay: options.retryMaximumDelay)
            ]
            configuration.maxRetryCount = options.maxRetryCount
        }
        return NetworkClient(configuration: configuration, transport: makeTransport())
    }

    private func makeTransport() -> any Transport {
        transportName == "curl" ? CurlTransport() : URLSessionTransport()
    }
}
