import Foundation

/// Runs each job on a new thread: a task that prefers it (`withTaskExecutorPreference`) runs
/// its code there, away from Swift concurrency's cooperative pool, and may block
/// (``onOwnThread(_:)``).
final class OwnThreadExecutor: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}
