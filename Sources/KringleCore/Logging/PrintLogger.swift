/// A ``KringleLogger`` that prints every event to standard output.
///
/// ```swift
/// let verbose = client.newClient(withLogger: PrintLogger())
/// ```
public struct PrintLogger: KringleLogger {
    /// Creates a logger that prints.
    public init() {}

    /// Prints `event` on one line, prefixed with `[Kringle]`.
    public func log(_ event: KringleLogEvent) {
        print("[Kringle] \(event.description)")
    }
}
