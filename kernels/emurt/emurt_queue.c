/* kernels/emurt/emurt_queue.c: work that has to wait — the one place where
 * the emulator runtime is really asynchronous.
 *
 * Everything normally runs at once, in program order. A host function
 * (cudaLaunchHostFunc, cudaStreamAddCallback, a graph's host node) is
 * different: it runs on a thread of its own, as on a GPU, and may block
 * (a program can hold a stream until the host opens a gate). While it runs
 * its stream is busy, and work issued to a busy stream — or to a stream
 * that must wait for it (CUDA's legacy default stream rules, an event
 * recorded behind it) — goes into that stream's queue, to run when what it
 * waits for is done. Synchronising calls wait (the runtime's lock released)
 * until the queues they depend on drain; queries say cudaErrorNotReady. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static uint64_t g_seq;
static bool g_dispatching;

static RtStream *all_streams(int i, int *n) {
    /* legacy streams first, then the others (per-thread ones among them) */
    int k = 0;
    for (int d = 0; d < g_rt.n_dev; d++, k++)
        if (k == i) return rt_stream_legacy(d);
    if (i - k < g_rt.n_streams && i >= k) return g_rt.streams[i - k];
    *n = k + g_rt.n_streams;
    return NULL;
}

static bool busy(const RtStream *s) { return s->host_running || s->head; }

/* The earliest sequence number of work pending on s (UINT64_MAX: none). */
static uint64_t first_pending(const RtStream *s) {
    uint64_t q = s->head ? s->head->seq : UINT64_MAX;
    if (s->host_running && s->host_seq < q) q = s->host_seq;
    return q;
}

static bool is_blocking(const RtStream *s) { return s->id && !(s->flags & cudaStreamNonBlocking); }

/* Whether work issued as `seq` on s may run now, given the other streams. */
static bool may_run(const RtStream *s, uint64_t seq) {
    if (s->id == 0) {
        int n = 0;
        for (int i = 0;; i++) {
            RtStream *o = all_streams(i, &n);
            if (!o) break;
            if (o != s && o->dev == s->dev && is_blocking(o) && first_pending(o) < seq) return false;
        }
        return true;
    }
    if (is_blocking(s)) return first_pending(rt_stream_legacy(s->dev)) >= seq;
    return true;
}

bool rt_queue_needed(RtStream *s) {
    if (g_dispatching || !s) return false;
    return busy(s) || !may_run(s, g_seq + 1);
}

static RtQOp *qop_new(RtStream *s, RtQKind kind) {
    RtQOp *op = xcalloc(1, sizeof *op);
    op->kind = kind;
    op->seq = ++g_seq;
    if (s->tail) s->tail->next = op;
    else s->head = op;
    s->tail = op;
    return op;
}

void rt_queue_launch(RtStream *s, RtFunc *f, dim3 grid, dim3 block, const unsigned char *params, size_t psize,
                     size_t shared, RtQRun run) {
    RtQOp *op = qop_new(s, RTQ_KERNEL);
    op->run = run;
    op->f = f;
    op->grid = grid;
    op->block = block;
    op->params = xmalloc(psize + 1);
    memcpy(op->params, params, psize);
    op->psize = psize;
    op->shared = shared;
}

void rt_queue_copy(RtStream *s, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, RtQRun run) {
    RtQOp *op = qop_new(s, RTQ_COPY);
    op->run = run;
    op->dst = dst;
    op->src = src;
    op->n = n;
    op->copy_kind = kind;
}

void rt_queue_memset(RtStream *s, void *dst, int value, size_t n, RtQRun run) {
    RtQOp *op = qop_new(s, RTQ_MEMSET);
    op->run = run;
    op->dst = dst;
    op->value = value;
    op->n = n;
}

void rt_queue_call(RtStream *s, const void *args, size_t size, RtQRun run) {
    RtQOp *op = qop_new(s, RTQ_CALL);
    op->run = run;
    op->blob = xmalloc(size ? size : 1);
    memcpy(op->blob, args, size);
}

void rt_queue_event(RtStream *s, RtEvent *e, bool wait) {
    RtQOp *op = qop_new(s, wait ? RTQ_WAIT_EVENT : RTQ_RECORD);
    op->event = e;
    if (!wait) e->pending++;
}

/* ---- host functions on their own thread ------------------------------------------------------------- */
typedef struct HostJob {
    RtStream *s;
    cudaHostFn_t fn;
    void *data;
    cudaStreamCallback_t cb;
    cudaStream_t handle;
} HostJob;

static void *host_thread(void *arg) {
    HostJob *j = arg;
    if (j->cb) j->cb(j->handle, cudaSuccess, j->data);
    else j->fn(j->data);
    pthread_mutex_lock(&g_rt.lock);
    if (g_rt.depth++ == 0) rt_guard_open();
    j->s->host_running = false;
    rt_dispatch();
    if (--g_rt.depth == 0) rt_guard_close();
    pthread_mutex_unlock(&g_rt.lock);
    free(j);
    return NULL;
}

static void start_host(RtStream *s, uint64_t seq, cudaHostFn_t fn, cudaStreamCallback_t cb, cudaStream_t handle,
                       void *data) {
    HostJob *j = xcalloc(1, sizeof *j);
    *j = (HostJob){s, fn, data, cb, handle};
    s->host_running = true;
    s->host_seq = seq;
    rt_flush_output(); /* CUDA prints kernel output before a stream callback runs */
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, host_thread, j)) {
        /* no thread: run it here, the stream in order as before */
        pthread_attr_destroy(&a);
        if (cb) cb(handle, cudaSuccess, data);
        else fn(data);
        s->host_running = false;
        free(j);
        return;
    }
    pthread_attr_destroy(&a);
}

void rt_host_func(RtStream *s, cudaHostFn_t fn, cudaStreamCallback_t cb, cudaStream_t handle, void *data) {
    if (rt_queue_needed(s)) {
        RtQOp *op = qop_new(s, RTQ_HOST);
        op->fn = fn;
        op->cb = cb;
        op->handle = handle;
        op->data = data;
        return;
    }
    start_host(s, ++g_seq, fn, cb, handle, data);
}

/* ---- running what became ready ------------------------------------------------------------------------ */
static bool op_ready(const RtStream *s, const RtQOp *op) {
    if (s->host_running) return false;
    if (op->kind == RTQ_WAIT_EVENT && op->event->pending) return false;
    return may_run(s, op->seq);
}

static void op_run(RtStream *s, RtQOp *op) {
    switch (op->kind) {
    case RTQ_KERNEL:
    case RTQ_COPY:
    case RTQ_MEMSET:
    case RTQ_CALL: op->run(s, op); break;
    case RTQ_RECORD: {
        Backend *b = g_rt.dev[s->dev].b;
        Diag *d = b->ops->event_record(b, op->event->id, s->id);
        diag_free(&d);
        op->event->pending--;
        break;
    }
    case RTQ_WAIT_EVENT: {
        Diag *d = emu_stream_wait_event(g_rt.dev[s->dev].b, s->id, op->event->id);
        diag_free(&d);
        break;
    }
    case RTQ_HOST: start_host(s, op->seq, op->fn, op->cb, op->handle, op->data); break;
    }
}

void rt_dispatch(void) {
    if (g_dispatching) return;
    g_dispatching = true;
    bool progress = true;
    while (progress) {
        progress = false;
        int n = 0;
        for (int i = 0;; i++) {
            RtStream *s = all_streams(i, &n);
            if (!s) break;
            while (s->head && op_ready(s, s->head)) {
                RtQOp *op = s->head;
                s->head = op->next;
                if (!s->head) s->tail = NULL;
                op_run(s, op);
                free(op->params);
                free(op->blob);
                free(op);
                progress = true;
            }
        }
    }
    g_dispatching = false;
    pthread_cond_broadcast(&g_cv);
}

/* ---- waiting ---------------------------------------------------------------------------------------------- */
static bool any_busy(int dev) {
    int n = 0;
    for (int i = 0;; i++) {
        RtStream *s = all_streams(i, &n);
        if (!s) return false;
        if ((dev < 0 || s->dev == dev) && busy(s)) return true;
    }
}

bool rt_stream_busy(RtStream *s) {
    if (busy(s)) return true;
    return !may_run(s, g_seq + 1);
}

static void wait_cv(void) { pthread_cond_wait(&g_cv, &g_rt.lock); }

void rt_wait_stream(RtStream *s) {
    rt_dispatch();
    while (rt_stream_busy(s)) wait_cv();
}

void rt_wait_device(int dev) {
    rt_dispatch();
    while (any_busy(dev)) wait_cv();
}

/* Whether a host function runs on a stream of dev (-1: any) or waits in its queue. */
static bool host_func_on(int dev) {
    int n = 0;
    for (int i = 0;; i++) {
        const RtStream *s = all_streams(i, &n);
        if (!s) return false;
        if (dev >= 0 && s->dev != dev) continue;
        if (s->host_running) return true;
        for (const RtQOp *op = s->head; op; op = op->next)
            if (op->kind == RTQ_HOST) return true;
    }
}

void rt_wait_lazy_load(int dev, const char *kernel) {
    rt_dispatch();
    if (!host_func_on(dev)) return;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 3;
    bool said = false;
    while (any_busy(dev)) {
        if (said) {
            wait_cv();
            continue;
        }
        if (pthread_cond_timedwait(&g_cv, &g_rt.lock, &until) != ETIMEDOUT || !any_busy(dev)) continue;
        said = true;
        fprintf(stderr,
                "cudojo's emulator runtime: the launch of %s, the first of its file's kernels, waits for the "
                "host function still running on device %d: CUDA loads a file's kernels at the first launch of "
                "one of them, and the load waits for the work in flight. On a GPU this launch waits too, "
                "forever if that host function waits for this thread. Launch a kernel once before holding a "
                "stream.\n",
                kernel, dev);
    }
}

void rt_wait_event(RtEvent *e) {
    rt_dispatch();
    while (e->pending) wait_cv();
}
