// Opens libcurl with dlopen once per process and resolves the functions the shim needs.
//
// The state below is written once, inside pthread_once, and only read afterwards, so it
// needs no lock; so is the table of functions resolved here, which kcurl_handles.c keeps
// beside the calls that use it, so that a request runs code in that one file. The library
// handle is never closed and curl_global_cleanup is never called: other code in the process
// (FoundationNetworking, for one) may share the same libcurl, and tearing it down at exit
// would race with threads still using it.

#include "kcurl_api.h"

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

/// Appends formatted text to `buffer` without overflowing it.
static void append(char *buffer, size_t capacity, const char *text) {
    size_t used = strlen(buffer);
    if (used + 1 >= capacity) {
        return;
    }
    snprintf(buffer + used, capacity - used, "%s", text);
}

/// Resolves `name` into `slot` (the POSIX-blessed way to turn dlsym's void * into a
/// function pointer). Returns 0 and records the name when the symbol is missing.
static int resolve(void *library, const char *name, void *slot, int required, char *missing, size_t capacity) {
    void *symbol = dlsym(library, name);
    memcpy(slot, &symbol, sizeof(symbol));
    if (symbol == NULL && required) {
        append(missing, capacity, missing[0] == '\0' ? " lacks " : ", ");
        append(missing, capacity, name);
        return 0;
    }
    return 1;
}

/// Fills `table` from `library`; returns 0 and explains in `missing` when a required
/// function is absent.
static int resolve_all(void *library, struct kcurl_api *table, char *missing, size_t capacity) {
    int ok = 1;
    ok &= resolve(library, "curl_global_init", &table->global_init, 1, missing, capacity);
    ok &= resolve(library, "curl_version", &table->version, 1, missing, capacity);
    ok &= resolve(library, "curl_easy_init", &table->easy_init, 1, missing, capacity);
    ok &= resolve(library, "curl_easy_cleanup", &table->easy_cleanup, 1, missing, capacity);
    ok &= resolve(library, "curl_easy_reset", &table->easy_reset, 1, missing, capacity);
    ok &= resolve(library, "curl_easy_setopt", &table->easy_setopt, 1, missing, capacity);
    ok &= resolve(library, "curl_easy_getinfo", &table->easy_getinfo, 1, missing, capacity);
    ok &= resolve(library, "curl_easy_strerror", &table->easy_strerror, 1, missing, capacity);
    ok &= resolve(library, "curl_easy_pause", &table->easy_pause, 1, missing, capacity);
    ok &= resolve(library, "curl_slist_append", &table->slist_append, 1, missing, capacity);
    ok &= resolve(library, "curl_slist_free_all", &table->slist_free_all, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_init", &table->multi_init, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_cleanup", &table->multi_cleanup, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_setopt", &table->multi_setopt, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_add_handle", &table->multi_add_handle, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_remove_handle", &table->multi_remove_handle, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_perform", &table->multi_perform, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_wait", &table->multi_wait, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_info_read", &table->multi_info_read, 1, missing, capacity);
    ok &= resolve(library, "curl_multi_strerror", &table->multi_strerror, 1, missing, capacity);
    resolve(library, "curl_multi_poll", &table->multi_poll, 0, missing, capacity);
    resolve(library, "curl_multi_wakeup", &table->multi_wakeup, 0, missing, capacity);
    return ok;
}

static void load_library(void) {
    append(load_error, sizeof(load_error), "libcurl could not be loaded; tried ");
    for (int index = 0; index < library_count; index++) {
        const char *name = library_names[index];
        if (index > 0) {
            append(load_error, sizeof(load_error), "; ");
        }
        append(load_error, sizeof(load_error), name);
        void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            const char *reason = dlerror();
            append(load_error, sizeof(load_error), " (");
            append(load_error, sizeof(load_error), reason != NULL ? reason : "not found");
            append(load_error, sizeof(load_error), ")");
            continue;
        }
        struct kcurl_api table;
        memset(&table, 0, sizeof(table));
        char missing[512] = "";
        if (!resolve_all(library, &table, missing, sizeof(missing))) {
            append(load_error, sizeof(load_error), missing);
            dlclose(library);
            continue;
        }
        int code = table.global_init(KCURL_GLOBAL_DEFAULT);
        if (code != KCURLE_OK) {
            char reason[64];
            snprintf(reason, sizeof(reason), " (curl_global_init failed with %d)", code);
            append(load_error, sizeof(load_error), reason);
            // Deliberately left open: a half-initialised libcurl must not be unloaded.
            continue;
        }
        kcurl_set_api(&table);
        loaded = 1;
        load_error[0] = '\0';
        return;
    }
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

int kcurl_probe(const char *const *names, int count, char *message, size_t capacity) {
    if (capacity == 0) {
        return -1;
    }
    message[0] = '\0';
    append(message, capacity, "tried ");
    for (int index = 0; index < count; index++) {
        if (index > 0) {
            append(message, capacity, "; ");
        }
        append(message, capacity, names[index]);
        void *library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
        if (library != NULL) {
            dlclose(library);
            append(message, capacity, " (opened)");
            return index;
        }
        const char *reason = dlerror();
        append(message, capacity, " (");
        append(message, capacity, reason != NULL ? reason : "not found");
        append(message, capacity, ")");
    }
    return -1;
}
