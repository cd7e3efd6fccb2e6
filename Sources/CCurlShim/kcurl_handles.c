// Everything a request calls in libcurl, through the table kcurl_load.c resolves: the easy
// handle, its header lists, and the multi handle with the wait its driving thread sleeps in. Kept in one file so that a request runs code in this file alone.
//
// Swift cannot call the variadic setopt and getinfo functions, so each argument type gets a
// wrapper that passes exactly the type curl's documentation gives for that kind of option
// (long, pointer, curl_off_t, function pointer), which is what curl reads back with va_arg.

#include "kcurl_api.h"
#include "kcurl_readiness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

// MARK: - The table

/// Written once, by kcurl_load inside its pthread_once, and only read afterwards, so it
/// needs no lock.
static struct kcurl_api api;

void kcurl_set_api(const struct kcurl_api *table) {
    api = *table;
}

const struct kcurl_api *kcurl_api(void) {
    return &api;
}

// MARK: - Easy handles and header lists

kcurl_easy *kcurl_easy_init(void) {
    return (kcurl_easy *)kcurl_api()->easy_init();
}

void kcurl_easy_cleanup(kcurl_easy *easy) {
    kcurl_api()->easy_cleanup(easy);
}

void kcurl_easy_reset(kcurl_easy *easy) {
    kcurl_api()->easy_reset(easy);
}

int kcurl_easy_setopt_long(kcurl_easy *easy, kcurl_option option, long value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_pointer(kcurl_easy *easy, kcurl_option option, const void *value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_off_t(kcurl_easy *easy, kcurl_option option, int64_t value) {
    // curl_off_t is a 64-bit signed integer on every platform curl supports.
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_callback(kcurl_easy *easy, kcurl_option option, kcurl_data_callback value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_xferinfo(kcurl_easy *easy, kcurl_option option, kcurl_xferinfo_callback value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_seek(kcurl_easy *easy, kcurl_option option, kcurl_seek_callback value) {
    return kcurl_api()->easy_setopt(easy, (int)option, value);
}

int kcurl_easy_setopt_blob(kcurl_easy *easy, kcurl_option option, const void *data, size_t length) {
    struct kcurl_blob blob = {(void *)data, length, KCURL_BLOB_COPY};
    return kcurl_api()->easy_setopt(easy, (int)option, &blob);
}

int kcurl_easy_getinfo_long(kcurl_easy *easy, kcurl_info info, long *value) {
    return kcurl_api()->easy_getinfo(easy, (int)info, value);
}

int kcurl_easy_getinfo_string(kcurl_easy *easy, kcurl_info info, const char **value) {
    return kcurl_api()->easy_getinfo(easy, (int)info, value);
}

int kcurl_easy_getinfo_off_t(kcurl_easy *easy, kcurl_info info, int64_t *value) {
    return kcurl_api()->easy_getinfo(easy, (int)info, value);
}

int kcurl_easy_unpause(kcurl_easy *easy) {
    return kcurl_api()->easy_pause(easy, 0);  // CURLPAUSE_CONT
}

const char *kcurl_easy_strerror(int code) {
    return kcurl_api()->easy_strerror(code);
}

kcurl_slist *kcurl_slist_append(kcurl_slist *list, const char *line) {
    return kcurl_api()->slist_append(list, line);
}

void kcurl_slist_free_all(kcurl_slist *list) {
    kcurl_api()->slist_free_all(list);
}

// MARK: - The multi handle
//
// Kringle waits for curl's sockets itself (curl_multi_socket_action): curl announces each
// socket it wants watched through the socket callback, and the time it next needs a call
// through the timer callback; kcurl_multi_wait sleeps on them with kcurl_readiness.c.

struct kcurl_multi {
    void *handle;
    struct kcurl_readiness readiness;
    /// When curl's timer is due, in nanoseconds of the monotonic clock; -1 for no timer.
    /// Written by the timer callback, which runs inside a call into the multi handle.
    int64_t timer_due;
};

int64_t kcurl_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// CURLMOPT_SOCKETFUNCTION: watch `socket` as curl asks (CURL_POLL_IN 1, OUT 2, INOUT 3,
/// REMOVE 4), level-triggered, tagged with its number.
static int on_socket(void *easy, int socket, int what, void *context, void *socket_context) {
    (void)easy;
    (void)socket_context;
    struct kcurl_multi *multi = context;
    if (what == 4) {
        kcurl_readiness_release(&multi->readiness, socket);
        return 0;
    }
    uint64_t tag = KCURL_TAG_CURL_SOCKET | (uint64_t)(unsigned int)socket;
    // -1 fails the transfers on this socket (curl 7.88 and later check the result).
    return kcurl_readiness_watch(&multi->readiness, socket, what & (KCURL_WATCH_IN | KCURL_WATCH_OUT), tag, 0);
}

/// CURLMOPT_TIMERFUNCTION: curl wants a call with CURL_SOCKET_TIMEOUT in `timeout_ms`
/// (0: as soon as possible, never from inside this callback), or no call (-1).
static int on_timer(void *handle, long timeout_ms, void *context) {
    (void)handle;
    struct kcurl_multi *multi = context;
    multi->timer_due = timeout_ms < 0 ? -1 : kcurl_now() + (int64_t)timeout_ms * 1000000;
    return 0;
}

/// multi.h: CURLMOPT_SOCKETFUNCTION, _SOCKETDATA, _TIMERFUNCTION and _TIMERDATA.
enum {
    KCURLMOPT_SOCKETFUNCTION = 20001,
    KCURLMOPT_SOCKETDATA = 10002,
    KCURLMOPT_TIMERFUNCTION = 20004,
    KCURLMOPT_TIMERDATA = 10005,
};

kcurl_multi *kcurl_multi_create(int portable) {
    const struct kcurl_api *api = kcurl_api();
    struct kcurl_multi *multi = calloc(1, sizeof(struct kcurl_multi));
    if (multi == NULL) {
        return NULL;
    }
    multi->timer_due = -1;
    if (kcurl_readiness_open(&multi->readiness, portable) != 0) {
        free(multi);
        return NULL;
    }
    multi->handle = api->multi_init();
    if (multi->handle == NULL || api->multi_setopt(multi->handle, KCURLMOPT_SOCKETFUNCTION, on_socket) != 0
        || api->multi_setopt(multi->handle, KCURLMOPT_SOCKETDATA, (void *)multi) != 0
        || api->multi_setopt(multi->handle, KCURLMOPT_TIMERFUNCTION, on_timer) != 0
        || api->multi_setopt(multi->handle, KCURLMOPT_TIMERDATA, (void *)multi) != 0) {
        if (multi->handle != NULL) {
            api->multi_cleanup(multi->handle);
        }
        kcurl_readiness_close(&multi->readiness);
        free(multi);
        return NULL;
    }
    return multi;
}

void kcurl_multi_destroy(kcurl_multi *multi) {
    if (multi == NULL) {
        return;
    }
    kcurl_api()->multi_cleanup(multi->handle);
    kcurl_readiness_close(&multi->readiness);
    free(multi);
}

int kcurl_multi_is_portable(const kcurl_multi *multi) {
    return multi->readiness.portable;
}

int kcurl_multi_setopt_long(kcurl_multi *multi, kcurl_multi_option option, long value) {
    return kcurl_api()->multi_setopt(multi->handle, (int)option, value);
}

int kcurl_multi_add(kcurl_multi *multi, kcurl_easy *easy) {
    return kcurl_api()->multi_add_handle(multi->handle, easy);
}

int kcurl_multi_remove(kcurl_multi *multi, kcurl_easy *easy) {
    return kcurl_api()->multi_remove_handle(multi->handle, easy);
}

int kcurl_multi_socket_action(kcurl_multi *multi, int socket, int events) {
    int running = 0;
    if (socket == KCURL_SOCKET_TIMEOUT) {
        // The timer is one-shot: this call uses it up. curl calls the timer callback again
        // whenever a timer remains (it forgets the last time it announced, multi.c,
        // multi_socket), but says nothing when none does.
        multi->timer_due = -1;
    } else if (!kcurl_readiness_claim(&multi->readiness, socket)) {
        return 0;
    }
    return kcurl_api()->multi_socket_action(multi->handle, socket, events, &running);
}

int kcurl_multi_socket_all(kcurl_multi *multi) {
    const struct kcurl_api *api = kcurl_api();
    int running = 0;
    if (api->multi_socket_all == NULL) {
        return api->multi_socket_action(multi->handle, KCURL_SOCKET_TIMEOUT, 0, &running);
    }
    return api->multi_socket_all(multi->handle, &running);
}

int kcurl_multi_timeout(const kcurl_multi *multi) {
    int64_t due = multi->timer_due;
    if (due < 0) {
        return -1;
    }
    int64_t left = due - kcurl_now();
    if (left <= 0) {
        return 0;
    }
    // Rounded up: woken a little late, curl finds the timer expired; woken early, it would
    // find nothing to do and the wait would start again.
    int64_t milliseconds = (left + 999999) / 1000000;
    return milliseconds > 0x7fffffff ? 0x7fffffff : (int)milliseconds;
}

int kcurl_multi_wait(kcurl_multi *multi, int timeout_ms, kcurl_event *events, int capacity) {
    return kcurl_readiness_wait(&multi->readiness, timeout_ms, events, capacity);
}

int kcurl_multi_wakeup(kcurl_multi *multi) {
    return kcurl_readiness_wake(&multi->readiness);
}

int kcurl_multi_assist_begin(kcurl_multi *multi) {
    return kcurl_readiness_assist_begin(&multi->readiness);
}

int kcurl_multi_assist_wait(kcurl_multi *multi, int timeout_ms, kcurl_event *events, int capacity) {
    return kcurl_readiness_assist_wait(&multi->readiness, timeout_ms, events, capacity);
}

int kcurl_multi_assist_end(kcurl_multi *multi) {
    return kcurl_readiness_assist_end(&multi->readiness);
}

int kcurl_multi_wake_assistant(kcurl_multi *multi) {
    return kcurl_readiness_wake_assistant(&multi->readiness);
}

int kcurl_multi_watch(kcurl_multi *multi, int socket, int events, uint64_t tag) {
    // Edge-triggered where epoll allows it: a WebSocket reads and writes until its socket
    // has no more (CurlWebSocketLink.swift), so it needs a report per change, not per wait.
    return kcurl_readiness_watch(&multi->readiness, socket, events, tag, 1);
}

void kcurl_multi_unwatch(kcurl_multi *multi, int socket) {
    kcurl_readiness_unwatch(&multi->readiness, socket);
}

int kcurl_multi_next_done(kcurl_multi *multi, kcurl_easy **easy, int *result) {
    const struct kcurl_api *api = kcurl_api();
    int queued = 0;
    struct kcurl_message *message;
    while ((message = api->multi_info_read(multi->handle, &queued)) != NULL) {
        if (message->msg == KCURLMSG_DONE) {
            *easy = (kcurl_easy *)message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

const char *kcurl_multi_strerror(int code) {
    return kcurl_api()->multi_strerror(code);
}
