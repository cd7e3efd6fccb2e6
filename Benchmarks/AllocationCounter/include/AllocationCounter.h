// AllocationCounter: counts heap allocations in the benchmark process, so a benchmark can
// report allocations per request. Only the benchmarks link it.
#pragma once

/// Whether allocations are counted here (glibc only: the counter wraps its allocator).
int kac_counts_allocations(void);

/// Heap allocations made by this process so far (malloc, calloc, realloc and the aligned
/// forms), by any thread; 0 where counting is not supported.
unsigned long long kac_allocations(void);
