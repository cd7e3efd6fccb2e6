#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Thin, non-throwing wrappers over the BSD socket calls the server needs.
///
/// Everything platform-specific lives here so the rest of the server reads the same on Linux
/// and Darwin. Calls report failures as `errno` values instead of throwing, because callers
/// treat most failures as "the peer went away" rather than as errors to propagate.
enum Socket {
    /// Flags for `send(2)`. Linux suppresses SIGPIPE per call; Darwin uses `SO_NOSIGPIPE`
    /// on the socket instead (see `configureConnection`). Either way a client that resets
    /// the connection can never kill the test process with SIGPIPE.
    private static var sendFlags: Int32 {
        #if canImport(Darwin)
        return 0
        #else
        return Int32(MSG_NOSIGNAL)
        #endif
    }

    /// Creates a listening TCP socket bound to 127.0.0.1 on a port the kernel picks.
    ///
    /// The socket is non-blocking so that the accept loop, which waits in `poll(2)`, never
    /// blocks in `accept(2)` when a queued connection was aborted in the meantime.
    static func makeLoopbackListener() throws(LoopbackServerError) -> (descriptor: Int32, port: Int) {
        let descriptor = makeStreamSocket()
        guard descriptor >= 0 else { throw .socketCallFailed(call: "socket", errno: errno) }
        var keepOpen = false
        defer { if !keepOpen { closeDescriptor(descriptor) } }

        // SO_REUSEADDR lets a test re-bind a port whose earlier connections sit in TIME_WAIT.
        guard setOption(descriptor, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1) else {
            throw .socketCallFailed(call: "setsockopt(SO_REUSEADDR)", errno: errno)
        }
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0  // 0 asks the kernel for an ephemeral port.
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)  // 127.0.0.1
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw .socketCallFailed(call: "bind", errno: errno) }
        // A deep backlog so bursts of concurrent connects are queued, not refused.
        guard listen(descriptor, 512) == 0 else { throw .socketCallFailed(call: "listen", errno: errno) }

        var boundAddress = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &boundAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(descriptor, $0, &length)
            }
        }
        guard named == 0 else { throw .socketCallFailed(call: "getsockname", errno: errno) }
        guard setNonBlocking(descriptor) else { throw .socketCallFailed(call: "fcntl(O_NONBLOCK)", errno: errno) }
        keepOpen = true
        return (descriptor, Int(UInt16(bigEndian: boundAddress.sin_port)))
    }

    /// The outcome of one `accept(2)` attempt.
    enum AcceptResult {
        /// A new connection.
        case accepted(Int32)
        /// Nothing to accept right now, or a transient failure; wait and try again.
        case tryAgain
        /// The process ran out of descriptors; back off before trying again.
        case outOfDescriptors
    }

    /// Accepts one pending connection, marked close-on-exec so subprocesses (curl) do not
    /// inherit it. (`accept4` would do both atomically, but Swift's Glibc module does not
    /// export it; a subprocess spawned in the instant between the two calls could inherit
    /// the descriptor, which only delays that connection's close until the child exits.)
    static func accept(from listener: Int32) -> AcceptResult {
        #if canImport(Darwin)
        let descriptor = Darwin.accept(listener, nil, nil)
        #else
        let descriptor = Glibc.accept(listener, nil, nil)
        #endif
        if descriptor >= 0 {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            return .accepted(descriptor)
        }
        switch errno {
        case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
        default: return .tryAgain  // EAGAIN, EINTR, ECONNABORTED, EPROTO ...
        }
    }

    /// Prepares an accepted connection: blocking I/O, no Nagle delay, no SIGPIPE.
    static func configureConnection(_ descriptor: Int32) {
        // Darwin sockets inherit O_NONBLOCK from the listener; connection threads want
        // blocking calls.
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        // Small responses must leave at once; Nagle plus delayed ACKs would add 40 ms stalls.
        _ = setOption(descriptor, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        #if canImport(Darwin)
        _ = setOption(descriptor, level: SOL_SOCKET, name: SO_NOSIGPIPE, value: 1)
        #endif
    }

    /// Makes every `recv` on `descriptor` give up after `seconds` (`SO_RCVTIMEO`), returning -1
    /// with `EAGAIN`, which callers read as the peer having gone.
    static func setReceiveTimeout(_ descriptor: Int32, seconds: Int) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Receives up to `count` bytes, retrying on EINTR.
    ///
    /// - Returns: the number of bytes read, 0 at end of stream, or -1 with `errno` set.
    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        while true {
            let received = recv(descriptor, buffer, count, 0)
            if received < 0 && errno == EINTR { continue }
            return received
        }
    }

    /// Sends every byte of `buffer`, looping over partial sends and EINTR.
    ///
    /// - Returns: `nil` on success, otherwise the `errno` of the failed call.
    static func sendAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        guard let base = buffer.baseAddress else { return nil }
        var offset = 0
        while offset < buffer.count {
            let sent = send(descriptor, base + offset, buffer.count - offset, sendFlags)
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return sent == 0 ? EPIPE : errno
            }
        }
        return nil
    }

    /// What `waitForHangUp` observed.
    enum HangUpCheck {
        /// The timeout passed and the connection looks alive.
        case quiet
        /// The peer sent more bytes (a pipelined request); they stay queued in the socket.
        case dataPending
        /// The peer closed or reset the connection, or the socket was shut down locally.
        case hungUp
    }

    /// Waits up to `milliseconds` for the peer to close or reset the connection, without
    /// consuming any bytes it sent.
    ///
    /// - Parameter watchForData: pass `false` once `.dataPending` was reported: readable data
    ///   would make `poll(2)` return at once, so only errors and hang-ups are watched then.
    static func waitForHangUp(_ descriptor: Int32, milliseconds: Int32, watchForData: Bool) -> HangUpCheck {
        var entry = pollfd(fd: descriptor, events: watchForData ? Int16(POLLIN) : 0, revents: 0)
        let ready = poll(&entry, 1, milliseconds)
        if ready <= 0 { return .quiet }  // timeout, or EINTR: the caller loops either way
        if entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return .hungUp }
        guard entry.revents & Int16(POLLIN) != 0 else { return .quiet }
        var byte: UInt8 = 0
        let peeked = recv(descriptor, &byte, 1, Int32(MSG_PEEK))
        if peeked > 0 { return .dataPending }
        if peeked < 0 && (errno == EINTR || errno == EAGAIN) { return .quiet }
        return .hungUp  // 0 is an orderly close; other errors are resets
    }

    /// Waits up to `milliseconds` for `descriptor` to become readable.
    ///
    /// - Returns: `true` if readable (or hung up, which reads as end of stream).
    static func waitReadable(_ descriptor: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Waits until one of two descriptors is readable; used by the accept loop to wait for
    /// either a new connection or the shutdown wake-up pipe. Returns whether `first` is.
    static func waitReadable(_ first: Int32, _ second: Int32) -> Bool {
        var entries = [
            pollfd(fd: first, events: Int16(POLLIN), revents: 0),
            pollfd(fd: second, events: Int16(POLLIN), revents: 0),
        ]
        return poll(&entries, 2, -1) > 0 && entries[0].revents & Int16(POLLIN) != 0
    }

    /// Shuts down both directions, which wakes any thread blocked in `recv`, `send` or `poll`
    /// on the descriptor. The descriptor stays open so its number cannot be reused meanwhile.
    static func shutdownBoth(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// Shuts down the sending direction: the peer reads end of stream after our last byte.
    static func shutdownWrite(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Makes the next `close` send a TCP reset instead of an orderly FIN.
    static func setResetOnClose(_ descriptor: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Closes a descriptor, ignoring errors (there is nothing useful to do about them).
    static func closeDescriptor(_ descriptor: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
    }

    /// Creates a close-on-exec pipe used to wake the accept loop at shutdown.
    static func makeWakePipe() throws(LoopbackServerError) -> (reader: Int32, writer: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .socketCallFailed(call: "pipe", errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Writes one byte to the wake-up pipe.
    static func signalWakePipe(_ writer: Int32) {
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    private static func makeStreamSocket() -> Int32 {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        if descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return descriptor
        #else
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
    }

    private static func setNonBlocking(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        return flags >= 0 && fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0
    }

    private static func setOption(_ descriptor: Int32, level: Int32, name: Int32, value: Int32) -> Bool {
        var value = value
        return setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
}
