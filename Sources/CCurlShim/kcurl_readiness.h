// The descriptors a multi handle waits on (kcurl_readiness.c); private to CCurlShim.

#ifndef KRINGLE_KCURL_READINESS_H
#define KRINGLE_KCURL_READINESS_H

#include "CCurlShim.h"

struct pollfd;

/// An epoll instance (Linux) or a poll() array, with the wake-up descriptor in it.
struct kcurl_readiness {
    /// 1 when the set is a poll() array (every platform but Linux, and tests).
    int portable;
    /// Linux: the sockets' epoll instance; -1 otherwise.
    int epoll;
    /// Linux: the driving thread's instance, with the sockets' one and the wake-up in it.
    int driver_epoll;
    /// Linux: an eventfd in the sockets' instance that interrupts an assistant's wait.
    int assistant_wake_up;
    /// The wake-up's ends: one eventfd on Linux, a self-pipe's two ends for poll().
    int wake_read;
    int wake_write;
    /// poll(): the watched descriptors and their tags, `count` of `capacity`; the wake-up first.
    struct pollfd *fds;
    uint64_t *tags;
    int count;
    int capacity;
    /// By descriptor number: poll(), its slot in `fds` plus one (0 for none); epoll, what it
    /// is added with (kcurl_readiness.c).
    int *slots;
    int slot_capacity;
};

/// Opens an empty set with the wake-up in it; 0, or -1 with errno set.
int kcurl_readiness_open(struct kcurl_readiness *readiness, int portable);
void kcurl_readiness_close(struct kcurl_readiness *readiness);
/// Watches `fd` for `events` (KCURL_WATCH_IN, KCURL_WATCH_OUT), reported with `tag`; a
/// descriptor already watched changes. `edge`: reported once per change rather than while
/// ready (epoll only; poll() is always level-triggered). 0, or -1 with errno set.
int kcurl_readiness_watch(struct kcurl_readiness *readiness, int fd, int events, uint64_t tag, int edge);
/// Stops watching `fd`; a descriptor not watched is ignored.
void kcurl_readiness_unwatch(struct kcurl_readiness *readiness, int fd);
/// Stops watching curl's socket `fd` for now: with epoll it stays added, unwanted, so that
/// watching it again for the same events costs nothing (kcurl_readiness_claim).
void kcurl_readiness_release(struct kcurl_readiness *readiness, int fd);
/// Whether a report for curl's socket `fd` is wanted; takes one that is not out of the set.
int kcurl_readiness_claim(struct kcurl_readiness *readiness, int fd);
/// Waits up to `timeout_ms` (-1: no limit) for a watched descriptor or a wake-up, and fills
/// `events` with what happened (a wake-up as KCURL_TAG_WAKE_UP); returns how many, or -1 with
/// errno set.
int kcurl_readiness_wait(struct kcurl_readiness *readiness, int timeout_ms, kcurl_event *events, int capacity);
/// Interrupts the current or next wait; any thread may call it.
int kcurl_readiness_wake(struct kcurl_readiness *readiness);
/// An assistant arrives (epoll only, else -1): the driving thread's wait stops watching the
/// sockets, which the assistant watches with kcurl_readiness_assist_wait until
/// kcurl_readiness_assist_end gives them back.
int kcurl_readiness_assist_begin(struct kcurl_readiness *readiness);
int kcurl_readiness_assist_wait(struct kcurl_readiness *readiness, int timeout_ms, kcurl_event *events, int capacity);
int kcurl_readiness_assist_end(struct kcurl_readiness *readiness);
/// Interrupts the assistant's current or next wait; any thread may call it.
int kcurl_readiness_wake_assistant(struct kcurl_readiness *readiness);

#endif
