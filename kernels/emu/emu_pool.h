/* kernels/emu/emu_pool.h: the host threads a Backend's launches share
 * (emu_pool.c).
 *
 * A launch runs its blocks on the calling thread and, once it has run for
 * a while, on helpers of a pool that lives as long as the Backend: threads
 * are made once, when a launch first wants them, and then sleep between
 * launches, so a program of many small launches pays neither thread
 * creation nor joins per launch. */
#ifndef CUDOJO_KERNELS_EMU_POOL_H
#define CUDOJO_KERNELS_EMU_POOL_H

/* A job: `slot` 0 is the calling thread, 1.. the helpers that joined;
 * `pool` is the pool running it (NULL when the caller runs it alone), for
 * emu_pool_wake. It must take work from a shared counter until none is
 * left, because a helper may never join. */
typedef struct EmuPool EmuPool;
typedef void (*EmuPoolFn)(void *arg, int slot, EmuPool *pool);

/* Runs fn(arg, 0, pool) on the calling thread; helpers (up to `helpers`)
 * join only after emu_pool_wake: a job that ends first never touched
 * another thread. Returns when every call that started has returned and
 * every woken helper sleeps again, so no helper runs between two jobs (the
 * emulator runtime counts the process's CPU time between calls as the
 * program's). *pool is made on first use (NULL pool: the calling thread
 * alone, nothing kept). A pool made before a fork() is left behind in the
 * child (its threads are not there) and a fresh one is made; a job that
 * finds the pool busy (another thread's job) runs on the calling thread
 * alone. helpers ≤ 255. */
void emu_pool_run(EmuPool **pool, int helpers, EmuPoolFn fn, void *arg);

/* Wakes the running job's helpers (made on the first wake); once per job,
 * any thread of the job, NULL-safe. */
void emu_pool_wake(EmuPool *pool);

/* Ends and joins the pool's threads (none in a forked child: its memory
 * is only released). NULL-safe; sets *pool to NULL. */
void emu_pool_free(EmuPool **pool);

/* Pool threads alive now (for tests). */
int emu_pool_threads(const EmuPool *pool);

#endif
