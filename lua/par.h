/* lua/par.h: element-wise work over large arrays on every core (ref.c's
 * references, check.c's comparisons, gpu.c's generators, gpu_array.c's
 * clearing of reused buffers). Not for use
 * outside lua/. */
#ifndef CUDOJO_LUA_PAR_H
#define CUDOJO_LUA_PAR_H

#include <stddef.h>

/* Below this many elements one thread does the work (starting threads
 * costs more than it saves). */
#define PAR_MIN_ELEMS ((size_t)1 << 18)
/* par_for never makes more ranges than this. */
#define PAR_MAX_RANGES 32

/* Runs fn(ctx, k, i0, i1) over [0, n) split into contiguous ranges k = 0,
 * 1, ... (one per thread, at most par_threads()), each starting at a
 * multiple of `grain` (0 = 1); in the calling thread alone (one range, k =
 * 0) when n < min_n. fn must not touch Lua. Returns when every range is
 * done. */
typedef void (*ParFn)(void *ctx, int k, size_t i0, size_t i1);
void par_for(size_t n, size_t grain, size_t min_n, ParFn fn, void *ctx);
/* How many ranges par_for(n, grain, min_n, ...) makes (for per-range results). */
int par_ranges(size_t n, size_t grain, size_t min_n);
/* memset and memcpy on every core (buffers of megabytes: fresh arrays
 * cleared, fills, copies); one thread below PAR_MIN_BYTES. */
#define PAR_MIN_BYTES ((size_t)4 << 20)
void par_memset(void *p, int byte, size_t bytes);
void par_memcpy(void *dst, const void *src, size_t bytes);
/* How many threads par_for uses for large n: the online cores, at most
 * 32 (CUDOJO_REF_THREADS overrides, for benchmarks). */
int par_threads(void);

#endif
