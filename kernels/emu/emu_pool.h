/* kernels/emu/emu_pool.h: the host threads a Backend's launches share
 * (emu_pool.c).
 *
 * A launch runs its blocks on the calling thread and on helpers of a pool
 * that lives as long as the Backend: threads are made once, when a launch
 * first wants them, and then sleep between launches, so a program of many
 * small launches pays neither thread creation nor joins per launch. */
#ifndef CUDOJO_KERNELS_EMU_POOL_H
#define CUDOJO_KERNELS_EMU_POOL_H

/* A job: `slot` 0 is the calling thread, 1.. the helpers that joined. It
 * must take work from a shared counter until none is left, because a helper
 * that wakes late may not run it at all. */
typedef void (*EmuPoolFn)(void *arg, int slot);

typedef struct EmuPool EmuPool;

/* Runs fn(arg, 0) on the calling thread and fn(arg, 1..helpers) on pool
 * threads that wake while the caller's own fn(arg, 0) still runs; returns
 * when every call that started has returned. *pool is made on first use
 * (NULL pool: the calling thread alone, and no pool is kept). A pool made
 * before a fork() is left behind in the child (its threads are not there)
 * and a fresh one is made; a launch that finds the pool busy (another
 * thread's launch) runs on the calling thread alone. helpers ≤ 255. */
void emu_pool_run(EmuPool **pool, int helpers, EmuPoolFn fn, void *arg);

/* Ends and joins the pool's threads (none in a forked child: its memory
 * is only released). NULL-safe; sets *pool to NULL. */
void emu_pool_free(EmuPool **pool);

/* Pool threads alive now (for tests). */
int emu_pool_threads(const EmuPool *pool);

#endif
