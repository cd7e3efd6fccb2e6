// The table of libcurl functions resolved with dlsym; private to CCurlShim.
//
// Signatures follow curl 7.88.1's curl.h, easy.h and multi.h. curl's handles are opaque, so
// they appear here as void pointers; CURLcode, CURLMcode, CURLoption and CURLINFO are C enums
// and therefore passed as int.

#ifndef KRINGLE_KCURL_API_H
#define KRINGLE_KCURL_API_H

#include "CCurlShim.h"

/// curl.h: `struct curl_slist`.
struct kcurl_slist {
    char *data;
    struct kcurl_slist *next;
};

/// curl.h: `struct curl_blob` (curl 7.71+), and CURL_BLOB_COPY.
struct kcurl_blob {
    void *data;
    size_t len;
    unsigned int flags;
};
enum { KCURL_BLOB_COPY = 1 };

/// multi.h: `struct CURLMsg`.
struct kcurl_message {
    int msg;
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
};

/// multi.h: CURLMSG_DONE.
enum { KCURLMSG_DONE = 1 };

/// curl.h: CURL_GLOBAL_DEFAULT (CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32).
enum { KCURL_GLOBAL_DEFAULT = 3 };

/// Every libcurl function the shim calls; the ones marked optional may be missing.
struct kcurl_api {
    int (*global_init)(long flags);
    char *(*version)(void);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *easy);
    void (*easy_reset)(void *easy);
    int (*easy_setopt)(void *easy, int option, ...);
    int (*easy_getinfo)(void *easy, int info, ...);
    const char *(*easy_strerror)(int code);
    int (*easy_pause)(void *easy, int bitmask);
    struct kcurl_slist *(*slist_append)(struct kcurl_slist *list, const char *line);
    void (*slist_free_all)(struct kcurl_slist *list);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *multi);
    int (*multi_setopt)(void *multi, int option, ...);
    int (*multi_add_handle)(void *multi, void *easy);
    int (*multi_remove_handle)(void *multi, void *easy);
    int (*multi_socket_action)(void *multi, int socket, int events, int *running);
    struct kcurl_message *(*multi_info_read)(void *multi, int *queued);
    const char *(*multi_strerror)(int code);
    // Optional: deprecated since curl 7.19.5, though every release still has it.
    int (*multi_socket_all)(void *multi, int *running);
    // Optional, for WebSockets over a connection of the application's own (CONNECT_ONLY):
    // present in every curl since 7.18, resolved optionally so that HTTP never depends on them.
    int (*easy_send)(void *easy, const void *buffer, size_t length, size_t *sent);
    int (*easy_recv)(void *easy, void *buffer, size_t length, size_t *received);
    void *(*share_init)(void);
    int (*share_setopt)(void *share, int option, ...);
    int (*share_cleanup)(void *share);
    // Optional: what the library was built with (its protocols).
    void *(*version_info)(int age);
};

/// The loaded table (kept in kcurl_handles.c). Only valid after kcurl_load() returned 1;
/// never changes afterwards.
const struct kcurl_api *kcurl_api(void);

/// Stores the table kcurl_load resolved; called once, inside kcurl_load's pthread_once.
void kcurl_set_api(const struct kcurl_api *table);

#endif
