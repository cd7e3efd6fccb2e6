/// driving thread, and `curl_multi_cleanup` in the engine's `deinit`, when no other
/// reference is left.
// Guarded by confinement: only curl_multi_wakeup is called off the driving thread.
struct MultiHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
