import CCurlShim
import Foundation
@_spi(KringleInternals) import KringlePromise
import Synchronization

/// The thread-safe face of one curl multi handle and the thread that drives it.
///
/// Any thread may submit or cancel a transfer. A request to an idle engine starts on the
/// submitting thread: that thread takes the ``DrivingLock`` and hands the request to curl
/// itself, which sends it at once and adds its socket to those the sleeping driving thread
/// waits for, with no wake-up. Otherwise, and for every other command, the command goes into
/// a locked inbox and `kcurl_multi_wakeup` interrupts the driving thread's wait. Only the
/// holder of the lock (``CurlDriver``) touches easy handles or calls into the multi handle.
///
/// The driving thread runs while the transport lives, and after that until the last
/// transfer has finished. The multi handle (and the connections it caches) is freed with
/// the engine itself, once neither the transport nor the driving thread holds it; a cancel
/// handler holds it only weakly, and only for the length of one call.
final class CurlEngine: Sendable {
    /// A command for the driving thread.
    enum Command: Sendable {
        case start(CurlSubmission)
        case cancel(UInt64)
        /// A waiting request's time ran out (``CurlAdmission``).
        case expire(UInt64)
        /// Go on with a transfer its body's reader paused.
        case resume(UInt64)
        /// Tell what runs and waits, per host (``CurlTransport/poolStatistics()``).
        case report(Promise<[HostPoolStatistics]>)
        /// A WebSocket's link has bytes to send, may read again, or is to close.
        case webSocket(UInt64)
    }

    struct Inbox {
        var commands: [Command] = []
        /// Set when the transport went away: finish what is running, then exit.
        var isShuttingDown = false
        /// Set by the driving thread when it exits; later commands find no one to run them.
        var isFinished = false
        /// Whether the driving thread is (about to be) blocked in `kcurl_multi_wait`; only
        /// then does a command need a wake-up.
        var driverIsWaiting = false
        /// Whether that wait has been interrupted already: one wake-up per wait is enough.
        var wakeUpSent = false
    }

    let configuration: CurlTransport.Configuration
    /// The configuration's proxy, resolved once (the environment read here, not per request).
    let proxyRoutes: ProxyRoutes
    let multi: MultiHandle
    /// Which thread drives, and the watch that replaces one lent too long to the promises.
    let seat = DrivingSeat()
    /// Held by whoever runs the driver.
    let drivingLock = DrivingLock()
    let driver: DriverReference
    /// Whether a request may start on the thread that submits it: not with poll(), whose
    /// array of descriptors the driving thread reads while it sleeps.
    let startsInline: Bool
    /// How many transfers curl has, as the driver last left them: read without the lock, to
    /// choose whether to wait for it.
    let transferCount = Atomic<Int>(0)
    private let inbox = Locked(Inbox())
    private let nextID = Atomic<UInt64>(1)
    /// WebSocket handshakes, by request, until their links take them.
    private let openings = Locked<[UInt64: WebSocketOpening]>([:])

    /// Creates the multi handle and starts the driving thread.
    ///
    /// - Parameter portableWaiting: waits for the sockets with poll(), as on every platform but
    ///   Linux, rather than epoll, so tests can cover that path here.
    init(configuration: CurlTransport.Configuration, portableWaiting: Bool = false) throws(CurlError) {
        // Every shim function calls through the table kcurl_load fills in.
        try CurlLibrary.load().get()
        guard let pointer = kcurl_multi_create(portableWaiting ? 1 : 0) else {
            throw CurlError(code: CurlError.failedInitialization, message: "curl_multi_init failed")
        }
        self.configuration = configuration
        proxyRoutes = ProxyRoutes(configuration.proxy)
        multi = MultiHandle(pointer: pointer)
        startsInline = kcurl_multi_is_portable(pointer) == 0
        driver = DriverReference()
        applyLimits()
        driver.driver = CurlDriver(engine: self)
        seat.prepare { [self] in startDriving() }
        startDriving()
    }

    /// Starts a thread that drives the transfers with the driver: the first one, or the next
    /// when the seat is taken from a thread lent to the promises' queue for too long.
    private func startDriving() {
        let thread = Thread { [self] in
            kcurl_name_current_thread("kringle.curl")
            driver.driver.run()
        }
        thread.start()
    }

    /// The driver, which the holder of the ``DrivingLock`` runs.
    final class DriverReference: @unchecked Sendable {
        // Unchecked: set once in the engine's init, before any thread can see it; what the
        // driver holds only the lock's holder touches.
        // swift-format-ignore: NeverUseImplicitlyUnwrappedOptionals
        var driver: CurlDriver!
    }

    deinit {
        // The driving thread has exited (it held a reference), so nothing else uses the handle.
        kcurl_multi_destroy(multi.pointer)
    }

    /// How many idle connections a transport without a total limit keeps for reuse.
    static let idleConnectionsKept = 64

    /// Hands a request to the driving thread; cancelling `promise` stops the transfer.
    ///
    /// The plan's deadline (``CurlRequestPlan/deadline``) holds while the request waits for
    /// its turn too; a transfer's limit is on silence instead, which waiting does not break.
    ///
    /// - Parameters:
    ///   - responseBodyFile: where the response body goes instead of memory.
    ///   - responseBodyHandle: a descriptor to write it through instead of opening the file.
    ///   - progress: told the byte counts as they change.
    func submit(
        _ plan: CurlRequestPlan,
        responseBodyFile: URL? = nil,
        responseBodyHandle: FileHandle? = nil,
        progress: ProgressRelay.Report? = nil,
        limits: ResponseLimits = .default,
        channel: ResponseBodyChannel? = nil,
        promise: Promise<HTTPResponse>,
        id chosen: UInt64? = nil
    ) {
        let id = chosen ?? nextID.add(1, ordering: .relaxed).oldValue
        let submission = CurlSubmission(
            id: id, plan: plan, promise: promise, hostKey: CurlAdmission.hostKey(ofURL: plan.admissionURL),
            responseBodyFile: responseBodyFile, responseBodyHandle: responseBodyHandle, progress: progress,
            limits: limits, channel: channel)
        guard startInline(submission) || enqueue(.start(submission)) else {
            let message = "the transport was shut down before the request could start"
            promise.reject(KringleError.transport(CurlError(code: CurlError.failedInitialization, message: message)))
            return
        }
        // Registered after the start command, so a cancel command always follows it; one that
        // overtakes it anyway finds the promise settled and the start is skipped. Weak, because
        // a settled promise keeps its cancel handlers: a strong reference would keep the
        // engine, and the connections its multi handle caches, alive as long as any response
        // promise. While the transfer runs, the driving thread keeps the engine alive.
        promise.onCancel { [weak self] in
            self?.enqueue(.cancel(id))
        }
        // Once the head has settled the promise, the body's reader pauses, resumes and stops
        // the transfer through its channel.
        channel?.onRoom { [weak self] in
            self?.enqueue(.resume(id))
        }
        channel?.onCancel { [weak self] in
            self?.enqueue(.cancel(id))
        }
    }

    /// Starts `submission` on this thread if it can have the lock (``DrivingLock``); `false`
    /// when it cannot, the inbox holds commands, or the driving thread has left, and the
    /// request goes through the inbox.
    ///
    /// Only on an idle engine, whose lock is waited for (the driving thread holds it only for
    /// a turn): there a request through the inbox would wake the driving thread, and could
    /// not be waited for in its place (``assist(until:wakeUp:)``). A busy engine's driving
    /// thread is awake or soon will be, and takes a burst of requests from the inbox in one
    /// turn; threads sending side by side would queue for its lock instead (measured with 8
    /// in flight: 4–6 µs more per request).
    private func startInline(_ submission: CurlSubmission) -> Bool {
        guard startsInline, transferCount.load(ordering: .relaxed) == 0, DrivingLock.mayWait else { return false }
        let holding = drivingLock.lock()
        // Commands still in the inbox go first: a request must not overtake one sent before it
        // (the driving thread takes the inbox and runs it with the lock held, so under the lock
        // the inbox is empty or the earlier requests have started).
        let started = inbox.withLock({ $0.commands.isEmpty }) ? driver.driver.startInline(submission) : nil
        drivingLock.unlock(holding)
        guard let started else { return false }
        if started.wakeDriver { kcurl_multi_wakeup(multi.pointer) }
        for settlement in started.settlements { settlement.settle() }
        // A wait() on this thread may wait for the answer in the driving thread's place.
        PromiseWaitAssistance.offer(self)
        return true
    }

    /// Hands a WebSocket's connection request to the driving thread: curl connects as for
    /// `plan` (with ``CurlRequestPlan/connectsOnly``), then `opening` runs the handshake.
    func submit(
        _ plan: CurlRequestPlan, opening: WebSocketOpening, channel: ResponseBodyChannel?,
        promise: Promise<HTTPResponse>
    ) {
        var plan = plan
        plan.connectsOnly = true
        let id = nextID.add(1, ordering: .relaxed).oldValue
        // Kept aside rather than in the submission, which every request copies: the link
        // takes it once curl has connected, and a call that ends before drops it.
        openings.withLock { $0[id] = opening }
        promise.always { [weak self] in _ = self?.takeOpening(for: id) }
        submit(plan, channel: channel, promise: promise, id: id)
    }

    /// The handshake of the WebSocket request `id`, once.
    func takeOpening(for id: UInt64) -> WebSocketOpening? {
        openings.withLock { $0.removeValue(forKey: id) }
    }

    /// Tells the driving thread that the WebSocket link `id` needs a turn.
    func wake(webSocket id: UInt64) {
        enqueue(.webSocket(id))
    }

    /// Tells the driving thread that the waiting request `id` is out of time (from a timer).
    func expire(_ id: UInt64) {
        enqueue(.expire(id))
    }

    /// What runs and waits per host, as the driving thread sees it between two turns.
    func poolStatistics() -> Promise<[HostPoolStatistics]> {
        let answer = Promise<[HostPoolStatistics]>.pending()
        // A transport shut down has nothing running.
        if !enqueue(.report(answer)) { answer.fulfill([]) }
        return answer
    }

    /// Lets the driving thread exit once the transfers in flight have finished.
    func shutdown() {
        let wake = inbox.withLock { inbox -> Bool in
            guard !inbox.isShuttingDown, !inbox.isFinished else { return false }
            inbox.isShuttingDown = true
            return Self.claimWakeUp(&inbox)
        }
        if wake {
            kcurl_multi_wakeup(multi.pointer)
        }
    }

    /// Whether the multi handle waits for its sockets with poll() rather than epoll.
    var waitsWithPoll: Bool {
        !startsInline
    }

    // MARK: - For the driving thread

    /// Takes every queued command; the driving thread is awake, so commands from now on
    /// need no wake-up until its next ``beginWait(knownShuttingDown:)``.
    func takeCommands() -> (commands: [Command], isShuttingDown: Bool) {
        drivingLock.assertHeld()
        return inbox.withLock { inbox in
            let commands = inbox.commands
            inbox.commands.removeAll()
            inbox.driverIsWaiting = false
            return (commands, inbox.isShuttingDown)
        }
    }

    /// Announces that the driving thread is about to block in `kcurl_multi_wait`; returns
    /// `false`, announcing nothing, when a command is already waiting or a shutdown arrived
    /// since the driver last looked (`knownShuttingDown`).
    func beginWait(knownShuttingDown: Bool) -> Bool {
        drivingLock.assertHeld()
        return inbox.withLock { inbox in
            guard inbox.commands.isEmpty, inbox.isShuttingDown == knownShuttingDown else { return false }
            inbox.driverIsWaiting = true
            inbox.wakeUpSent = false
            return true
        }
    }

    /// Marks the engine finished if no command is waiting, in which case the driving
    /// thread exits.
    func finishIfIdle() -> Bool {
        drivingLock.assertHeld()
        return inbox.withLock { inbox in
            guard inbox.commands.isEmpty else { return false }
            inbox.isFinished = true
            return true
        }
    }

    // MARK: - Private

    /// Queues a command and wakes the driving thread; `false` once it has exited.
    @discardableResult
    private func enqueue(_ command: Command) -> Bool {
        let (accepted, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.isFinished else { return (false, false) }
            inbox.commands.append(command)
            return (true, Self.claimWakeUp(&inbox))
        }
        // Outside the lock: the woken driver reaches for the same lock at once.
        if wake {
            kcurl_multi_wakeup(multi.pointer)
        }
        return accepted
    }

    /// Whether the caller must wake the driving thread: only when it waits and nobody has
    /// woken it yet. A busy driver finds the command on its next turn without a system call.
    private static func claimWakeUp(_ inbox: inout Inbox) -> Bool {
        guard inbox.driverIsWaiting, !inbox.wakeUpSent else { return false }
        inbox.wakeUpSent = true
        return true
    }

    /// Sizes curl's cache of idle connections. The limits on connections in use are the
    /// driver's (``CurlAdmission``): curl is never handed more transfers than they allow, so
    /// none waits inside libcurl, where a waiting transfer holds a whole handle and libcurl
    /// 7.88 neither times it out nor reliably wakes it (see ``CurlDriver``).
    private func applyLimits() {
        let total = configuration.maximumConnections.flatMap { $0 > 0 ? $0 : nil }
        // curl's default cache holds four idle connections per transfer in progress, so a
        // lull between two bursts (one transfer left of eight) would close connections the
        // next burst must open again.
        // libcurl reads 0 as "no limit": a transport that keeps none forbids reuse on every
        // transfer instead (CurlTransfer+Pool.swift), and its cache needs room for one.
        let idle = configuration.maximumIdleConnections.map { max(1, $0) } ?? total ?? Self.idleConnectionsKept
        kcurl_multi_setopt_long(multi.pointer, KCURLMOPT_MAXCONNECTS, idle)
    }
}
