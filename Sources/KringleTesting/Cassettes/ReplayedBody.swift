import Foundation
@_spi(KringleInternals) import KringlePromise

/// Feeds a recorded body to a reader's channel piece by piece: at once, or each piece when
/// its recorded time has come on the clock (``ReplayTransport/Pacing/recorded``); holding
/// back while the channel is full, and stopping when the reader leaves.
final class ReplayedBody: Sendable {
    private let pieces: [(data: Data, time: TimeInterval?)]
    /// What ends the body after the last piece: `nil` for its end, or the recorded failure.
    private let ending: (any Error)?
    private let feeder: ChannelFeeder
    private let pacing: ReplayTransport.Pacing
    private let clock: any KringleClock
    /// The clock's uptime when the request was replayed: recorded times count from here.
    private let started: UInt64
    private let state = Locked(State())

    private struct State: Sendable {
        var next = 0
        var stopped = false
        var timer: ClockTimer?
    }

    init(
        pieces: [(data: Data, time: TimeInterval?)], ending: (any Error)?, to channel: ResponseBodyChannel,
        pacing: ReplayTransport.Pacing, clock: any KringleClock, started: UInt64
    ) {
        self.pieces = pieces
        self.ending = ending
        feeder = ChannelFeeder(channel)
        self.pacing = pacing
        self.clock = clock
        self.started = started
    }

    func start() {
        // Weak: the channel keeps its handler after a normal end, and would keep this.
        feeder.channel.onCancel { [weak self] in self?.stop() }
        feed()
    }

    /// What to do next.
    private enum Step {
        case offer(Data)
        case wait(TimeInterval)
        case finish
        case nothing
    }

    /// Offers pieces until one is held back, one is not due yet, or there are no more.
    private func feed() {
        while true {
            switch nextStep() {
            case .nothing:
                return
            case .finish:
                feeder.finish(throwing: ending)
                return
            case .wait(let seconds):
                let timer = clock.schedule(after: seconds) { self.feed() }
                let late = state.withLock { state -> Bool in
                    state.timer = timer
                    return state.stopped
                }
                if late { clock.cancel(timer) }
                return
            case .offer(let piece):
                guard feeder.offer(piece, whenTakenLater: { self.feed() }) else { return }
            }
        }
    }

    private func nextStep() -> Step {
        state.withLock { state -> Step in
            state.timer = nil
            guard !state.stopped else { return .nothing }
            guard state.next < pieces.count else {
                state.stopped = true
                return .finish
            }
            let piece = pieces[state.next]
            if pacing == .recorded, let time = piece.time {
                let due = started + UInt64(max(0, time) * 1e9)
                let now = clock.uptimeNanoseconds
                if now < due { return .wait(Double(due - now) / 1e9) }
            }
            state.next += 1
            return .offer(piece.data)
        }
    }

    /// The reader left: no more pieces, and no timer left waiting.
    private func stop() {
        let timer = state.withLock { state -> ClockTimer? in
            state.stopped = true
            defer { state.timer = nil }
            return state.timer
        }
        if let timer { clock.cancel(timer) }
        feeder.close()
    }
}
