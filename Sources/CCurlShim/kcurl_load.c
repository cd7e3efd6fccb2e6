// Opens libcurl with dlopen once per process and resolves the functions the shim needs.
//
// The state below is written once, inside pthread_once, and only read afterwards, so it
// needs no lock; so is the table of functions resolved here, which kcurl_handles.c keeps
// beside the calls that use it, so that a request runs code in that one file. The library
// handle is never closed and curl_global_cleanup is never called: other code in the process
// (FoundationNetworking, for one) may share the same libcurl, and tearing it down at exit
// would race with threads still using it.

#include "kcurl_api.h"
#include "kdl_open.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char load_error[2048];

/// Library names in order of preference. On Apple platforms only absolute paths: dyld looks
/// for a bare name in the current directory too (for processes without library validation),
/// where anyone who can write a file could plant a libcurl. The system's first, then
/// Homebrew's (Apple silicon, then Intel). Elsewhere the runtime soname first (the dynamic
/// linker's search never includes the current directory unless LD_LIBRARY_PATH says so), the
/// development symlink next, then Debian's GnuTLS flavour, which has the same API.
#if defined(__APPLE__)
static const char *const library_names[] = {
    "/usr/lib/libcurl.4.dylib",
    "/opt/homebrew/opt/curl/lib/libcurl.4.dylib",
    "/usr/local/opt/curl/lib/libcurl.4.dylib",
};
#else
static const char *const library_names[] = {"libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4"};
#endif
static const int library_count = (int)(sizeof(library_names) / sizeof(library_names[0]));

/// Fills `table` from `library`; returns 0 and explains in `missing` when a required
/// function is absent.
static int resolve_all(void *library, struct kcurl_api *table, char *missing, size_t capacity) {
    int ok = 1;
    ok &= kdl_resolve(library, "curl_global_init", &table->global_init, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_version", &table->version, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_easy_init", &table->easy_init, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_easy_cleanup", &table->easy_cleanup, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_easy_reset", &table->easy_reset, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_easy_setopt", &table->easy_setopt, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_easy_getinfo", &table->easy_getinfo, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_easy_strerror", &table->easy_strerror, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_easy_pause", &table->easy_pause, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_slist_append", &table->slist_append, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_slist_free_all", &table->slist_free_all, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_multi_init", &table->multi_init, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_multi_cleanup", &table->multi_cleanup, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_multi_setopt", &table->multi_setopt, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_multi_add_handle", &table->multi_add_handle, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_multi_remove_handle", &table->multi_remove_handle, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_multi_socket_action", &table->multi_socket_action, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_multi_info_read", &table->multi_info_read, 1, missing, capacity);
    ok &= kdl_resolve(library, "curl_multi_strerror", &table->multi_strerror, 1, missing, capacity);
    kdl_resolve(library, "curl_multi_socket_all", &table->multi_socket_all, 0, missing, capacity);
    kdl_resolve(library, "curl_easy_send", &table->easy_send, 0, missing, capacity);
    kdl_resolve(library, "curl_easy_recv", &table->easy_recv, 0, missing, capacity);
    kdl_resolve(library, "curl_share_init", &table->share_init, 0, missing, capacity);
    kdl_resolve(library, "curl_share_setopt", &table->share_setopt, 0, missing, capacity);
    kdl_resolve(library, "curl_share_cleanup", &table->share_cleanup, 0, missing, capacity);
    kdl_resolve(library, "curl_version_info", &table->version_info, 0, missing, capacity);
    return ok;
}

/// Keeps `library` when it has every required function and curl_global_init succeeds.
static int accept_curl(void *library, const char *name, void *context, char *error, size_t capacity) {
    (void)name;
    (void)context;
    struct kcurl_api table;
    memset(&table, 0, sizeof(table));
    char missing[512] = "";
    if (!resolve_all(library, &table, missing, sizeof(missing))) {
        kdl_append(error, capacity, missing);
        dlclose(library);
        return 0;
    }
    int code = table.global_init(KCURL_GLOBAL_DEFAULT);
    if (code != KCURLE_OK) {
        char reason[64];
        snprintf(reason, sizeof(reason), " (curl_global_init failed with %d)", code);
        kdl_append(error, capacity, reason);
        // Deliberately left open: a half-initialised libcurl must not be unloaded.
        return 0;
    }
    kcurl_set_api(&table);
    return 1;
}

static void load_library(void) {
    loaded = kdl_load("libcurl", library_names, library_count, accept_curl, load_error, sizeof(load_error)) >= 0;
}

int kcurl_load(void) {
    pthread_once(&load_once, load_library);
    return loaded;
}

const char *kcurl_load_error(void) {
    kcurl_load();
    return load_error;
}

const char *kcurl_version(void) {
    if (!kcurl_load()) {
        return "";
    }
    const char *version = kcurl_api()->version();
    return version != NULL ? version : "";
}

/// Keeps the first library that opens, closing it again: a probe only asks whether it opens.
static int accept_probe(void *library, const char *name, void *context, char *error, size_t capacity) {
    (void)name;
    (void)context;
    dlclose(library);
    kdl_append(error, capacity, " (opened)");
    return 1;
}

int kcurl_probe(const char *const *names, int count, char *message, size_t capacity) {
    if (capacity == 0) {
        return -1;
    }
    message[0] = '\0';
    kdl_append(message, capacity, "tried ");
    return kdl_open_first(names, count, accept_probe, NULL, message, capacity);
}
