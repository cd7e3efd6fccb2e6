import Foundation

/// The parameters of one `kringle-benchmarks soak` run: the full form by default, the short
/// form (for CI, about a minute for both transports) with `--short`.
struct SoakOptions {
    /// Whether this is the short form.
    var short = false
    /// `curl`, `urlsession`, or both.
    var transports = ["curl", "urlsession"]
    /// How long each loop phase (faults, retries) runs; the outage phase runs at least 6 s.
    var loopSeconds: Double?
    /// How much later than `timeout` a settlement may come before it counts as broken.
    var margin = 0.25
    /// The proxy's first fault seed; every phase restarts the fault sequence from it.
    var seed = 1

    /// The client's time limit in the loop phases.
    let timeout: TimeInterval = 2
    /// The share of responses the proxy spoils.
    let faultRate = 0.22
    /// Loops making requests at once: half `await …value`, half `wait()` from threads.
    let loops = 64
    /// How long the outage lasts.
    let outageSeconds: Double = 3
    /// The retry policy's configuration in the retries and outage phases.
    let maxRetryCount = 3
    let retryBaseDelay = 0.01
    let retryMaximumDelay = 0.1
    /// Requests in the fan-outs.
    let smallFanOut = 1_000
    let largeFanOut = 5_000
    /// A fan-out slower than this is a broken promise.
    let fanOutBound: Double = 2
    /// Open descriptors of this process above this are a broken promise.
    let descriptorBound = 256

    var faultSeconds: Double { loopSeconds ?? (short ? 4 : 60) }
    var retrySeconds: Double { loopSeconds ?? (short ? 3 : 60) }
    /// The outage in the middle, with time before it and after it for the recovery.
    var outagePhaseSeconds: Double { max(loopSeconds ?? (short ? 5 : 15), outageSeconds + 2) }
    /// Fan-outs of `smallFanOut` GETs in a row.
    var smallFanOutRounds: Int { short ? 10 : 200 }
    /// Fan-outs of `largeFanOut` GETs in a row: the first one's peak RSS is measured, the
    /// resident memory after each is the ratchet check (the full form only: on URLSession a
    /// fan-out of 5,000 takes about 4 s).
    var largeFanOutRounds: Int { short ? 1 : 5 }

    /// How long a loop phase waits, after it stops starting requests, for those under way,
    /// before it counts the rest as never settled.
    var drainSeconds: Double { Double(maxRetryCount + 1) * (timeout + retryMaximumDelay) + 5 }

    /// The latest a request of the faults phase may settle.
    var settleBound: Double { timeout + margin }
    /// The latest a request with retries may settle: every attempt to its time limit,
    /// every backoff at its longest.
    var retrySettleBound: Double {
        Double(maxRetryCount + 1) * timeout + Double(maxRetryCount) * retryMaximumDelay + margin
    }

    static let usage =
        "usage: kringle-benchmarks soak [--short] [--transport curl|urlsession|both] [--seconds N] [--margin S] [--seed N]"

    /// Bad arguments.
    struct Usage: Error, CustomStringConvertible {
        var description: String { SoakOptions.usage }
    }

    init(_ arguments: [String]) throws {
        var remaining = arguments[...]
        func value() throws -> String {
            guard let next = remaining.popFirst() else { throw Usage() }
            return next
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--short":
                short = true
            case "--transport":
                switch try value() {
                case "curl": transports = ["curl"]
                case "urlsession": transports = ["urlsession"]
                case "both": transports = ["curl", "urlsession"]
                default: throw Usage()
                }
            case "--seconds":
                guard let seconds = Double(try value()), seconds > 0 else { throw Usage() }
                loopSeconds = seconds
            case "--margin":
                guard let margin = Double(try value()), margin >= 0 else { throw Usage() }
                self.margin = margin
            case "--seed":
                guard let seed = Int(try value()) else { throw Usage() }
                self.seed = seed
            default:
                throw Usage()
            }
        }
    }
}
