/// A promise seen without its value type: what cancellation and cycle detection walk.
protocol PromiseNode: AnyObject, Sendable {
    /// Cancels this promise if it is pending and returns the promises it was waiting for.
    func cancelAndCollectDependencies() -> [any PromiseNode]
    /// The still-pending promises this pending promise waits for.
    var pendingDependencies: [any PromiseNode] { get }
    /// Records that this pending promise waits for `new` where it waited for `old`.
    func replaceDependency(_ old: AnyObject, with new: AnyObject)
}
