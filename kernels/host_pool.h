/* kernels/host_pool.h: a backend's pool of big host buffers for the Lua
 * arrays (BackendOps.host_buffer_take/give).
 *
 * A warm worker runs the same exercise again and again, and a GPU-sized
 * exercise allocates gigabytes of host arrays each time: fresh pages cost a
 * page fault each (the kernel zeroes every 4 KiB), freeing them costs an
 * munmap, and pageable memory makes every copy to the GPU go through the
 * driver's staging buffers. The pool keeps the buffers of freed arrays and
 * hands them out again: idle ones are kept up to a cap in bytes (the least
 * recently given back go first), and the pool frees them all when its
 * backend is destroyed. How a buffer is made and freed is the backend's
 * (page-locked on a GPU, plain memory on the emulator). Not thread-safe: one
 * run at a time per backend, as the worker runs them. No CUDA here. */
#ifndef CUDOJO_KERNELS_HOST_POOL_H
#define CUDOJO_KERNELS_HOST_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most bytes of a big host buffer one piece of GPU work covers while it
 * holds the GPU lock shared (kernels/gpu_lock.h): pinning it, copying it.
 * A timed section waits for the shared holders already running, so with
 * whole buffers it waited for a 2 GiB array's pinning (0.9-1 s on the
 * H200, session 13); in pieces it waits for one (~60 ms). */
#define HOST_PIECE_BYTES (host_piece_bytes())
/* 128 MiB, or CUDOJO_HOST_PIECE_MB (a whole number of MiB from 1 to 4096; anything
 * else is the default), read once: to measure what smaller pieces give a grading's
 * timed sections (their waits on pinning) against what they cost the copies. */
size_t host_piece_bytes(void);
/* What host_piece_bytes makes of a CUDOJO_HOST_PIECE_MB value (NULL: unset). */
size_t host_piece_bytes_of(const char *mib);
/* How much of [at, at + left) the piece starting at `at` covers: up to the
 * next multiple of HOST_PIECE_BYTES in address (or `left`, if less). On one
 * grid of addresses, a copy's pieces lie each within one piece of a
 * buffer pinned in pieces, whatever the copy's offset into it. */
size_t host_piece_len(uintptr_t at, size_t left);

/* Makes every page of the fresh mapping [p, p + bytes) (each zeroed by the
 * kernel on its first write): MADV_POPULATE_WRITE, else a write to each
 * page. Before pinning: cudaHostRegister would otherwise fault the pages in
 * while it holds the GPU lock (pin_in_pieces, kernels/cuda/cuda_backend.c). */
void host_pool_populate(void *p, size_t bytes);

/* Buffers smaller than this are not worth keeping (malloc reuses them). */
#define HOST_POOL_MIN_BYTES ((size_t)1 << 20)
/* The default cap on idle bytes: min(this, a quarter of the RAM). */
#define HOST_POOL_DEFAULT_CAP ((size_t)4 << 30)

/* Makes a buffer of `bytes` (NULL when out of memory); *zeroed: its bytes
 * are known to be zero; *tag: anything the free function needs to know
 * (page-locked or not). */
typedef void *(*HostPoolAllocFn)(void *ud, size_t bytes, bool *zeroed, int *tag);
typedef void (*HostPoolFreeFn)(void *ud, void *p, size_t bytes, int tag);

typedef struct HostPool HostPool;

/* A pool whose buffers come from alloc and go back through free_fn; cap:
 * the most idle bytes it keeps (0 = keep none: every give frees). Caller
 * frees (host_pool_free). */
HostPool *host_pool_new(size_t cap, HostPoolAllocFn alloc, HostPoolFreeFn free_fn, void *ud);
/* Frees every buffer, idle or still handed out, and the pool; NULLs *p. */
void host_pool_free(HostPool **p);
/* The cap for a process: $CUDOJO_HOST_POOL_MB when set (0 = no pool), else
 * min(HOST_POOL_DEFAULT_CAP, a quarter of the physical memory). */
size_t host_pool_default_cap(void);
/* min(HOST_POOL_DEFAULT_CAP, a quarter of the physical memory shared by
 * `processes` workers): what each of a grader's workers may keep idle (on a
 * GPU, page-locked), so that together they keep at most a quarter. */
size_t host_pool_share_cap(int processes);

/* A buffer of at least `bytes` (>= 1): an idle one of at most twice that
 * (the smallest such; its bytes are what its last user left: *zeroed =
 * false), else a new one. NULL when out of memory. */
void *host_pool_take(HostPool *p, size_t bytes, bool *zeroed);
/* Gives back a buffer host_pool_take handed out; the pool keeps it idle
 * (then frees the least recently given back idle ones while over the cap)
 * or frees it. */
void host_pool_give(HostPool *p, void *buf);

/* What the pool holds, for tests and benchmarks. */
typedef struct HostPoolStats {
    size_t idle_bytes, busy_bytes;      /* capacities of idle and handed-out buffers */
    int idle, busy;                     /* how many */
    long long reused, made, freed;      /* takes served from idle buffers, buffers made, buffers freed */
    size_t cap;
} HostPoolStats;
void host_pool_stats(const HostPool *p, HostPoolStats *out);

#endif
