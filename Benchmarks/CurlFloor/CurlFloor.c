// The floor: libcurl alone, as a C program that uses it well would (one easy handle reused
// for sequential requests; one multi handle and a fixed set of easy handles for concurrent
// ones), with the body handed to the caller's handler on the same thread.
//
// libcurl is opened with dlopen, as CCurlShim does, so that the benchmark needs no curl
// headers; the option numbers below are curl.h's.
#include "CurlFloor.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    CFL_OPT_WRITEDATA = 10001,
    CFL_OPT_URL = 10002,
    CFL_OPT_HTTPHEADER = 10023,
    CFL_OPT_WRITEFUNCTION = 20011,
    CFL_OPT_NOSIGNAL = 99,
    CFL_INFO_RESPONSE_CODE = 0x200002,
    CFL_MSG_DONE = 1,
    CFL_GLOBAL_DEFAULT = 3,
};

struct cfl_slist {
    char *data;
    struct cfl_slist *next;
};

struct cfl_message {
    int msg;
    void *easy;
    union {
        void *whatever;
        int result;
    } data;
};

static struct {
    int (*global_init)(long);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_getinfo)(void *, int, ...);
    int (*easy_perform)(void *);
    struct cfl_slist *(*slist_append)(struct cfl_slist *, const char *);
    void (*slist_free_all)(struct cfl_slist *);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *);
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_perform)(void *, int *);
    int (*multi_poll)(void *, void *, unsigned int, int, int *);
    struct cfl_message *(*multi_info_read)(void *, int *);
} curl;

/// One response body, grown as curl writes it.
struct cfl_body {
    char *bytes;
    size_t length;
    size_t capacity;
};

static size_t cfl_write(char *bytes, size_t size, size_t count, void *context) {
    struct cfl_body *body = context;
    size_t length = size * count;
    if (body->length + length > body->capacity) {
        size_t capacity = body->capacity ? body->capacity * 2 : 4096;
        while (capacity < body->length + length) capacity *= 2;
        char *grown = realloc(body->bytes, capacity);
        if (!grown) return 0;
        body->bytes = grown;
        body->capacity = capacity;
    }
    memcpy(body->bytes + body->length, bytes, length);
    body->length += length;
    return length;
}

#define CFL_RESOLVE(name, symbol)                                          \
    do {                                                                   \
        *(void **)(&curl.name) = dlsym(library, symbol);                   \
        if (!curl.name) {                                                  \
            snprintf(error, capacity, "libcurl lacks %s", symbol);         \
            return 0;                                                      \
        }                                                                  \
    } while (0)

int cfl_load(char *error, size_t capacity) {
    static const char *const names[] = {"libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", "libcurl.4.dylib"};
    void *library = NULL;
    for (size_t index = 0; index < sizeof(names) / sizeof(names[0]) && !library; index++) {
        library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
    }
    if (!library) {
        snprintf(error, capacity, "libcurl not found: %s", dlerror());
        return 0;
    }
    CFL_RESOLVE(global_init, "curl_global_init");
    CFL_RESOLVE(easy_init, "curl_easy_init");
    CFL_RESOLVE(easy_cleanup, "curl_easy_cleanup");
    CFL_RESOLVE(easy_setopt, "curl_easy_setopt");
    CFL_RESOLVE(easy_getinfo, "curl_easy_getinfo");
    CFL_RESOLVE(easy_perform, "curl_easy_perform");
    CFL_RESOLVE(slist_append, "curl_slist_append");
    CFL_RESOLVE(slist_free_all, "curl_slist_free_all");
    CFL_RESOLVE(multi_init, "curl_multi_init");
    CFL_RESOLVE(multi_cleanup, "curl_multi_cleanup");
    CFL_RESOLVE(multi_add_handle, "curl_multi_add_handle");
    CFL_RESOLVE(multi_remove_handle, "curl_multi_remove_handle");
    CFL_RESOLVE(multi_perform, "curl_multi_perform");
    CFL_RESOLVE(multi_poll, "curl_multi_poll");
    CFL_RESOLVE(multi_info_read, "curl_multi_info_read");
    if (curl.global_init(CFL_GLOBAL_DEFAULT) != 0) {
        snprintf(error, capacity, "curl_global_init failed");
        return 0;
    }
    return 1;
}

/// A new easy handle for `url` that writes into `body`.
static void *cfl_easy(const char *url, struct cfl_slist *headers, struct cfl_body *body) {
    void *easy = curl.easy_init();
    if (!easy) return NULL;
    curl.easy_setopt(easy, CFL_OPT_URL, url);
    curl.easy_setopt(easy, CFL_OPT_NOSIGNAL, 1L);
    curl.easy_setopt(easy, CFL_OPT_HTTPHEADER, headers);
    curl.easy_setopt(easy, CFL_OPT_WRITEFUNCTION, cfl_write);
    curl.easy_setopt(easy, CFL_OPT_WRITEDATA, body);
    return easy;
}

/// Whether the finished transfer on `easy` succeeded: curl's `code`, status 200, and the
/// handler's verdict on the body, which is emptied for the next transfer.
static int cfl_succeeded(void *easy, int code, struct cfl_body *body, cfl_body_handler handler, void *context) {
    long status = 0;
    curl.easy_getinfo(easy, CFL_INFO_RESPONSE_CODE, &status);
    int ok = code == 0 && status == 200 && handler(body->bytes, body->length, context);
    body->length = 0;
    return ok;
}

/// The request's header lines as curl's list.
static struct cfl_slist *cfl_headers(const char *const *lines, int count) {
    struct cfl_slist *list = NULL;
    for (int index = 0; index < count; index++) list = curl.slist_append(list, lines[index]);
    return list;
}

struct cfl_handle {
    void *easy;
    struct cfl_slist *headers;
    struct cfl_body body;
};

cfl_handle *cfl_open(const char *url, const char *const *header_lines, int header_count) {
    cfl_handle *handle = calloc(1, sizeof(cfl_handle));
    if (!handle) return NULL;
    handle->headers = cfl_headers(header_lines, header_count);
    handle->easy = cfl_easy(url, handle->headers, &handle->body);
    if (!handle->easy) {
        cfl_close(handle);
        return NULL;
    }
    return handle;
}

int cfl_get(cfl_handle *handle, cfl_body_handler handler, void *context) {
    int code = curl.easy_perform(handle->easy);
    return cfl_succeeded(handle->easy, code, &handle->body, handler, context);
}

void cfl_close(cfl_handle *handle) {
    if (handle->easy) curl.easy_cleanup(handle->easy);
    curl.slist_free_all(handle->headers);
    free(handle->body.bytes);
    free(handle);
}

int cfl_sequential(
    const char *url, const char *const *header_lines, int header_count, int count, cfl_body_handler handler,
    void *context) {
    cfl_handle *handle = cfl_open(url, header_lines, header_count);
    if (!handle) return count;
    int failures = 0;
    for (int index = 0; index < count; index++) failures += !cfl_get(handle, handler, context);
    cfl_close(handle);
    return failures;
}

int cfl_multi(
    const char *url, const char *const *header_lines, int header_count, int count, int in_flight,
    cfl_body_handler handler, void *context) {
    struct cfl_slist *headers = cfl_headers(header_lines, header_count);
    void *multi = curl.multi_init();
    void **handles = calloc((size_t)in_flight, sizeof(void *));
    struct cfl_body *bodies = calloc((size_t)in_flight, sizeof(struct cfl_body));
    int started = 0, finished = 0, failures = 0;
    for (int index = 0; index < in_flight && started < count; index++, started++) {
        handles[index] = cfl_easy(url, headers, &bodies[index]);
        // A handle that cannot be made or added would leave the loop below waiting for it.
        if (!handles[index] || curl.multi_add_handle(multi, handles[index]) != 0) {
            failures = count;
            finished = count;
            break;
        }
    }
    while (finished < count) {
        int running = 0;
        curl.multi_perform(multi, &running);
        struct cfl_message *message;
        int queued = 0;
        while ((message = curl.multi_info_read(multi, &queued))) {
            if (message->msg != CFL_MSG_DONE) continue;
            void *easy = message->easy;
            int code = message->data.result;
            int slot = 0;
            while (handles[slot] != easy) slot++;
            curl.multi_remove_handle(multi, easy);
            failures += !cfl_succeeded(easy, code, &bodies[slot], handler, context);
            finished++;
            if (started < count) {
                curl.multi_add_handle(multi, easy);
                started++;
            }
        }
        if (finished < count) curl.multi_poll(multi, NULL, 0, 1000, NULL);
    }
    for (int index = 0; index < in_flight; index++) {
        if (handles[index]) curl.easy_cleanup(handles[index]);
        free(bodies[index].bytes);
    }
    free(handles);
    free(bodies);
    curl.multi_cleanup(multi);
    curl.slist_free_all(headers);
    return failures;
}
