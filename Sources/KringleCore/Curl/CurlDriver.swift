import CCurlShim
import Foundation
@_spi(KringleInternals) import KringlePromise

/// The loop on the driving thread: starts and cancels transfers, lets curl work, and
/// settles promises as transfers finish.
///
/// Everything here runs with the engine's ``DrivingLock`` held: by the driving thread, or by
/// another thread that takes a turn while the driving thread sleeps
/// (CurlDriver+OtherThreads.swift). That is what makes the easy handles, the transfers and the pool
/// safe without locks of their own; each method checks it in debug builds.
final class CurlDriver {
    /// Unowned, and unchecked (no reference count to keep on every use): the engine owns the driver, and whoever runs it holds the engine.
    unowned(unsafe) let engine: CurlEngine
    let multi: OpaquePointer
    var transfers: [UInt64: CurlTransfer] = [:] {
        // Modified in place: the observer does not read the old value.
        didSet { engine.transferCount.store(transfers.count, ordering: .relaxed) }
    }
    private var idsByHandle: [OpaquePointer: UInt64] = [:]
    /// Which requests may start, and the ones that wait for their turn.
    private var admission: CurlAdmission
    /// The timers that end waiting requests at their deadlines, by request.
    private var waitTimers: [UInt64: ClockTimer] = [:]
    private let clock = SystemClock()
    /// Reset easy handles kept for the next transfers (creating one costs more than a reset).
    private var idleHandles: [EasyHandle] = []
    private let idleHandleLimit = 16
    /// The finished transfers of one turn, until they are settled.
    var settlements: [Settlement] = []
    /// The engine's WebSockets, once curl connected them.
    let webSockets: CurlWebSocketLinks
    /// Where a wait reports the ready descriptors.
    private let events = UnsafeMutableBufferPointer<kcurl_event>.allocate(capacity: 128)
    /// The driving thread's hold on the lock, while it has it.
    private var holding: DrivingLock.Holding?
    /// Set as the driving thread leaves for good: no request starts after that.
    var hasExited = false
    /// When the driving thread's wait ends at the latest (the monotonic clock's
    /// nanoseconds, `kcurl_now`), while it sleeps: a request started meanwhile wakes it only
    /// when curl needs a call sooner (``startInline(_:)``).
    var sleepsUntil: Int64?
    /// Whether a thread waits for the sockets in the driving thread's place.
    var isAssisted = false
    /// How many transfers such threads have seen finish (tests check that they do).
    var assistedTransfers = 0
    /// When the last request arrived (``kcurl_now()``'s nanoseconds).
    private var lastArrival: Int64 = 0
    /// How long one wait may last when curl has no earlier deadline of its own and no
    /// request has come for ten seconds; only bounds how often an idle thread wakes up, since
    /// commands interrupt the wait. Until then an idle wait lasts ``busyWaitMilliseconds``,
    /// so that a request started by another thread (``startInline(_:)``), and settled by
    /// it too (``beginAssisting(until:)``), need not wake the driving thread for its backstop.
    private let idleWaitMilliseconds: Int32 = 10_000
    /// The same while transfers run, after which curl looks at every transfer: a backstop
    /// for libcurl before 8.1, which can lose the wake-up of a transfer that waited inside
    /// libcurl for a connection (its timer is swept away, and the transfer then moves only
    /// when some later call looks at it; 8.1.0's commit 843b3baa fixed it). Waits inside
    /// libcurl no longer happen for connection limits, which are ``CurlAdmission``'s, but an
    /// HTTP/2 request still waits there for its connection to be known to multiplex
    /// (`CURLOPT_PIPEWAIT`).
    let busyWaitMilliseconds: Int32 = 1_000

    init(engine: CurlEngine) {
        self.engine = engine
        multi = engine.multi.pointer
        admission = CurlAdmission(
            perHost: engine.configuration.maximumConnectionsPerHost, total: engine.configuration.maximumConnections)
        webSockets = CurlWebSocketLinks(engine: engine, multi: multi)
    }

    deinit {
        events.deallocate()
    }

    /// Runs until the engine is shut down and every transfer has finished.
    func run() {
        holding = engine.drivingLock.lock()
        while true {
            let (commands, isShuttingDown) = engine.takeCommands()
            for command in commands {
                switch command {
                case .start(let submission): arrive(submission)
                case .cancel(let id): cancel(id)
                case .expire(let id): expire(id)
                case .resume(let id): resume(id)
                case .report(let answer): answer.fulfill(poolStatistics())
                case .webSocket(let id): webSockets.service(id)
                }
            }
            if isShuttingDown, admission.isIdle, webSockets.isEmpty {
                if engine.finishIfIdle() { break }
                continue
            }
            // Let curl run the transfers whose time came (new ones start so), and the
            // WebSockets whose sockets were ready.
            if kcurl_multi_timeout(multi) == 0 { kcurl_multi_socket_action(multi, Int32(KCURL_SOCKET_TIMEOUT), 0) }
            webSockets.serviceDue()
            // Settling the finished transfers lends this thread to the promises' queue, which
            // may give the seat to another thread (DrivingSeat.swift): then this one is done.
            guard collect() else { return }
            // Transfers that ended made room: start the next ones, and let curl begin them
            // before this thread sleeps.
            if startWaiting() { continue }
            if isShuttingDown, admission.isIdle, webSockets.isEmpty { continue }
            // Announce the wait, so that commands from now on wake this thread; commands
            // that came while it was busy are picked up without any wake-up.
            guard engine.beginWait(knownShuttingDown: isShuttingDown) else { continue }
            waitForSockets()
        }
        // The multi handle itself is freed by the engine's deinit.
        idleHandles.removeAll()
        hasExited = true
        unlock()
        engine.seat.close()
    }

    /// The running and waiting requests per host. libcurl 7.88 has no way to tell how many
    /// connections its cache holds, so those counts are `nil`.
    private func poolStatistics() -> [HostPoolStatistics] {
        admission.hostCounts.map { entry in
            HostPoolStatistics(host: String(entry.host), inUse: entry.running, queued: entry.queued)
        }.sorted { $0.host < $1.host }
    }

    /// Starts a new request, or queues it behind the connection limits until a transfer
    /// ends or its deadline passes.
    func arrive(_ submission: CurlSubmission) {
        engine.drivingLock.assertHeld()
        // Cancelled (or otherwise settled) in the inbox: nothing to send.
        guard submission.promise.isPending else { return }
        lastArrival = kcurl_now()
        guard admission.arrive(submission) else {
            // A request that waits for its turn spends its time too.
            if let deadline = submission.plan.deadline {
                let id = submission.id
                waitTimers[id] = clock.schedule(after: deadline.timeLeft(on: clock)) { [weak engine] in
                    engine?.expire(id)
                }
            }
            return
        }
        start(submission)
    }

    /// Starts every waiting request there is room for; `true` when any started.
    func startWaiting() -> Bool {
        engine.drivingLock.assertHeld()
        var started = false
        while let submission = admission.next() {
            if let timer = waitTimers.removeValue(forKey: submission.id) { clock.cancel(timer) }
            started = true
            start(submission)
        }
        return started
    }

    /// Starts a request that was given room, or gives the room back when it cannot start.
    private func start(_ submission: CurlSubmission) {
        engine.drivingLock.assertHeld()
        if !launch(submission) { admission.end(hostKey: submission.hostKey) }
    }

    /// Hands a request to curl with what is left of its time; `false`, its promise settled,
    /// when it did not get there (cancelled, out of time, or refused by curl).
    private func launch(_ submission: CurlSubmission) -> Bool {
        engine.drivingLock.assertHeld()
        guard submission.promise.isPending else { return false }
        // The deadline becomes curl's unit here, as the transfer starts, so that the time it
        // waited for its turn counts.
        var millisecondsLeft = 0
        if let deadline = submission.plan.deadline {
            guard let left = deadline.milliseconds(on: clock) else {
                submission.promise.reject(KringleError.timedOut(.total))
                return false
            }
            millisecondsLeft = left
        }
        guard let easy = idleHandles.popLast() ?? EasyHandle() else {
            reject(
                submission.promise, CurlError(code: CurlError.failedInitialization, message: "curl_easy_init failed"))
            return false
        }
        let transfer = CurlTransfer(submission, easy: easy, millisecondsLeft: millisecondsLeft)
        // A handle given back without a reset holds a plain transfer's options: only the
        // same shape of plain transfer sets each of them again.
        if let kept = easy.keptShape, kept != transfer.plainShape { easy.reset() }
        do {
            try transfer.configure(engine.configuration, proxyRoutes: engine.proxyRoutes)
        } catch let error as KringleError {
            recycle(transfer)
            submission.promise.reject(error)
            return false
        } catch {
            recycle(transfer)
            reject(submission.promise, error)
            return false
        }
        let code = kcurl_multi_add(multi, easy.pointer)
        guard code == 0 else {
            recycle(transfer)
            let reason = String(cString: kcurl_multi_strerror(code))
            reject(
                submission.promise,
                CurlError(code: CurlError.failedInitialization, message: "curl_multi_add_handle failed: \(reason)"))
            return false
        }
        transfers[submission.id] = transfer
        idsByHandle[easy.pointer] = submission.id
        return true
    }

    /// Stops a transfer whose promise was cancelled (and so already rejected), or takes it
    /// out of its queue.
    private func cancel(_ id: UInt64) {
        engine.drivingLock.assertHeld()
        if let waiting = admission.remove(id) {
            if let timer = waitTimers.removeValue(forKey: id) { clock.cancel(timer) }
            waiting.promise.reject(PromiseError.cancelled)
            waiting.channel?.finish(throwing: PromiseError.cancelled)
            return
        }
        if webSockets.end(id, with: PromiseError.cancelled) { return }
        // Not found: it finished first, or was never started; either way nothing to do.
        guard let transfer = transfers.removeValue(forKey: id) else { return }
        idsByHandle.removeValue(forKey: transfer.easy.pointer)
        kcurl_multi_remove(multi, transfer.easy.pointer)
        recycle(transfer)
        admission.end(hostKey: transfer.submission.hostKey)
        // A body's reader that left before the head came: the head's promise ends too.
        transfer.submission.promise.reject(PromiseError.cancelled)
        transfer.collector.channel?.finish(throwing: PromiseError.cancelled)
    }

    /// Rejects a waiting request whose deadline passed before its turn came; one that
    /// started meanwhile is curl's to time out.
    private func expire(_ id: UInt64) {
        engine.drivingLock.assertHeld()
        guard let waiting = admission.remove(id) else { return }
        waitTimers.removeValue(forKey: id)
        waiting.promise.reject(KringleError.timedOut(.total))
    }

    /// Unpauses a transfer whose body channel has room again. curl may deliver the bytes it
    /// held back from inside this call; a transfer that finished or was cancelled meanwhile
    /// is not found.
    private func resume(_ id: UInt64) {
        engine.drivingLock.assertHeld()
        guard let transfer = transfers[id] else { return }
        let code = kcurl_easy_unpause(transfer.easy.pointer)
        // curl fails the transfer without finishing it when the write callback it called
        // from inside the unpause refused the bytes (a bound crossed, the reader gone).
        guard code != 0 else { return }
        transfers.removeValue(forKey: id)
        idsByHandle.removeValue(forKey: transfer.easy.pointer)
        finish(transfer, code: code).settle()
    }

    /// Sleeps until a socket is ready, curl's timer is due or a command comes, and lets
    /// curl move the transfers on the ready sockets.
    private func waitForSockets() {
        engine.drivingLock.assertHeld()
        let isIdle = transfers.isEmpty && webSockets.isEmpty
        let hasRested = kcurl_now() - lastArrival > Int64(idleWaitMilliseconds) * 1_000_000
        let backstop = isIdle && hasRested ? idleWaitMilliseconds : busyWaitMilliseconds
        let timer = kcurl_multi_timeout(multi)
        let timeout = webSockets.hasDue ? 0 : timer >= 0 ? min(timer, backstop) : backstop
        sleepsUntil = kcurl_now() + Int64(timeout) * 1_000_000
        unlock()
        let count = kcurl_multi_wait(multi, timeout, events.baseAddress, Int32(events.count))
        holding = engine.drivingLock.lock()
        sleepsUntil = nil
        guard count >= 0 else {
            failAll(because: String(cString: strerror(errno)))
            return
        }
        if count == 0, timeout == backstop, !isIdle {
            kcurl_multi_socket_all(multi)
            return
        }
        handle(events[0..<Int(count)])
    }

    /// Lets curl move the transfers on the sockets a wait found ready, and notes the
    /// WebSockets whose sockets were.
    func handle(_ ready: Slice<UnsafeMutableBufferPointer<kcurl_event>>) {
        for event in ready {
            if event.tag == KCURL_TAG_WAKE_UP { continue }
            if event.tag & KCURL_TAG_CURL_SOCKET != 0 {
                kcurl_multi_socket_action(multi, Int32(truncatingIfNeeded: event.tag), event.events)
            } else {
                webSockets.socketIsReady(event.tag)
            }
        }
    }

    /// Settles the transfers curl finished; `false` when this thread lost the seat while it
    /// ran what their promises set off.
    private func collect() -> Bool {
        collectFinished()
        guard !settlements.isEmpty else { return true }
        return settleLent()
    }

    /// Takes the transfers curl finished out of its hands, into ``settlements``; what a large
    /// body sets off (its decode) goes to a worker at once, as it always did.
    func collectFinished() {
        engine.drivingLock.assertHeld()
        var easy: OpaquePointer?
        var code: Int32 = 0
        while kcurl_multi_next_done(multi, &easy, &code) == 1 {
            guard let easy, let id = idsByHandle.removeValue(forKey: easy),
                let transfer = transfers.removeValue(forKey: id)
            else { continue }
            if code == 0, transfer.submission.plan.connectsOnly {
                // A WebSocket's turn ends as it connects: it is not one of the host's pooled
                // connections.
                admission.end(hostKey: transfer.submission.hostKey)
                webSockets.open(transfer)
                continue
            }
            let settlement = finish(transfer, code: code)
            if settlement.isLight { settlements.append(settlement) } else { settlement.settle() }
        }
    }

    /// Lets go of the lock the driving thread holds.
    private func unlock() {
        guard let holding else { return }
        self.holding = nil
        engine.drivingLock.unlock(holding)
    }

    /// Settles the finished transfers' promises with this thread lent to the promises' queue,
    /// so that what follows (the client's checks and decode, a `done`, the next request) runs
    /// here rather than on a worker woken for it; `false` when the seat went to another
    /// thread meanwhile.
    ///
    /// Lent, the thread is no driving thread: everything the driver owns is in order before,
    /// and the batch is out of the driver's hands, so that a new driving thread may start at
    /// once.
    private func settleLent() -> Bool {
        var batch: [Settlement] = []
        swap(&batch, &settlements)
        unlock()
        // Only a batch has other responses' follow-up to keep while one handler runs.
        let lentJobs = batch.count > 1 ? LentJobs() : nil
        let lending = engine.seat.beginLending(settingAsideIn: lentJobs)
        DispatchQueue.runLentToPromises(setAside: lentJobs) {
            for settlement in batch { settlement.settle() }
        }
        guard engine.seat.endLending(lending) else { return false }
        holding = engine.drivingLock.lock()
        // Keep the buffer for the next batch.
        batch.removeAll(keepingCapacity: true)
        settlements = batch
        return true
    }

    /// Ends a transfer that curl ended with `code` (taken out of the maps already): works out
    /// its outcome, gives its handle back and ends its turn, and returns what settles its
    /// promise and ends its body's channel.
    ///
    /// The settling comes last, after the driver's own state is in order, because what the
    /// promise sets off may run on this thread (``settleLent()``). A transfer cancelled a
    /// moment ago loses there: its promise has settled already.
    private func finish(_ transfer: CurlTransfer, code: Int32) -> Settlement {
        engine.drivingLock.assertHeld()
        let settlement = Settlement(
            promise: transfer.submission.promise, outcome: transfer.outcome(code: code),
            channel: transfer.collector.channel)
        kcurl_multi_remove(multi, transfer.easy.pointer)
        recycle(transfer, completed: code == 0)
        admission.end(hostKey: transfer.submission.hostKey)
        return settlement
    }

    /// Rejects every transfer after the wait itself failed, so that no promise is left
    /// pending.
    private func failAll(because reason: String) {
        engine.drivingLock.assertHeld()
        let error = CurlError(
            code: CurlError.failedInitialization, message: "waiting for the sockets failed: \(reason)")
        for waiting in admission.removeAllWaiting() {
            if let timer = waitTimers.removeValue(forKey: waiting.id) { clock.cancel(timer) }
            reject(waiting.promise, error)
        }
        for id in Array(transfers.keys) {
            guard let transfer = transfers[id] else { continue }
            reject(transfer.submission.promise, error)
            cancel(id)
        }
        webSockets.endAll(with: KringleError.transport(error))
        // Pace a failure that repeats, instead of spinning on it.
        Thread.sleep(forTimeInterval: 0.01)
    }

    /// Gives back the handle of a transfer that is out of the multi handle, without a
    /// WebSocket's share: `curl_easy_reset` keeps a share, and the handle's next requests
    /// would cache their connections in it. The handle of a plain transfer that `completed`
    /// (``CurlTransfer/plainShape``) keeps its options, for the next plain transfer of its
    /// shape to set again; any other is reset.
    private func recycle(_ transfer: CurlTransfer, completed: Bool = false) {
        engine.drivingLock.assertHeld()
        transfer.releaseConnectionShare()
        let easy = transfer.easy
        if completed, transfer.proxy == nil, let shape = transfer.plainShape {
            easy.keptShape = shape
        } else {
            easy.reset()
        }
        if idleHandles.count < idleHandleLimit {
            idleHandles.append(easy)
        }
    }

    private func reject(_ promise: Promise<HTTPResponse>, _ error: any Error) {
        engine.drivingLock.assertHeld()
        promise.reject(KringleError.transport(error))
    }
}
