/// How a transport offers its sockets to the next `wait()` on a thread.
@_spi(KringleInternals)
public enum PromiseWaitAssistance {
    /// Offers `assistant` to the next ``Promise/wait(timeout:)`` on the calling thread; the
    /// thread holds it weakly.
    public static func offer(_ assistant: any PromiseWaitAssistant) {
        PromiseThread.withCurrent { $0.waitAssistant = assistant }
    }

    /// Takes the assistant offered on the calling thread, if it still exists: one `wait()`
    /// uses it, the one that follows the request, rather than any later wait for something
    /// unrelated.
    static func take() -> (any PromiseWaitAssistant)? {
        PromiseThread.withCurrent { thread in
            defer { thread.waitAssistant = nil }
            return thread.waitAssistant
        }
    }
}
