// Opening a shared library from a list of candidate names (see kdl_open.h).

#include "kdl_open.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void kdl_append(char *buffer, size_t capacity, const char *text) {
    size_t used = strlen(buffer);
    if (used + 1 >= capacity) {
        return;
    }
    snprintf(buffer + used, capacity - used, "%s", text);
}

int kdl_resolve(void *library, const char *name, void *slot, int required, char *missing, size_t capacity) {
    void *symbol = dlsym(library, name);
    memcpy(slot, &symbol, sizeof(symbol));
    if (symbol == NULL && required) {
        kdl_append(missing, capacity, missing[0] == '\0' ? " lacks " : ", ");
        kdl_append(missing, capacity, name);
        return 0;
    }
    return 1;
}

int kdl_open_first(const char *const *names, int count, kdl_accept accept, void *context, char *error,
                   size_t capacity) {
    for (int index = 0; index < count; index++) {
        if (index > 0) {
            kdl_append(error, capacity, "; ");
        }
        kdl_append(error, capacity, names[index]);
        // At once, not lazily: a dependency that lacks a symbol then fails here, with a
        // message, rather than end the process at the first call (lazy binding saved a
        // one-shot GET about 4M of its 45M instructions).
        void *library = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            const char *reason = dlerror();
            kdl_append(error, capacity, " (");
            kdl_append(error, capacity, reason != NULL ? reason : "not found");
            kdl_append(error, capacity, ")");
            continue;
        }
        if (accept(library, names[index], context, error, capacity)) {
            return index;
        }
    }
    return -1;
}

int kdl_load(const char *what, const char *const *names, int count, kdl_accept accept, char *error,
             size_t capacity) {
    kdl_append(error, capacity, what);
    kdl_append(error, capacity, " could not be loaded; tried ");
    int index = kdl_open_first(names, count, accept, NULL, error, capacity);
    if (index >= 0) {
        error[0] = '\0';
    }
    return index;
}
