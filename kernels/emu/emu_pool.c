/* kernels/emu/emu_pool.c: a Backend's pool of host threads for the blocks
 * of its launches.
 *
 * A launch publishes its job (a new generation) and starts on it alone. If
 * it is still running after a while (emu_run.c decides: about 100 us, or a
 * long block), it wakes the helpers: threads made on the first wake that
 * wants more than the pool has, asleep on a condition variable between
 * jobs. A helper that wakes while the job is open takes a slot and runs it.
 * When the caller's own share returns (the job's work is all taken), the
 * job closes: helpers that had not started stay out. The caller then waits
 * for the helpers that started and for every woken helper to be asleep
 * again, so between launches no helper uses the CPU (the emulator runtime
 * counts the process's CPU time between two calls as the program's host
 * code). So a tiny grid never touches another thread, and a large one
 * spreads over every helper that gets a core.
 *
 * Forked children (the grading workers are forked processes): a child has
 * only the thread that forked, and a lock a helper held at that moment stays
 * held in it. The pool remembers the process that made it; a pool seen from
 * another process is never locked or joined, only left (its memory freed)
 * and replaced by a fresh one.
 *
 * Helpers block every asynchronous signal, so a signal sent to the process
 * (a timer, SIGINT, SIGCHLD) is handled by the program's own threads as
 * before the pool, never by a helper asleep between launches. */
#include "kernels/emu/emu_pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/xalloc.h"

#define POOL_MAX 255

struct EmuPool {
    pid_t pid;                  /* the process that made the pool */
    pthread_mutex_t use;        /* held by the launch using the pool */
    pthread_mutex_t mu;         /* guards everything below */
    pthread_cond_t work;        /* a job's helpers woken, or quit */
    pthread_cond_t done;        /* a helper left the job or fell asleep */
    pthread_t tid[POOL_MAX];
    int n_threads;
    int sleeping;               /* helpers waiting on `work` */
    bool quit;
    /* the job */
    unsigned long gen;
    bool open;
    int woke;                   /* emu_pool_wake ran for this job (read with __atomic outside mu) */
    int wanted, taken, running;
    EmuPoolFn fn;
    void *arg;
};

static void *helper_main(void *arg) {
    EmuPool *p = arg;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && !(p->open && p->woke && p->gen != seen && p->taken < p->wanted)) {
            p->sleeping++;
            pthread_cond_signal(&p->done);
            pthread_cond_wait(&p->work, &p->mu);
            p->sleeping--;
        }
        if (p->quit) break;
        seen = p->gen;
        int slot = ++p->taken;
        p->running++;
        EmuPoolFn fn = p->fn;
        void *fa = p->arg;
        pthread_mutex_unlock(&p->mu);
        fn(fa, slot, p);
        pthread_mutex_lock(&p->mu);
        p->running--;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static EmuPool *pool_new(void) {
    EmuPool *p = xcalloc(1, sizeof *p);
    p->pid = getpid();
    pthread_mutex_init(&p->use, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    return p;
}

/* Grows the pool to n threads (fewer when the system refuses); with p->mu
 * held (a new thread waits for it before it looks at the job). */
static void pool_grow(EmuPool *p, int n) {
    if (n <= p->n_threads) return;
    sigset_t all, old;
    sigfillset(&all);
    /* faults stay with the thread that caused them */
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGTRAP);
    sigdelset(&all, SIGABRT);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (p->n_threads < n) {
        if (pthread_create(&p->tid[p->n_threads], NULL, helper_main, p) != 0) break;
        __atomic_store_n(&p->n_threads, p->n_threads + 1, __ATOMIC_RELAXED);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void emu_pool_wake(EmuPool *p) {
    if (!p || __atomic_load_n(&p->woke, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&p->mu);
    if (!p->woke && p->open) {
        __atomic_store_n(&p->woke, 1, __ATOMIC_RELEASE);
        pool_grow(p, p->wanted);
        if (p->wanted >= p->n_threads) pthread_cond_broadcast(&p->work);
        else
            for (int i = 0; i < p->wanted; i++) pthread_cond_signal(&p->work);
    }
    pthread_mutex_unlock(&p->mu);
}

void emu_pool_run(EmuPool **pool, int helpers, EmuPoolFn fn, void *arg) {
    if (helpers > POOL_MAX) helpers = POOL_MAX;
    if (!pool || helpers <= 0) {
        fn(arg, 0, NULL);
        return;
    }
    if (*pool && (*pool)->pid != getpid()) {   /* the parent's: leave its locks and threads alone */
        free(*pool);
        *pool = NULL;
    }
    if (!*pool) *pool = pool_new();
    EmuPool *p = *pool;
    if (pthread_mutex_trylock(&p->use) != 0) {   /* another thread's launch has it */
        fn(arg, 0, NULL);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->arg = arg;
    p->gen++;
    p->open = true;
    __atomic_store_n(&p->woke, 0, __ATOMIC_RELAXED);
    p->taken = 0;
    p->wanted = helpers;
    pthread_mutex_unlock(&p->mu);

    fn(arg, 0, p);

    pthread_mutex_lock(&p->mu);
    p->open = false;
    /* the helpers that joined, then every helper asleep again (a woken one
     * that never got a core must not run after the launch) */
    while (p->running || (p->woke && p->sleeping < p->n_threads)) pthread_cond_wait(&p->done, &p->mu);
    p->fn = NULL;
    p->arg = NULL;
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->use);
}

void emu_pool_free(EmuPool **pool) {
    EmuPool *p = pool ? *pool : NULL;
    if (!p) return;
    *pool = NULL;
    if (p->pid != getpid()) {   /* made before a fork: no threads here, locks maybe held */
        free(p);
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->n_threads; i++) pthread_join(p->tid[i], NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->use);
    free(p);
}

int emu_pool_threads(const EmuPool *pool) {
    return pool && pool->pid == getpid() ? __atomic_load_n(&pool->n_threads, __ATOMIC_RELAXED) : 0;
}
