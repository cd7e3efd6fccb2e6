// CThreadSanitizer: happens-before annotations for ThreadSanitizer, for a lock whose waits
// the sanitizer cannot see.
//
// Synchronization's Mutex (each promise's lock, PromiseLock in KringlePromise) hands a
// contended lock over inside the kernel (a priority-inheritance futex on Linux): the waiter
// never does the atomic operation that would tell ThreadSanitizer it acquired what the last
// owner released. ThreadSanitizer runs (Scripts/tsan.sh, -DKRINGLE_TSAN) call these around
// each critical section, so the sanitizer checks the production lock, told what it cannot
// see; other builds never call them.
//
// Compiled with -fsanitize=thread (swift build --sanitize=thread), each is a call into the
// sanitizer's runtime; otherwise each does nothing, and kringle_tsan_is_active says so.

#ifndef KRINGLE_CTHREADSANITIZER_H
#define KRINGLE_CTHREADSANITIZER_H

#ifdef __cplusplus
extern "C" {
#endif

/// Tells ThreadSanitizer that the calling thread now holds the lock at `address`: what
/// every thread did before its last kringle_tsan_release(address) happened before what
/// this thread does next (`__tsan_acquire`).
void kringle_tsan_acquire(const void *address);

/// Tells ThreadSanitizer that the calling thread is about to let go of the lock at
/// `address` (`__tsan_release`).
void kringle_tsan_release(const void *address);

/// 1 when this file was compiled for ThreadSanitizer (so the two above reach it), else 0.
int kringle_tsan_is_active(void);

#ifdef __cplusplus
}
#endif

#endif
