import Dispatch
import Foundation
@_spi(KringleInternals) import KringlePromise

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The part of a server that its threads share: listener, handler, open connections and
/// counters.
///
/// Kept apart from ``LoopbackServer`` so server threads never retain the public object:
/// dropping the last reference to a `LoopbackServer` runs its `deinit`, which shuts this
/// down. All mutable state sits in one `Mutex`; the lock is never held while calling the
/// handler or blocking on a socket.
final class ServerCore: Sendable {
    /// The handler each request is passed to.
    let handler: @Sendable (LoopbackServer.Request) -> LoopbackServer.Response
    /// The port the listener is bound to.
    let port: Int
    /// The request body and connection limits.
    let configuration: LoopbackServer.Configuration
    /// The Unix socket the listener is bound to instead of a port, removed once it closes.
    let unixSocketPath: String?

    private let listener: Int32
    private let wakePipe: (reader: Int32, writer: Int32)
    private let state = Locked(State())
    /// Entered by every server thread while it runs; `shutdown` waits on it to join them.
    private let threads = DispatchGroup()

    private struct State {
        var isShutDown = false
        var acceptLoopStarted = false
        /// Set once the accept loop has closed the listener and wake-up pipe.
        var acceptLoopFinished = false
        var nextConnectionID = 1
        /// Descriptors of open connections. A connection leaves this table before its
        /// descriptor is closed, so `shutdown` never touches a reused descriptor number.
        var openConnections: [Int: Int32] = [:]
        /// How many of ``openConnections`` are served (the rest are being refused).
        var servedConnections = 0
        /// How many of ``openConnections`` are being refused with a 503.
        var refusingConnections = 0
        /// `pthread_self()` of every running server thread, to detect a handler calling
        /// `shutdown` (which must not wait for its own thread).
        var serverThreads: [pthread_t] = []
        var statistics = LoopbackServer.Statistics()
        /// Bumped on every counter change so waiters can tell they missed nothing.
        var statisticsVersion = 0
        var statisticsWaiters: [DispatchSemaphore] = []
    }

    /// Binds the listener; ``start()`` begins accepting.
    init(
        configuration: LoopbackServer.Configuration,
        unixSocketPath: String? = nil,
        handler: @escaping @Sendable (LoopbackServer.Request) -> LoopbackServer.Response
    ) throws(LoopbackServerError) {
        let (listener, port) =
            if let unixSocketPath {
                (try Socket.makeUnixListener(path: unixSocketPath), 0)
            } else {
                try Socket.makeLoopbackListener()
            }
        do {
            wakePipe = try Socket.makeWakePipe()
        } catch {
            Socket.closeDescriptor(listener)
            if let unixSocketPath { Socket.removeSocketFile(unixSocketPath) }
            throw error
        }
        self.listener = listener
        self.port = port
        self.unixSocketPath = unixSocketPath
        self.configuration = configuration
        self.handler = handler
    }

    /// Starts the accept thread, unless the server was already shut down.
    func start() {
        let shouldStart = state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            state.acceptLoopStarted = true
            return true
        }
        if shouldStart {
            startThread(name: "LoopbackServer :\(port) accept") { [self] in acceptLoop() }
        }
    }

    /// Whether ``shutdown()`` has begun; connection threads stop at the next opportunity.
    var isShuttingDown: Bool {
        state.withLock { $0.isShutDown }
    }

    /// The server's counters.
    let counters = ServerStatistics()

    /// What WebSocket clients sent, recorded by the connections that read it.
    let webSocketTranscript = WebSocketTranscript()

    /// A snapshot of the counters.
    var statistics: LoopbackServer.Statistics {
        counters.snapshot
    }

    /// Counts one event.
    func record(_ counter: ServerStatistics.Counter) {
        counters.record(counter)
    }

    /// Blocks until `condition` holds for the counters or `timeout` seconds pass.
    func waitForStatistics(timeout: TimeInterval, until condition: (LoopbackServer.Statistics) -> Bool) -> Bool {
        counters.wait(timeout: timeout, until: condition)
    }

    /// Stops accepting, shuts down every connection and waits for all server threads to end.
    ///
    /// Called from a handler it cannot wait for its own thread, so it then returns once
    /// everything is shut down but before the other threads are joined.
    func shutdown() {
        let caller = pthread_self()
        let calledFromServerThread = state.withLock { state -> Bool in
            if !state.isShutDown {
                state.isShutDown = true
                // Shutting down (not closing) wakes threads blocked in accept loop poll,
                // recv, send or poll, while their descriptors stay valid until they close them.
                for descriptor in state.openConnections.values { Socket.shutdownBoth(descriptor) }
                if !state.acceptLoopStarted {
                    // Never started: nobody else will close these.
                    closeListenerAndPipe()
                    state.acceptLoopFinished = true
                } else if !state.acceptLoopFinished {
                    Socket.signalWakePipe(wakePipe.writer)
                }
            }
            return state.serverThreads.contains { pthread_equal($0, caller) != 0 }
        }
        if !calledFromServerThread { threads.wait() }
    }

    /// Unregisters a finished connection and closes its descriptor.
    ///
    /// - Parameter refused: whether the connection was being refused rather than served.
    func connectionDidClose(id: Int, descriptor: Int32, refused: Bool) {
        state.withLock { state in
            guard state.openConnections.removeValue(forKey: id) != nil else { return }
            if refused { state.refusingConnections -= 1 } else { state.servedConnections -= 1 }
        }
        Socket.closeDescriptor(descriptor)
    }

    /// Accepts connections until shutdown, giving each its own thread.
    private func acceptLoop() {
        while !isShuttingDown {
            // Accepting only when a connection is pending keeps shutdown from hanging even if
            // the listener's number is closed by mistake elsewhere in the process and reused
            // by a blocking socket (a test helper's double close once did exactly that).
            guard Socket.waitReadable(listener, wakePipe.reader) else { continue }
            switch Socket.accept(from: listener) {
            case .accepted(let descriptor):
                startConnection(descriptor)
            case .tryAgain:
                continue
            case .outOfDescriptors:
                // The connection stays queued; back off instead of spinning on poll.
                usleep(10_000)
            }
        }
        state.withLock { state in
            state.acceptLoopFinished = true
            closeListenerAndPipe()
        }
    }

    /// Closes the listener, which frees the port (or removes the Unix socket's file), and
    /// the wake-up pipe. Called once, with the lock held, so `shutdown` never writes to a
    /// closed pipe.
    private func closeListenerAndPipe() {
        Socket.closeDescriptor(listener)
        if let unixSocketPath { Socket.removeSocketFile(unixSocketPath) }
        Socket.closeDescriptor(wakePipe.reader)
        Socket.closeDescriptor(wakePipe.writer)
    }

    /// What to do with a newly accepted connection.
    private enum Admission {
        case serve(id: Int)
        /// Over ``LoopbackServer/Configuration/maximumConnections``: answer 503 and close.
        case refuse(id: Int)
        /// Over the limit with too many refusals under way already: close at once.
        case dropOverLimit
        /// Shutting down: close at once.
        case dropForShutdown
    }

    private func startConnection(_ descriptor: Int32) {
        let limit = configuration.maximumConnections.map { max(1, $0) } ?? .max
        let admission = state.withLock { state -> Admission in
            guard !state.isShutDown else { return .dropForShutdown }
            let isOverLimit = state.servedConnections >= limit
            if isOverLimit, state.refusingConnections >= LoopbackServer.Configuration.refusingConnectionLimit {
                return .dropOverLimit
            }
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.openConnections[id] = descriptor
            if isOverLimit {
                state.refusingConnections += 1
                return .refuse(id: id)
            }
            state.servedConnections += 1
            return .serve(id: id)
        }
        let (id, refusing): (Int, Bool)
        switch admission {
        case .serve(let served):
            (id, refusing) = (served, false)
        case .refuse(let refused):
            (id, refusing) = (refused, true)
        case .dropOverLimit:
            record(.connectionsAccepted)
            record(.connectionsRefused)
            Socket.closeDescriptor(descriptor)
            return
        case .dropForShutdown:
            Socket.closeDescriptor(descriptor)
            return
        }
        record(.connectionsAccepted)
        Socket.configureConnection(descriptor)
        if refusing {
            record(.connectionsRefused)
            // A refused client gets a bounded time to send its request head, so that idle
            // connections cannot hold the refusal threads for ever.
            Socket.setReceiveTimeout(descriptor, seconds: LoopbackServer.Configuration.refusalReadTimeout)
        }
        startThread(name: "LoopbackServer :\(port) connection \(id)") { [self] in
            Connection(core: self, descriptor: descriptor, id: id, refusing: refusing).run()
        }
    }

    /// Runs `body` on a new thread that `shutdown` waits for.
    private func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        // Entered before the thread exists, so a concurrent shutdown cannot miss it.
        threads.enter()
        let thread = Thread { [self] in
            let current = pthread_self()
            state.withLock { $0.serverThreads.append(current) }
            body()
            state.withLock { state in
                state.serverThreads.removeAll { pthread_equal($0, current) != 0 }
            }
            threads.leave()
        }
        thread.name = name
        thread.start()
    }
}
