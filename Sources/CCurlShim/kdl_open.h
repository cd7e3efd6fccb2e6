// Opening a shared library with dlopen from a list of candidate names; private to CCurlShim.
//
// libcurl (kcurl_load.c) and zlib (kzlib_load.c) are both opened this way: each name is tried
// in order, what happened to each is written into an error message, and the first library
// the caller accepts is kept.

#ifndef KRINGLE_KDL_OPEN_H
#define KRINGLE_KDL_OPEN_H

#include <stddef.h>

/// Appends `text` to the NUL-terminated `buffer` without overflowing it.
void kdl_append(char *buffer, size_t capacity, const char *text);

/// Resolves `name` in `library` into the function pointer `slot` (through memcpy, the
/// POSIX-blessed way to turn dlsym's void * into a function pointer). When the symbol is
/// missing and `required`, appends " lacks NAME" (", NAME" after the first) to `missing` and
/// returns 0; otherwise returns 1.
int kdl_resolve(void *library, const char *name, void *slot, int required, char *missing, size_t capacity);

/// Decides whether an opened library will do. Returns 1 to keep it; otherwise explains why in
/// `error` and returns 0, having closed the library (or left it open on purpose).
typedef int (*kdl_accept)(void *library, const char *name, void *context, char *error, size_t capacity);

/// Tries `names` in order: appends each name to `error` ("; " between them), then either the
/// dlerror reason in parentheses or whatever `accept` says. Returns the index of the first
/// library `accept` keeps, or -1 when none is kept.
int kdl_open_first(const char *const *names, int count, kdl_accept accept, void *context, char *error,
                   size_t capacity);

/// For a loader's pthread_once routine: writes "WHAT could not be loaded; tried " into `error`,
/// then tries `names` as kdl_open_first does, and empties `error` when a library is kept.
/// Returns the index of the library kept, or -1.
int kdl_load(const char *what, const char *const *names, int count, kdl_accept accept, char *error,
             size_t capacity);

#endif
