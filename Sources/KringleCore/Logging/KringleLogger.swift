import Foundation

/// Receives what a ``NetworkClient`` does, as structured events.
///
/// Secrets are redacted before an event is made: secret headers, secret query items and URL
/// passwords (see ``Redaction`` and ``NetworkClient/Configuration-swift.struct/redaction``).
/// An event's URLs, headers and errors are ``Redacted`` values, which only a ``Redaction``
/// makes, so no event can carry one that skipped it.
/// ``PrintLogger`` prints events; an adapter to swift-log, or to anything else, is a few lines:
/// ```swift
/// struct SwiftLogAdapter: KringleLogger {
///     let logger: Logger   // import Logging
///     func log(_ event: KringleLogEvent) {
///         logger.info("\(event.description)")
///     }
/// }
/// ```
///
/// **Which thread, and may it block?** ``log(_:)`` runs as a promise handler does: on
/// `DispatchQueue.promises`, under no lock of the client's, never on a timer's thread nor on
/// a transport's while it drives (the curl transport's thread may run it lent to that queue,
/// and goes on with a new thread if it blocks there). It may block, even on a request of the
/// same client:
/// ```swift
/// func log(_ event: KringleLogEvent) {
///     // Not about the report itself, or a failing report would report itself for ever.
///     guard case .failure(_, let url, _) = event, url.value.path != "/report" else { return }
///     _ = try? client.post(report(event), to: Diagnostics.report).wait(timeout: 5)
/// }
/// ```
/// A call's events are steps of the call: they arrive one after another, in the order they
/// happened, and before the call's promise settles, so the call waits for a logger that
/// blocks (and no other call does). The event of a cancellation comes after it, as the
/// cancellation does not wait. Different calls' events may arrive at once, on different
/// threads.
public protocol KringleLogger: Sendable {
    /// Receives one event, on `DispatchQueue.promises` (see ``KringleLogger``); the call it
    /// belongs to goes on once it returns.
    func log(_ event: KringleLogEvent)
}
