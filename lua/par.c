/* lua/par.c: par_for, the one place references and checks start threads.
 *
 * Ranges are contiguous and start at multiples of the caller's grain, so a
 * caller that keeps per-block results (block sums of a scan, partial sums)
 * gets the same blocks whatever the number of threads: the results do not
 * depend on the machine. Threads are started per call (tens of µs), which
 * only large arrays pay. */
#include "lua/par.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct ParJob {
    ParFn fn;
    void *ctx;
    int k;
    size_t i0, i1;
} ParJob;

static void *par_main(void *p) {
    ParJob *j = p;
    j->fn(j->ctx, j->k, j->i0, j->i1);
    return NULL;
}

int par_threads(void) {
    static int n = 0;
    if (n) return n;
    const char *env = getenv("CUDOJO_REF_THREADS");
    long v = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (v < 1) v = 1;
    if (v > PAR_MAX_RANGES) v = PAR_MAX_RANGES;
    n = (int)v;
    return n;
}

int par_ranges(size_t n, size_t grain, size_t min_n) {
    if (grain == 0) grain = 1;
    int t = par_threads();
    size_t blocks = (n + grain - 1) / grain;
    if (n < min_n || t < 2 || blocks < 2) return 1;
    return (size_t)t > blocks ? (int)blocks : t;
}

void par_for(size_t n, size_t grain, size_t min_n, ParFn fn, void *ctx) {
    if (grain == 0) grain = 1;
    int t = par_ranges(n, grain, min_n);
    if (t == 1) {
        if (n) fn(ctx, 0, 0, n);
        return;
    }
    size_t blocks = (n + grain - 1) / grain;
    ParJob jobs[PAR_MAX_RANGES];
    pthread_t th[PAR_MAX_RANGES];
    bool started[PAR_MAX_RANGES] = {false};
    size_t per = (blocks + (size_t)t - 1) / (size_t)t;
    for (int k = 0; k < t; k++) {
        size_t b0 = (size_t)k * per < blocks ? (size_t)k * per : blocks;
        size_t b1 = b0 + per < blocks ? b0 + per : blocks;
        jobs[k] = (ParJob){fn, ctx, k, b0 * grain < n ? b0 * grain : n, b1 * grain < n ? b1 * grain : n};
    }
    /* Range 0 runs here; a thread that cannot start runs here too. */
    for (int k = 1; k < t; k++)
        if (jobs[k].i0 < jobs[k].i1) started[k] = pthread_create(&th[k], NULL, par_main, &jobs[k]) == 0;
    if (jobs[0].i0 < jobs[0].i1) par_main(&jobs[0]);
    for (int k = 1; k < t; k++) {
        if (started[k]) pthread_join(th[k], NULL);
        else if (jobs[k].i0 < jobs[k].i1) par_main(&jobs[k]);
    }
}

/* Ranges of 1 MiB blocks: big enough that a thread streams, small enough
 * that 16 threads share a few hundred MiB evenly. */
#define PAR_BYTE_GRAIN ((size_t)1 << 20)

typedef struct MemJob {
    char *dst;
    const char *src;
    int byte;
} MemJob;

static void memset_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const MemJob *j = p;
    memset(j->dst + i0, j->byte, i1 - i0);
}

static void memcpy_range(void *p, int k, size_t i0, size_t i1) {
    (void)k;
    const MemJob *j = p;
    memcpy(j->dst + i0, j->src + i0, i1 - i0);
}

void par_memset(void *p, int byte, size_t bytes) {
    MemJob j = {p, NULL, byte};
    par_for(bytes, PAR_BYTE_GRAIN, PAR_MIN_BYTES, memset_range, &j);
}

void par_memcpy(void *dst, const void *src, size_t bytes) {
    MemJob j = {dst, src, 0};
    par_for(bytes, PAR_BYTE_GRAIN, PAR_MIN_BYTES, memcpy_range, &j);
}
