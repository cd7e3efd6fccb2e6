// The descriptors a multi handle waits on, watched by Kringle instead of inside libcurl:
// curl's own sockets, which its socket callback announces (curl_multi_socket_action), the
// WebSockets' sockets, and a wake-up descriptor that lets any thread interrupt a wait.
//
// Waiting outside libcurl is what lets a thread other than the driving one use the multi
// handle while the driving thread sleeps (CurlEngine.swift). On Linux the set is an epoll
// instance: adding or changing a socket is one system call, and a wait costs what the ready
// sockets cost, however many sit idle. Elsewhere (and in tests, `portable`) it is an array
// for poll(), with a table from descriptor to slot so that a change costs no search.
//
// With epoll, a thread blocked in a promise's wait() may wait for the sockets in the driving
// thread's place (an assistant, CurlEngine+Assistance.swift), so that the response to its own
// request wakes it rather than the driving thread. The driving thread therefore sleeps on an
// epoll instance of its own holding the sockets' one (nested) and its wake-up; an assistant
// takes the sockets' instance out of it, without waking it, and waits on that instance
// directly, the only thread that does, with a wake-up of its own in it; then puts it back.

#include "kcurl_readiness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// The tag of the sockets' epoll instance inside the driving thread's.
static const uint64_t TAG_SOCKETS = UINT64_MAX - 1;
/// The tag of the assistant's wake-up inside the sockets' instance.
static const uint64_t TAG_ASSISTANT_WAKE_UP = UINT64_MAX - 2;
#endif

/// Makes `descriptor` non-blocking and close-on-exec; 0 on success.
static int make_nonblocking(int descriptor) {
    int flags = fcntl(descriptor, F_GETFL);
    if (flags == -1 || fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == -1) {
        return -1;
    }
    return fcntl(descriptor, F_SETFD, FD_CLOEXEC);
}

/// The wake-up descriptor: an eventfd on Linux (one descriptor, any number of wake-ups in one
/// counter), a non-blocking self-pipe elsewhere.
static int open_wake_up(struct kcurl_readiness *readiness) {
#ifdef __linux__
    if (!readiness->portable) {
        int event = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        readiness->wake_read = event;
        readiness->wake_write = event;
        return event >= 0 ? 0 : -1;
    }
#endif
    int ends[2];
    if (pipe(ends) != 0) {
        return -1;
    }
    if (make_nonblocking(ends[0]) != 0 || make_nonblocking(ends[1]) != 0) {
        close(ends[0]);
        close(ends[1]);
        return -1;
    }
    readiness->wake_read = ends[0];
    readiness->wake_write = ends[1];
    return 0;
}

int kcurl_readiness_open(struct kcurl_readiness *readiness, int portable) {
    memset(readiness, 0, sizeof(*readiness));
    readiness->epoll = -1;
    readiness->driver_epoll = -1;
    readiness->assistant_wake_up = -1;
#ifdef __linux__
    readiness->portable = portable;
#else
    (void)portable;
    readiness->portable = 1;
#endif
    if (open_wake_up(readiness) != 0) {
        return -1;
    }
#ifdef __linux__
    if (!readiness->portable) {
        readiness->epoll = epoll_create1(EPOLL_CLOEXEC);
        readiness->driver_epoll = epoll_create1(EPOLL_CLOEXEC);
        readiness->assistant_wake_up = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        struct epoll_event wake_up = {.events = EPOLLIN, .data.u64 = KCURL_TAG_WAKE_UP};
        struct epoll_event sockets = {.events = EPOLLIN, .data.u64 = TAG_SOCKETS};
        struct epoll_event assistant = {.events = EPOLLIN, .data.u64 = TAG_ASSISTANT_WAKE_UP};
        if (readiness->epoll < 0 || readiness->driver_epoll < 0 || readiness->assistant_wake_up < 0
            || epoll_ctl(readiness->driver_epoll, EPOLL_CTL_ADD, readiness->wake_read, &wake_up) != 0
            || epoll_ctl(readiness->driver_epoll, EPOLL_CTL_ADD, readiness->epoll, &sockets) != 0
            || epoll_ctl(readiness->epoll, EPOLL_CTL_ADD, readiness->assistant_wake_up, &assistant) != 0) {
            kcurl_readiness_close(readiness);
            return -1;
        }
        return 0;
    }
#endif
    // The wake-up is the first slot of the poll() array, watched for good.
    return kcurl_readiness_watch(readiness, readiness->wake_read, KCURL_WATCH_IN, KCURL_TAG_WAKE_UP, 0);
}

void kcurl_readiness_close(struct kcurl_readiness *readiness) {
    if (readiness->epoll >= 0) {
        close(readiness->epoll);
    }
    if (readiness->driver_epoll >= 0) {
        close(readiness->driver_epoll);
    }
    if (readiness->assistant_wake_up >= 0) {
        close(readiness->assistant_wake_up);
    }
    if (readiness->wake_read >= 0) {
        close(readiness->wake_read);
    }
    if (readiness->wake_write >= 0 && readiness->wake_write != readiness->wake_read) {
        close(readiness->wake_write);
    }
    free(readiness->fds);
    free(readiness->tags);
    free(readiness->slots);
    memset(readiness, 0, sizeof(*readiness));
    readiness->epoll = -1;
    readiness->driver_epoll = -1;
    readiness->assistant_wake_up = -1;
    readiness->wake_read = -1;
    readiness->wake_write = -1;
}

// MARK: - poll(): an array, and a table from descriptor to slot (0 for none, else slot + 1)

/// Grows `slots` to hold descriptor `fd`; 0 or -1.
static int reserve_slot(struct kcurl_readiness *readiness, int fd) {
    if (fd >= readiness->slot_capacity) {
        int capacity = readiness->slot_capacity > 0 ? readiness->slot_capacity : 64;
        while (capacity <= fd) {
            capacity *= 2;
        }
        int *slots = realloc(readiness->slots, (size_t)capacity * sizeof(int));
        if (slots == NULL) {
            return -1;
        }
        memset(slots + readiness->slot_capacity, 0, (size_t)(capacity - readiness->slot_capacity) * sizeof(int));
        readiness->slots = slots;
        readiness->slot_capacity = capacity;
    }
    return 0;
}

/// Grows `slots` to hold descriptor `fd`, and the arrays to hold one more entry; 0 or -1.
static int reserve(struct kcurl_readiness *readiness, int fd) {
    if (reserve_slot(readiness, fd) != 0) {
        return -1;
    }
    if (readiness->count == readiness->capacity) {
        int capacity = readiness->capacity > 0 ? readiness->capacity * 2 : 16;
        struct pollfd *fds = realloc(readiness->fds, (size_t)capacity * sizeof(struct pollfd));
        if (fds == NULL) {
            return -1;
        }
        readiness->fds = fds;
        uint64_t *tags = realloc(readiness->tags, (size_t)capacity * sizeof(uint64_t));
        if (tags == NULL) {
            return -1;
        }
        readiness->tags = tags;
        readiness->capacity = capacity;
    }
    return 0;
}

static int watch_portable(struct kcurl_readiness *readiness, int fd, int events, uint64_t tag) {
    short wanted = (short)(((events & KCURL_WATCH_IN) ? POLLIN : 0) | ((events & KCURL_WATCH_OUT) ? POLLOUT : 0));
    int slot = fd < readiness->slot_capacity ? readiness->slots[fd] - 1 : -1;
    if (slot < 0) {
        if (reserve(readiness, fd) != 0) {
            return -1;
        }
        slot = readiness->count++;
        readiness->slots[fd] = slot + 1;
        readiness->fds[slot].fd = fd;
    }
    readiness->fds[slot].events = wanted;
    readiness->fds[slot].revents = 0;
    readiness->tags[slot] = tag;
    return 0;
}

static void unwatch_portable(struct kcurl_readiness *readiness, int fd) {
    int slot = fd < readiness->slot_capacity ? readiness->slots[fd] - 1 : -1;
    if (slot < 0) {
        return;
    }
    // The last entry takes the freed slot.
    int last = --readiness->count;
    if (slot != last) {
        readiness->fds[slot] = readiness->fds[last];
        readiness->tags[slot] = readiness->tags[last];
        readiness->slots[readiness->fds[slot].fd] = slot + 1;
    }
    readiness->slots[fd] = 0;
}

static int wait_portable(
    struct kcurl_readiness *readiness, int timeout_ms, kcurl_event *events, int capacity, int *woken) {
    int ready = poll(readiness->fds, (nfds_t)readiness->count, timeout_ms);
    if (ready < 0) {
        return errno == EINTR ? 0 : -1;
    }
    int count = 0;
    for (int slot = 0; slot < readiness->count && ready > 0 && count < capacity; slot++) {
        short revents = readiness->fds[slot].revents;
        if (revents == 0) {
            continue;
        }
        ready--;
        if (readiness->tags[slot] == KCURL_TAG_WAKE_UP) {
            *woken = 1;
        }
        int mask = ((revents & (POLLIN | POLLHUP)) ? KCURL_WATCH_IN : 0) | ((revents & POLLOUT) ? KCURL_WATCH_OUT : 0)
            | ((revents & (POLLERR | POLLNVAL)) ? KCURL_WATCH_ERROR : 0);
        events[count++] = (kcurl_event){readiness->tags[slot], mask};
    }
    return count;
}

#ifdef __linux__
// MARK: - epoll: `slots` holds what each descriptor is added with
//
// A curl socket that curl stops watching stays added, unwanted, until it is wanted again or
// reports something: a kept-alive connection goes from one transfer to the next without a
// system call, where deleting and adding it would cost two per request.

enum {
    SLOT_ADDED = 1,
    SLOT_WANTED = 2,
    /// Tagged as curl's socket of that number, rather than with an application's tag.
    SLOT_CURL = 4,
    SLOT_IN = 8,
    SLOT_OUT = 16,
    SLOT_EDGE = 32,
};

static int watch_epoll(struct kcurl_readiness *readiness, int fd, int events, uint64_t tag, int edge) {
    if (reserve_slot(readiness, fd) != 0) {
        return -1;
    }
    int curl = tag == (KCURL_TAG_CURL_SOCKET | (uint64_t)(unsigned int)fd);
    int wanted = SLOT_ADDED | SLOT_WANTED | (curl ? SLOT_CURL : 0) | ((events & KCURL_WATCH_IN) ? SLOT_IN : 0)
        | ((events & KCURL_WATCH_OUT) ? SLOT_OUT : 0) | (edge ? SLOT_EDGE : 0);
    int state = readiness->slots[fd];
    if (curl && (state | SLOT_WANTED) == wanted) {
        readiness->slots[fd] = wanted;
        return 0;
    }
    uint32_t flags = ((events & KCURL_WATCH_IN) ? EPOLLIN | EPOLLRDHUP : 0) | ((events & KCURL_WATCH_OUT) ? EPOLLOUT : 0)
        | (edge ? EPOLLET : 0);
    struct epoll_event event = {.events = flags, .data.u64 = tag};
    int added = state & SLOT_ADDED;
    if (epoll_ctl(readiness->epoll, added ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event) != 0) {
        // A descriptor closed while added leaves epoll by itself, and its number may come
        // back as a new socket: then the other operation is the right one.
        if (errno != (added ? ENOENT : EEXIST)
            || epoll_ctl(readiness->epoll, added ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event) != 0) {
            readiness->slots[fd] = 0;
            return -1;
        }
    }
    readiness->slots[fd] = wanted;
    return 0;
}

static void unwatch_epoll(struct kcurl_readiness *readiness, int fd) {
    struct epoll_event event = {0};
    epoll_ctl(readiness->epoll, EPOLL_CTL_DEL, fd, &event);
    if (fd < readiness->slot_capacity) {
        readiness->slots[fd] = 0;
    }
}
#endif

// MARK: - Both

int kcurl_readiness_watch(struct kcurl_readiness *readiness, int fd, int events, uint64_t tag, int edge) {
#ifdef __linux__
    if (!readiness->portable) {
        return watch_epoll(readiness, fd, events, tag, edge);
    }
#endif
    (void)edge;
    return watch_portable(readiness, fd, events, tag);
}

void kcurl_readiness_unwatch(struct kcurl_readiness *readiness, int fd) {
#ifdef __linux__
    if (!readiness->portable) {
        unwatch_epoll(readiness, fd);
        return;
    }
#endif
    unwatch_portable(readiness, fd);
}

void kcurl_readiness_release(struct kcurl_readiness *readiness, int fd) {
#ifdef __linux__
    if (!readiness->portable) {
        if (fd < readiness->slot_capacity && (readiness->slots[fd] & SLOT_CURL)) {
            readiness->slots[fd] &= ~SLOT_WANTED;
        } else {
            unwatch_epoll(readiness, fd);
        }
        return;
    }
#endif
    unwatch_portable(readiness, fd);
}

int kcurl_readiness_claim(struct kcurl_readiness *readiness, int fd) {
#ifdef __linux__
    if (!readiness->portable) {
        if (fd < readiness->slot_capacity && (readiness->slots[fd] & SLOT_WANTED)) {
            return 1;
        }
        // Reported while unwanted (an idle connection closing, say): out of the set for good.
        unwatch_epoll(readiness, fd);
        return 0;
    }
#endif
    return fd < readiness->slot_capacity && readiness->slots[fd] != 0;
}

/// Takes the pending wake-ups, so that the next wait sleeps again: one read resets an eventfd's
/// counter; a pipe is read until it is empty.
static void drain_wake_up(struct kcurl_readiness *readiness) {
    uint64_t sink[8];
    if (readiness->wake_read == readiness->wake_write) {
        (void)read(readiness->wake_read, sink, sizeof(uint64_t));
        return;
    }
    while (read(readiness->wake_read, sink, sizeof(sink)) > 0) {
    }
}

#ifdef __linux__
/// Waits on the sockets' epoll instance and reports what is ready; the assistant's wake-up
/// is taken and reported as a wake-up.
static int harvest(struct kcurl_readiness *readiness, int timeout_ms, kcurl_event *events, int capacity) {
    struct epoll_event ready[128];
    int found = epoll_wait(readiness->epoll, ready, capacity < 128 ? capacity : 128, timeout_ms);
    if (found < 0) {
        return errno == EINTR ? 0 : -1;
    }
    int count = 0;
    for (int index = 0; index < found; index++) {
        uint64_t tag = ready[index].data.u64;
        if (tag == TAG_ASSISTANT_WAKE_UP) {
            uint64_t sink;
            (void)read(readiness->assistant_wake_up, &sink, sizeof(sink));
            events[count++] = (kcurl_event){KCURL_TAG_WAKE_UP, KCURL_WATCH_IN};
            continue;
        }
        uint32_t happened = ready[index].events;
        int mask = ((happened & (EPOLLIN | EPOLLHUP | EPOLLRDHUP)) ? KCURL_WATCH_IN : 0)
            | ((happened & EPOLLOUT) ? KCURL_WATCH_OUT : 0) | ((happened & EPOLLERR) ? KCURL_WATCH_ERROR : 0);
        events[count++] = (kcurl_event){tag, mask};
    }
    return count;
}

/// The driving thread's wait: on its own instance, which holds the sockets' (unless an
/// assistant has it) and the wake-up.
static int wait_epoll(struct kcurl_readiness *readiness, int timeout_ms, kcurl_event *events, int capacity) {
    struct epoll_event ready[2];
    int found = epoll_wait(readiness->driver_epoll, ready, 2, timeout_ms);
    if (found < 0) {
        return errno == EINTR ? 0 : -1;
    }
    int count = 0;
    for (int index = 0; index < found; index++) {
        if (ready[index].data.u64 == TAG_SOCKETS) {
            int harvested = harvest(readiness, 0, events + count, capacity - count - 1);
            if (harvested < 0) {
                return -1;
            }
            count += harvested;
        } else {
            drain_wake_up(readiness);
            events[count++] = (kcurl_event){KCURL_TAG_WAKE_UP, KCURL_WATCH_IN};
        }
    }
    return count;
}
#endif

int kcurl_readiness_wait(struct kcurl_readiness *readiness, int timeout_ms, kcurl_event *events, int capacity) {
#ifdef __linux__
    if (!readiness->portable) {
        return wait_epoll(readiness, timeout_ms, events, capacity);
    }
#endif
    int woken = 0;
    int count = wait_portable(readiness, timeout_ms, events, capacity, &woken);
    // A wake-up written after this point interrupts the next wait instead.
    if (woken) {
        drain_wake_up(readiness);
    }
    return count;
}

int kcurl_readiness_assist_begin(struct kcurl_readiness *readiness) {
#ifdef __linux__
    if (!readiness->portable) {
        struct epoll_event event = {0};
        return epoll_ctl(readiness->driver_epoll, EPOLL_CTL_DEL, readiness->epoll, &event);
    }
#else
    (void)readiness;
#endif
    return -1;
}

int kcurl_readiness_assist_wait(struct kcurl_readiness *readiness, int timeout_ms, kcurl_event *events, int capacity) {
#ifdef __linux__
    return harvest(readiness, timeout_ms, events, capacity);
#else
    (void)readiness;
    (void)timeout_ms;
    (void)events;
    (void)capacity;
    return -1;
#endif
}

int kcurl_readiness_assist_end(struct kcurl_readiness *readiness) {
#ifdef __linux__
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = TAG_SOCKETS};
    return epoll_ctl(readiness->driver_epoll, EPOLL_CTL_ADD, readiness->epoll, &event);
#else
    (void)readiness;
    return -1;
#endif
}

int kcurl_readiness_wake_assistant(struct kcurl_readiness *readiness) {
#ifdef __linux__
    uint64_t one = 1;
    while (write(readiness->assistant_wake_up, &one, sizeof(one)) < 0) {
        if (errno != EINTR) {
            break;
        }
    }
#else
    (void)readiness;
#endif
    return 0;
}

int kcurl_readiness_wake(struct kcurl_readiness *readiness) {
    uint64_t one = 1;
    // A full pipe (EAGAIN) or a saturated counter already holds a pending wake-up.
    while (write(readiness->wake_write, &one, readiness->wake_write == readiness->wake_read ? 8 : 1) < 0) {
        if (errno != EINTR) {
            break;
        }
    }
    return 0;
}
