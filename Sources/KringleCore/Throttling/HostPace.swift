import Foundation
@_spi(KringleInternals) import KringlePromise

/// One host's state in a ``HostThrottle``, times in nanoseconds on the client's clock.
///
/// The pace is the Generic Cell Rate Algorithm (ITU-T I.371's virtual scheduling, a token
/// bucket in one number): each request is given the slot `spacing` after the one before,
/// and may go up to `tolerance` ahead of its slot, which is what lets a burst through.
struct HostPace: Sendable {
    /// The theoretical time of the next request's slot.
    var nextSlot: UInt64 = 0
    /// No request goes before this: a pause the host asked for.
    var pausedUntil: UInt64 = 0
    /// The spacing the host's quota policy asks for; zero when it names none.
    var learnedSpacing: UInt64 = 0
    /// Whether the host has answered (or failed to) once: until then only its first
    /// request goes, and ``waiting`` holds the others.
    var answered = false
    /// Whether the first request is out.
    var probing = false
    /// The calls that wait for the first answer, each released once it comes.
    var waiting: [Promise<Void>] = []
    /// When a request last asked for a slot, to forget the quietest host first.
    var lastUsed: UInt64 = 0

    /// When a request asking at `now` may go, with its slot taken; for `spacing` and
    /// `tolerance` from the throttle's rate and the host's policy.
    mutating func take(now: UInt64, spacing: UInt64, tolerance: UInt64) -> UInt64 {
        lastUsed = now
        let earliest = max(now, pausedUntil)
        guard spacing > 0 else { return earliest }
        let start = max(earliest, nextSlot > tolerance ? nextSlot - tolerance : 0)
        nextSlot = max(nextSlot, start) + spacing
        return start
    }
}
