import CCurlShim
import Foundation
@_spi(KringleInternals) import KringlePromise

/// Who drives a ``CurlEngine``, and the watch that replaces a driving thread the promises'
/// handlers have held too long.
///
/// The driving thread settles the promises of the transfers that finished, then runs the
/// promise jobs they set off on ``Dispatch/DispatchQueue/promises`` itself (the client's
/// decode, your `done`; for bodies up to ``Settlement/largestLightBody``) before it goes back
/// to libcurl: it is lent to the promises' queue, as a thread blocked in `wait()` is. A
/// sequential caller's next request then starts from the thread that will send it, without a
/// hand-off to a worker and back, which cost two of the three context switches a request
/// made above libcurl alone (issue 43).
///
/// A handler may block or take long, though: wait on a semaphore that another response
/// signals, call `wait()`, decode a large body. So a lending that lasts a whole tick of the
/// watch (``tick``) loses the seat: the watch starts a new driving thread, and the lent one,
/// once its jobs return, ends instead of driving on. No transfer then waits more than about
/// two ticks for a handler, and a handler may block on the transport it runs on. The same
/// goes for the other responses of the batch: their follow-up waits aside while one
/// handler runs (``/KringlePromise/LentJobs``), and the watch sends it to the promises'
/// queue when it takes the seat.
final class DrivingSeat: Sendable {
    /// How long a lending may last before the seat goes to a new thread: 2 ms, or the
    /// milliseconds `KRINGLE_DRIVING_SEAT_TICK_MS` names. Scripts/speed-guard.sh names a
    /// second: under callgrind a program runs some fifty times slower, and a 2 ms tick would
    /// move the seat (and start threads) in the middle of its count.
    static let tick: Duration = {
        let named = ProcessInfo.processInfo.environment["KRINGLE_DRIVING_SEAT_TICK_MS"].flatMap(Int.init)
        return .milliseconds(named.map { max(1, $0) } ?? 2)
    }()

    private struct State {
        /// Whether the driving thread is running promise jobs.
        var isLent = false
        /// Where the current lending's jobs wait while a handler runs, for the watch to send
        /// to the queue when it takes the seat.
        var lentJobs: LentJobs?
        /// Counts lendings, so that the watch tells one long lending from two short ones.
        var lendings: UInt64 = 0
        /// The lendings during which the watch gave the seat to a new thread, until their
        /// threads learn it (a new thread may be lent, and lose the seat, before they do).
        var taken: Set<UInt64> = []
        /// Whether the watch is parked until the next lending, and must be woken for it.
        var watchIsParked = false
        /// Whether the watch runs at all (it starts with the first lending).
        var watchIsRunning = false
        /// Set when the engine has stopped: the watch ends.
        var isClosed = false
        /// Starts a new driving thread; dropped when closed (it holds the engine).
        var startDriver: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    private let watchWakeUp = DispatchSemaphore(value: 0)

    /// Says how to start a new driving thread, before the first lending.
    func prepare(startDriver: @escaping @Sendable () -> Void) {
        state.withLock { $0.startDriver = startDriver }
        // Read now, with the environment, rather than during the first lending, which may
        // come in the middle of a request.
        _ = Self.tickSeconds
    }

    /// Announces that the driving thread is about to run promise jobs, setting them aside in
    /// `lentJobs` while a handler runs, and returns the lending's number for
    /// ``endLending(_:)``.
    func beginLending(settingAsideIn lentJobs: LentJobs?) -> UInt64 {
        let (lending, wake, start) = state.withLock { state -> (UInt64, Bool, Bool) in
            state.isLent = true
            state.lentJobs = lentJobs
            state.lendings &+= 1
            let wake = state.watchIsParked
            state.watchIsParked = false
            let start = !state.watchIsRunning
            state.watchIsRunning = true
            return (state.lendings, wake, start)
        }
        if wake { watchWakeUp.signal() }
        if start { startWatch() }
        return lending
    }

    /// Ends a lending; `false` when the seat went to another thread meanwhile, and the
    /// calling thread must stop driving.
    func endLending(_ lending: UInt64) -> Bool {
        state.withLock { state in
            if state.taken.remove(lending) != nil { return false }
            state.isLent = false
            state.lentJobs = nil
            return true
        }
    }

    /// Stops the watch: the engine's driving has ended.
    func close() {
        let wake = state.withLock { state -> Bool in
            state.isClosed = true
            state.startDriver = nil
            defer { state.watchIsParked = false }
            return state.watchIsParked
        }
        if wake { watchWakeUp.signal() }
    }

    /// A thread that checks, once a tick, whether the same lending is still going on. It
    /// parks only after a tick without any lending, so that an idle transport costs nothing
    /// and a busy one wakes it once a tick, not once a lending.
    private func startWatch() {
        let watch = Thread { [self] in
            kcurl_name_current_thread("kringle.curl.watch")
            var seen: UInt64 = 0
            while let (lending, isLent) = nextCheck(after: seen) {
                Thread.sleep(forTimeInterval: Self.tickSeconds)
                if isLent, let (startDriver, lentJobs) = takeSeat(ifStill: lending) {
                    // Released first: what the lent thread set aside goes to the queue now,
                    // and its later handlers set nothing aside.
                    lentJobs?.release()
                    startDriver()
                }
                seen = lending
            }
        }
        watch.start()
    }

    private static let tickSeconds = Double(tick.components.seconds) + Double(tick.components.attoseconds) / 1e18

    /// The latest lending's number and whether it is going on, parked first while there has
    /// been none since `seen`; `nil` once closed.
    private func nextCheck(after seen: UInt64) -> (lending: UInt64, isLent: Bool)? {
        while true {
            let (check, park) = state.withLock { state -> ((UInt64, Bool)?, Bool) in
                if state.isClosed { return (nil, false) }
                if state.isLent || state.lendings != seen { return ((state.lendings, state.isLent), false) }
                state.watchIsParked = true
                return (nil, true)
            }
            guard park else { return check }
            watchWakeUp.wait()
        }
    }

    /// Takes the seat from the lent thread if `lending` is still going on, and returns what
    /// starts the new driving thread and where the lent one sets jobs aside.
    private func takeSeat(ifStill lending: UInt64) -> (@Sendable () -> Void, LentJobs?)? {
        state.withLock { state in
            guard state.isLent, state.lendings == lending, let startDriver = state.startDriver else { return nil }
            state.taken.insert(lending)
            // The new thread is not lent; the lent one learns it lost the seat at its end.
            state.isLent = false
            defer { state.lentJobs = nil }
            return (startDriver, state.lentJobs)
        }
    }
}
