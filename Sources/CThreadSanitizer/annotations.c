// See CThreadSanitizer.h.

#include "CThreadSanitizer.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KRINGLE_TSAN_RUNTIME 1
#endif
#endif

#ifdef KRINGLE_TSAN_RUNTIME
#include <sanitizer/tsan_interface.h>

void kringle_tsan_acquire(const void *address) { __tsan_acquire((void *)address); }
void kringle_tsan_release(const void *address) { __tsan_release((void *)address); }
int kringle_tsan_is_active(void) { return 1; }
#else
void kringle_tsan_acquire(const void *address) { (void)address; }
void kringle_tsan_release(const void *address) { (void)address; }
int kringle_tsan_is_active(void) { return 0; }
#endif
