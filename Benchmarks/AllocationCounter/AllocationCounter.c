// Wraps glibc's allocator entry points: the executable's own `malloc` and friends take
// precedence over libc's for every library in the process (ELF symbol interposition), and
// each one counts, then calls glibc's implementation under its internal `__libc_` name.
#include "AllocationCounter.h"

#include <errno.h>  // through <features.h>, defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static _Atomic unsigned long long allocations;

static inline void count(void) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void *malloc(size_t size) {
    count();
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count();
    return __libc_calloc(count_, size);
}

void *realloc(void *pointer, size_t size) {
    count();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

int kac_counts_allocations(void) { return 1; }
unsigned long long kac_allocations(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }
#else
int kac_counts_allocations(void) { return 0; }
unsigned long long kac_allocations(void) { return 0; }
#endif
