#if os(Linux)
import CCurlShim

/// Which WebSocket sockets are ready, found without looking at the idle ones: an epoll
/// instance holds every socket, edge-triggered, and its one descriptor is what the driving
/// thread's poll watches besides curl's. A wake-up then costs what the ready sockets cost,
/// however many sit idle (``CurlDriver``).
///
/// Edge-triggered, a socket is reported when it becomes readable or writable; its link reads
/// and writes until the socket has no more (``CurlWebSocketLink/service(scratch:)``), or is
/// given another turn without a report when it stopped short of that.
final class SocketReadiness {
    let descriptor: Int32
    private var ids = [UInt64](repeating: 0, count: 256)

    init?() {
        descriptor = kcurl_readiness_create()
        guard descriptor >= 0 else { return nil }
    }

    deinit {
        kcurl_readiness_destroy(descriptor)
    }

    /// Watches `socket` for the link `id`; `false` when epoll refused it.
    func add(_ socket: Int32, id: UInt64) -> Bool {
        kcurl_readiness_add(descriptor, socket, id) == 0
    }

    /// Stops watching `socket` (before it is closed, so that a reused number is not confused).
    func remove(_ socket: Int32) {
        kcurl_readiness_remove(descriptor, socket)
    }

    /// The links whose sockets changed since the last call; does not wait.
    func ready() -> ArraySlice<UInt64> {
        let count = ids.withUnsafeMutableBufferPointer { buffer in
            kcurl_readiness_ready(descriptor, buffer.baseAddress, Int32(buffer.count))
        }
        return ids[0..<Int(count)]
    }
}
#endif
