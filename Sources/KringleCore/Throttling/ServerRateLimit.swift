import Foundation

/// What a response says of how fast its host may be called: a pause (a `429` or `503` with
/// `Retry-After`, RFC 9110 §10.2.3 and RFC 6585 §4; or `RateLimit` fields saying no quota
/// remains) and a pace (the quota policy's requests per window).
///
/// The fields are those of draft-ietf-httpapi-ratelimit-headers: `RateLimit` (a list of
/// policies, each with `r`, the quota remaining, and `t`, seconds until it resets) and
/// `RateLimit-Policy` (each with `q`, the quota, and `w`, its window in seconds), as in
/// `RateLimit: "default";r=0;t=5`; and the forms of its earlier drafts, still common:
/// `RateLimit: limit=100, remaining=0, reset=5`, `RateLimit-Remaining: 0` with
/// `RateLimit-Reset: 5`, and `RateLimit-Policy: 100;w=60`. Values that are not
/// non-negative integers are ignored, as the drafts ask. `X-RateLimit-*` fields are not
/// read: their `Reset` is seconds on some servers and a Unix time on others.
struct ServerRateLimit: Equatable, Sendable {
    /// Seconds the host asks not to be called for; `nil` when it asks for no pause.
    var pause: TimeInterval?
    /// Seconds between requests the strictest quota policy allows (its window over its
    /// quota); `nil` when the response names no policy.
    var interval: TimeInterval?

    /// What `status` and `headers` say, `now` being the time for an HTTP-date `Retry-After`.
    init(status: Int, headers: HTTPHeaders, now: Date) {
        var pause: TimeInterval?
        if status == 429 || status == 503, let wait = RetryAfter.seconds(headers["Retry-After"], now: now) {
            pause = wait
        }
        var policies = headers.values(for: "RateLimit").flatMap(StructuredList.members(of:))
        if let remaining = headers["RateLimit-Remaining"] {
            var legacy = ["remaining": remaining]
            legacy["reset"] = headers["RateLimit-Reset"]
            policies.append(StructuredList.Member(value: nil, parameters: legacy))
        }
        if let reset = Self.exhaustedReset(of: policies) {
            pause = max(pause ?? 0, reset)
        }
        self.pause = pause
        interval = headers.values(for: "RateLimit-Policy").flatMap(StructuredList.members(of:))
            .compactMap(Self.interval(of:)).max()
    }

    /// The seconds until the quota resets, when a policy has none remaining: that
    /// policy's reset, else the longest reset the field names (the earlier drafts' form
    /// puts it in a member of its own).
    private static func exhaustedReset(of policies: [StructuredList.Member]) -> TimeInterval? {
        let exhausted = policies.filter { integer($0.parameter("r", "remaining")) == 0 }
        guard !exhausted.isEmpty else { return nil }
        let resets = exhausted.compactMap { integer($0.parameter("t", "reset")) }
        let any = policies.compactMap { integer($0.parameter("t", "reset")) }
        return (resets.max() ?? any.max()).map(TimeInterval.init)
    }

    /// A policy's window over its quota: `q` and `w`, or the earlier drafts' bare quota.
    private static func interval(of policy: StructuredList.Member) -> TimeInterval? {
        guard let quota = integer(policy.parameter("q") ?? policy.value), quota > 0,
            let window = integer(policy.parameter("w")), window > 0
        else { return nil }
        return TimeInterval(window) / TimeInterval(quota)
    }

    /// A non-negative integer, as the drafts' values are; `nil` for anything else.
    private static func integer(_ text: String?) -> Int? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }
}
