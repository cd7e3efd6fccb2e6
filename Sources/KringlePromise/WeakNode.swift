/// A weak reference to a promise this one waits for (see `Promise.dependency`).
struct WeakNode: Sendable {
    weak var node: (any PromiseNode)?
}
