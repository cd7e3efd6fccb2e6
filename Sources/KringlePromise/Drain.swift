import Dispatch

/// A drain to start: one queue's handlers to run.
struct Drain: Sendable {
    enum Kind: Sendable {
        /// The drain whose job captures only the promise and finds its queue in the state
        /// (see `PromiseState`).
        case primary
        /// A drain whose job carries its queue.
        case other
    }

    let queue: DispatchQueue
    let kind: Kind
}
