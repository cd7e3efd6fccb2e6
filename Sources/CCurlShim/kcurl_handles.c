// Everything a request calls in libcurl, through the table kcurl_load.c resolves: the easy
// handle, its header lists, and the multi handle with the one blocking wait its driving
// thread sleeps in. Kept in one file so that a request runs code in this file alone.
//
// Swift cannot call the variadic setopt and getinfo functions, so each argument type gets a
// wrapper that passes exactly the type curl's documentation gives for that kind of option
// (long, pointer, curl_off_t, function pointer), which is what curl reads back with va_arg.

#include "kcurl_api.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
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
// curl_multi_poll + curl_multi_wakeup (curl 7.66/7.68) let another thread interrupt the
// wait. Older libraries only have curl_multi_wait, so there the shim adds a non-blocking
// self-pipe as an extra descriptor: a wake-up writes one byte, the wait drains it.

struct kcurl_multi {
    void *handle;
    /// 1 when waiting uses curl_multi_wait and the pipe below.
    int uses_pipe;
    int wake_read;
    int wake_write;
};

/// Makes both ends of a fresh pipe non-blocking and close-on-exec; 0 on success.
static int open_wake_pipe(struct kcurl_multi *multi) {
    int ends[2];
    if (pipe(ends) != 0) {
        return -1;
    }
    for (int index = 0; index < 2; index++) {
        int flags = fcntl(ends[index], F_GETFL);
        if (flags == -1 || fcntl(ends[index], F_SETFL, flags | O_NONBLOCK) == -1
            || fcntl(ends[index], F_SETFD, FD_CLOEXEC) == -1) {
            close(ends[0]);
            close(ends[1]);
            return -1;
        }
    }
    multi->wake_read = ends[0];
    multi->wake_write = ends[1];
    return 0;
}

kcurl_multi *kcurl_multi_create(int force_wait_fallback) {
    const struct kcurl_api *api = kcurl_api();
    struct kcurl_multi *multi = calloc(1, sizeof(struct kcurl_multi));
    if (multi == NULL) {
        return NULL;
    }
    multi->wake_read = -1;
    multi->wake_write = -1;
    multi->uses_pipe = force_wait_fallback || api->multi_poll == NULL || api->multi_wakeup == NULL;
    if (multi->uses_pipe && open_wake_pipe(multi) != 0) {
        free(multi);
        return NULL;
    }
    multi->handle = api->multi_init();
    if (multi->handle == NULL) {
        if (multi->uses_pipe) {
            close(multi->wake_read);
            close(multi->wake_write);
        }
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
    if (multi->uses_pipe) {
        close(multi->wake_read);
        close(multi->wake_write);
    }
    free(multi);
}

int kcurl_multi_uses_wait_fallback(const kcurl_multi *multi) {
    return multi->uses_pipe;
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

int kcurl_multi_perform(kcurl_multi *multi, int *running) {
    return kcurl_api()->multi_perform(multi->handle, running);
}

int kcurl_multi_poll(kcurl_multi *multi, int timeout_ms) {
    return kcurl_multi_poll_with(multi, NULL, 0, timeout_ms);
}

// kcurl_watched_socket has the layout of struct curl_waitfd, so the caller's array is passed
// to curl as it is.
_Static_assert(sizeof(kcurl_watched_socket) == sizeof(struct kcurl_waitfd), "curl_waitfd layout");

int kcurl_multi_poll_with(kcurl_multi *multi, kcurl_watched_socket *sockets, unsigned int count, int timeout_ms) {
    const struct kcurl_api *api = kcurl_api();
    int ready = 0;
    // curl writes revents only for descriptors poll reported.
    for (unsigned int index = 0; index < count; index++) {
        sockets[index].revents = 0;
    }
    struct kcurl_waitfd *extra = (struct kcurl_waitfd *)sockets;
    if (!multi->uses_pipe) {
        return api->multi_poll(multi->handle, extra, count, timeout_ms, &ready);
    }
    // The self-pipe goes last, after the caller's descriptors.
    struct kcurl_waitfd on_stack[9];
    struct kcurl_waitfd *all = on_stack;
    if (count + 1 > sizeof(on_stack) / sizeof(on_stack[0])) {
        all = malloc((count + 1) * sizeof(struct kcurl_waitfd));
        if (all == NULL) {
            return 3;  // CURLM_OUT_OF_MEMORY
        }
    }
    for (unsigned int index = 0; index < count; index++) {
        all[index] = extra[index];
    }
    all[count] = (struct kcurl_waitfd){multi->wake_read, KCURL_WAIT_POLLIN, 0};
    int code = api->multi_wait(multi->handle, all, count + 1, timeout_ms, &ready);
    for (unsigned int index = 0; index < count; index++) {
        extra[index].revents = all[index].revents;
    }
    if (all != on_stack) {
        free(all);
    }
    // Drain unconditionally: the pipe is non-blocking, and a byte written after this point
    // wakes the next wait.
    char sink[64];
    while (read(multi->wake_read, sink, sizeof(sink)) > 0) {
    }
    return code;
}

int kcurl_multi_wakeup(kcurl_multi *multi) {
    if (!multi->uses_pipe) {
        return kcurl_api()->multi_wakeup(multi->handle);
    }
    char byte = 1;
    // A full pipe (EAGAIN) already holds a pending wake-up, which is all that is needed.
    while (write(multi->wake_write, &byte, 1) < 0) {
        if (errno != EINTR) {
            break;
        }
    }
    return 0;
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
