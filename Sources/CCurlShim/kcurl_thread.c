// Names the calling thread, so that debuggers, `top -H` and profilers show the transport's
// driving thread by name. Swift's Glibc module does not expose pthread_setname_np, a GNU
// extension, hence this helper.

#if defined(__linux__)
#define _GNU_SOURCE
#endif

#include "CCurlShim.h"

#include <pthread.h>

void kcurl_name_current_thread(const char *name) {
#if defined(__APPLE__)
    pthread_setname_np(name);
#elif defined(__linux__)
    // Linux limits names to 15 bytes plus the terminator; longer ones are refused.
    pthread_setname_np(pthread_self(), name);
#else
    (void)name;
#endif
}
