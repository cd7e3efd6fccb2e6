import Dispatch

extension DispatchQueue {
    /// The queue promise handlers run on when you name none.
    ///
    /// A concurrent queue of the library's own, not the main queue: command-line tools and
    /// servers have no main run loop, and unrelated chains must not wait behind each other.
    /// Handlers of one promise registered for this queue still run in registration order.
    public static let promises = DispatchQueue(label: "kringle.promises", attributes: .concurrent)

    /// The serial queue the library's timers fire on (`delay`, `timeout`, `retry`).
    /// Their work is tiny: they only settle or cancel promises.
    static let promiseTimers = DispatchQueue(label: "kringle.promise-timers")
}
