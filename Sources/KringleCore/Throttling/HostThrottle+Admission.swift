import Foundation
@_spi(KringleInternals) import KringlePromise

extension HostThrottle {
    /// When a request may go.
    enum Admission {
        /// Now; `probe` when it is the host's first request, whose answer the others wait for.
        case go(probe: Bool)
        /// After this many seconds, its slot taken.
        case wait(TimeInterval, probe: Bool)
        /// Once the host's first request has its answer: then ask again.
        case waitForFirstAnswer(Promise<Void>)
        /// Not before the call's deadline: it fails now, its turn this many seconds away.
        case refused(wait: TimeInterval)
    }

    /// When a request to `host`, asking at `now` (the client's clock, in nanoseconds), may
    /// go within `deadline`.
    ///
    /// - Parameters:
    ///   - slotTaken: The request waited for the slot it was given, and asks again at it:
    ///     it goes unless a pause began meanwhile.
    ///   - probe: The request is the host's first (asking again after a wait).
    func admit(host: String, now: UInt64, deadline: Deadline?, slotTaken: Bool = false, probe: Bool = false)
        -> Admission
    {
        hosts.withLock { hosts in
            let original = hosts[host] ?? HostPace()
            var pace = original
            if slotTaken, now >= pace.pausedUntil { return .go(probe: probe) }
            var isProbe = probe
            if followsServerLimits, !pace.answered, !probe {
                if pace.probing {
                    let answered = Promise<Void>.pending()
                    pace.waiting.append(answered)
                    hosts[host] = pace
                    return .waitForFirstAnswer(answered)
                }
                pace.probing = true
                isProbe = true
            }
            let at = pace.take(now: now, spacing: spacing(of: pace), tolerance: tolerance(of: pace))
            let wait = TimeInterval(at &- now) / 1e9
            if at > now, let deadline, at >= deadline.uptimeNanoseconds {
                hosts[host] = original
                return .refused(wait: wait)
            }
            hosts[host] = pace
            if hosts.count > Self.maximumHosts { Self.forgetQuietest(&hosts) }
            return at > now ? .wait(wait, probe: isProbe) : .go(probe: isProbe)
        }
    }

    /// Takes in what the host said in a response at `now` (uptime, and date for an HTTP-date
    /// `Retry-After`): a pause, capped at ``maximumPause``, and a pace. Returns the pause it
    /// began, in seconds, if it began one.
    func observe(_ response: HTTPResponse, host: String, now: UInt64, date: Date) -> TimeInterval? {
        guard followsServerLimits else { return nil }
        let limit = ServerRateLimit(status: response.statusCode, headers: response.headers, now: date)
        guard limit.pause != nil || limit.interval != nil else { return nil }
        return hosts.withLock { hosts in
            var pace = hosts[host] ?? HostPace()
            defer { hosts[host] = pace }
            if let interval = limit.interval {
                pace.learnedSpacing = UInt64(min(interval, maximumPause) * 1e9)
            }
            guard let pause = limit.pause.map({ min($0, maximumPause) }), pause > 0 else { return nil }
            let until = now + UInt64(pause * 1e9)
            guard until > pace.pausedUntil else { return nil }
            pace.pausedUntil = until
            return pause
        }
    }

    /// The host's first request has settled, answered or not: the calls waiting for it go
    /// on (each asks again).
    func firstRequestSettled(host: String) {
        let released = hosts.withLock { hosts -> [Promise<Void>] in
            guard var pace = hosts[host], !pace.answered else { return [] }
            pace.answered = true
            pace.probing = false
            defer {
                pace.waiting = []
                hosts[host] = pace
            }
            return pace.waiting
        }
        for waiter in released { waiter.fulfill(()) }
    }

    /// Seconds between requests: the slower of the throttle's rate and the host's policy.
    private func spacing(of pace: HostPace) -> UInt64 {
        max(UInt64((rate?.spacing ?? 0) * 1e9), pace.learnedSpacing)
    }

    /// How far ahead of its slot a request may go: the rate's burst.
    private func tolerance(of pace: HostPace) -> UInt64 {
        guard let rate, rate.burst > 1 else { return 0 }
        return spacing(of: pace) * UInt64(rate.burst - 1)
    }

    /// Forgets the host asked least recently, unless calls wait on it.
    private static func forgetQuietest(_ hosts: inout [String: HostPace]) {
        let idle = hosts.filter { !$0.value.probing }
        guard let quietest = idle.min(by: { $0.value.lastUsed < $1.value.lastUsed }) else { return }
        hosts.removeValue(forKey: quietest.key)
    }
}
