/* kernels/emurt/emurt_state.c: the emulator runtime's global state — start
 * (at load: options from the environment, one emu Backend per emulated
 * device, the "hello" record), the enter/leave pair every API function
 * goes through, CUDA's error bookkeeping (last error, sticky kernel faults),
 * findings, device printf output, and the end (timeline at exit). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_internal.h"

Rt g_rt;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static __thread int t_device;
static __thread cudaError_t t_last_error;
static double g_start_ms;

/* ---- what every part of the runtime looks up in g_rt ---------------------------------------------- */
/* (Here, with g_rt, so that the runtime's parts call into this file and not
 * into each other.) */
static int alloc_index(uintptr_t p) {
    int lo = 0, hi = g_rt.n_allocs - 1, best = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (g_rt.allocs[mid].base <= p) {
            best = mid;
            lo = mid + 1;
        } else hi = mid - 1;
    }
    return best;
}

RtAlloc *rt_alloc_find_any(const void *p) {
    int i = alloc_index((uintptr_t)p);
    if (i < 0) return NULL;
    RtAlloc *a = &g_rt.allocs[i];
    uintptr_t u = (uintptr_t)p;
    return u < a->base + (a->size ? a->size : 1) ? a : NULL;
}

RtAlloc *rt_alloc_find(const void *p) {
    RtAlloc *a = rt_alloc_find_any(p);
    return a && !a->pool_free ? a : NULL;
}

Backend *rt_backend(int dev) { return g_rt.dev[dev].b; }

/* Host code this short between two calls is added to the host clock but
 * gets no entry of its own on the timeline (a loop of calls would flood it). */
#define HOST_ENTRY_MIN_US 20.0

double rt_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The program's measured host time (CUDOJO_EMU_HOST_TIME=1 only) is the
 * CPU time its threads spend outside our calls, not wall time: a machine
 * busy with other work deschedules the program, and wall time would put
 * phantom host work between two enqueues. The CPU clock is noisy too: on a
 * virtual machine a few microseconds of host code now and then read as
 * 30 us to 4 ms (the hypervisor's and interrupts' time charged to the
 * running thread), which moved one enqueue past the copy it should overlap
 * (nonblocking-streams failed about 1 run in 100 under load). So by default
 * the modeled host clock moves only by the model's cost of each call: the
 * timeline, and every check that reads it, is a function of the program. */
static double rt_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Testing hook: CUDOJO_EMU_TEST_HOST_JUMP=US@N makes the host's CPU clock
 * read US microseconds more on entry to the call of the program's Nth call
 * record (1 = the first), as a loaded virtual machine's clock does now and
 * then (tests/emurt/test_emurt.sh). */
static double g_jump_us;
static long g_jump_at, g_records;

static void host_jump_init(void) {
    const char *v = getenv("CUDOJO_EMU_TEST_HOST_JUMP");
    const char *at = v ? strchr(v, '@') : NULL;
    if (!at) return;
    g_jump_us = strtod(v, NULL);
    g_jump_at = strtol(at + 1, NULL, 10);
}

static bool env_flag(const char *name, bool dflt) {
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    return !(v[0] == '0' || !strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off"));
}

static void rt_exit(void);

static void rt_init_once(void) {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g_rt.lock, &a);
    pthread_mutexattr_destroy(&a);
    strbuf_init(&g_rt.out);
    strbuf_init(&g_rt.err);
    g_start_ms = rt_now_ms();
    progwire_init("emu");
    g_rt.opts.checks = env_flag("CUDOJO_EMU_CHECKS", true);
    g_rt.opts.metrics = env_flag("CUDOJO_EMU_METRICS", true);
    g_rt.opts.deterministic = env_flag("CUDOJO_EMU_DETERMINISTIC", false);
    g_rt.opts.adversarial = env_flag("CUDOJO_EMU_ADVERSARIAL", false);
    /* measured host time makes timelines vary from run to run: only on request */
    g_rt.host_time = env_flag("CUDOJO_EMU_HOST_TIME", false);
    host_jump_init();
    g_rt.no_peer = !env_flag("CUDOJO_EMU_PEER", true);
    const char *budget = getenv("CUDOJO_EMU_BUDGET");
    if (budget && *budget) g_rt.opts.instruction_budget = strtoull(budget, NULL, 10);
    const char *deadline = getenv("CUDOJO_EMU_DEADLINE");   /* the run's time limit (CLOCK_MONOTONIC s) */
    if (deadline && *deadline) g_rt.opts.deadline_s = strtod(deadline, NULL);
    const char *seed = getenv("CUDOJO_EMU_SEED");   /* t:emu_options{ seed = } */
    if (seed && *seed) g_rt.opts.seed = strtoull(seed, NULL, 10);
    const char *nd = getenv("CUDOJO_EMU_DEVICES");
    int n = nd && *nd ? atoi(nd) : 1;
    if (n < 1) n = 1;
    if (n > RT_MAX_DEVICES) n = RT_MAX_DEVICES;
    for (int i = 0; i < n; i++) {
        Diag *why = NULL;
        g_rt.dev[i].b = emu_backend_new(&g_rt.opts, &why);
        if (!g_rt.dev[i].b) {
            g_rt.init_error = why;
            break;
        }
        g_rt.n_dev = i + 1;
    }
    DeviceInfo info;
    memset(&info, 0, sizeof info);
    if (g_rt.n_dev) g_rt.dev[0].b->ops->device_info(g_rt.dev[0].b, &info);
    progwire_hello(info.name);
    rt_guard_init();
    g_rt.outside_since_ms = rt_cpu_ms();
    g_rt.ready = true;
    atexit(rt_exit);
}

__attribute__((constructor)) static void rt_load(void) { pthread_once(&g_once, rt_init_once); }

/* ---- host time ------------------------------------------------------------------------------- */
static void host_time_flush(bool force) {
    if (g_rt.host_pending_us <= 0 || (!force && g_rt.host_pending_us < HOST_ENTRY_MIN_US)) return;
    for (int i = 0; i < g_rt.n_dev; i++) {
        Backend *b = g_rt.dev[i].b;
        b->ops->host_work_begin(b, "host code");
        b->ops->host_work_end(b, g_rt.host_pending_us);
    }
    g_rt.host_pending_us = 0;
}

/* One host thread drives every device: the devices' modeled host clocks
 * move together (a wait for device 0 delays what the host then queues on
 * device 1). */
void rt_host_clocks_sync(void) {
    if (g_rt.n_dev < 2) return;
    double now = 0;
    for (int i = 0; i < g_rt.n_dev; i++) {
        double h = emu_model_host_now(g_rt.dev[i].b);
        if (h > now) now = h;
    }
    for (int i = 0; i < g_rt.n_dev; i++) emu_model_host_catch_up(g_rt.dev[i].b, now);
}

static void enter(bool touches_memory) {
    pthread_once(&g_once, rt_init_once);
    pthread_mutex_lock(&g_rt.lock);
    if (g_rt.depth++ == 0) {
        /* the program's own time ends here: opening the guard is ours */
        double gap = rt_cpu_ms() - g_rt.outside_since_ms;
        if (g_jump_at && g_records + 1 == g_jump_at) {
            gap += g_jump_us / 1e3;
            g_jump_at = 0;
        }
        if (touches_memory) rt_guard_open();
        if (gap > 0 && g_rt.host_time) g_rt.host_pending_us += gap * 1e3;
        rt_host_clocks_sync();
        host_time_flush(false);
    }
}

void rt_enter(void) { enter(true); }

/* For calls that never touch device memory (error queries, polling): the
 * guard stays as it is, so a polling loop costs no system calls. */
void rt_enter_pure(void) { enter(false); }

cudaError_t rt_leave(const char *fn, cudaError_t rc, int stream, const char *fmt, ...) {
    if (rc != cudaSuccess && rc != cudaErrorNotReady) t_last_error = rc;
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    progwire_call(fn, args, stream, (int)rc, rt_error_name(rc), (rt_now_ms() - g_start_ms) * 1e3);
    g_records++;
    if (--g_rt.depth == 0) {
        rt_guard_close();
        g_rt.outside_since_ms = rt_cpu_ms();
    }
    pthread_mutex_unlock(&g_rt.lock);
    return rc;
}

void rt_leave_quiet(void) {
    if (--g_rt.depth == 0) {
        rt_guard_close();
        g_rt.outside_since_ms = rt_cpu_ms();
    }
    pthread_mutex_unlock(&g_rt.lock);
}

int rt_current_device(void) { return t_device < g_rt.n_dev ? t_device : 0; }
void rt_set_current_device(int dev) { t_device = dev; }

/* As on the H200: a sticky fault is returned by the calls that fail with
 * it, which set the last error like any failure; cudaGetLastError returns
 * it once and clears the slot (the next one says cudaSuccess), while every
 * other call keeps failing with the sticky error. */
cudaError_t rt_last_error_get(bool reset) {
    cudaError_t e = t_last_error;
    if (reset) t_last_error = cudaSuccess;
    return e;
}

void rt_last_error_set(cudaError_t e) { t_last_error = e; }

cudaError_t rt_sticky(int dev, bool synchronising) {
    if (dev < 0 || dev >= g_rt.n_dev) return cudaSuccess;
    RtDevice *d = &g_rt.dev[dev];
    if (synchronising && d->pending_fault && !d->sticky) {
        d->sticky = d->pending_fault;
        d->pending_fault = cudaSuccess;
        rt_flush_output(); /* what the kernels printed (an assert's line too) still comes out */
    }
    return d->sticky;
}

/* The emulator says what went wrong in CUDA's words first ("invalid
 * argument: ..."), so the error is read back from the message. */
cudaError_t rt_error_from_diag(const Diag *d, cudaError_t fallback) {
    static const struct { const char *prefix; cudaError_t e; } MAP[] = {
        {"invalid argument", cudaErrorInvalidValue},
        {"out of memory", cudaErrorMemoryAllocation},
        {"invalid resource handle", cudaErrorInvalidResourceHandle},
        {"device not ready", cudaErrorNotReady},
        {"named symbol not found", cudaErrorSymbolNotFound},
        {"too many resources requested for launch", cudaErrorLaunchOutOfResources},
    };
    if (!d || !d->message) return fallback;
    /* CUDA 13 answers every bad launch configuration (0 blocks, 2048 threads,
     * block z 65, grid y 65536) with cudaErrorInvalidValue (H200, run 1) */
    if (!strncmp(d->message, "invalid configuration argument", 30)) return cudaErrorInvalidValue;
    for (size_t i = 0; i < sizeof MAP / sizeof MAP[0]; i++)
        if (!strncmp(d->message, MAP[i].prefix, strlen(MAP[i].prefix))) return MAP[i].e;
    return fallback;
}

void rt_findings(Diag *d) {
    if (!d) return;
    if (progwire_active()) {
        json_t *o = json_object();
        json_object_set_new(o, "diag", diag_to_json(d));
        progwire_send("finding", o);
    } else {
        char *s = diag_format_all(d, false);
        fflush(stdout);
        fprintf(stderr, "%s", s);
        free(s);
    }
    diag_free(&d);
}

void rt_flush_output(void) {
    if (g_rt.out.len) {
        fputs(g_rt.out.data, stdout);
        strbuf_reset(&g_rt.out);
    }
    if (g_rt.err.len) {
        fflush(stdout);
        fputs(g_rt.err.data, stderr);
        strbuf_reset(&g_rt.err);
    }
}

const char *rt_ptr(const void *p) {
    static __thread char ring[8][96];
    static __thread int next;
    char *b = ring[next++ & 7];
    if (!p) return "NULL";
    RtAlloc *a = rt_alloc_find(p);
    if (a) snprintf(b, 96, "%s+%zu", a->name, (size_t)((uintptr_t)p - a->base));
    else snprintf(b, 96, "%p", p);
    return b;
}

const char *rt_kind_name(enum cudaMemcpyKind k) {
    switch (k) {
    case cudaMemcpyHostToHost: return "cudaMemcpyHostToHost";
    case cudaMemcpyHostToDevice: return "cudaMemcpyHostToDevice";
    case cudaMemcpyDeviceToHost: return "cudaMemcpyDeviceToHost";
    case cudaMemcpyDeviceToDevice: return "cudaMemcpyDeviceToDevice";
    case cudaMemcpyDefault: return "cudaMemcpyDefault";
    }
    return "(invalid kind)";
}

int emurt_unimplemented(const char *fn) {
    rt_enter();
    fflush(stdout);
    fprintf(stderr, "cudojo's emulator runtime does not implement %s\n", fn);
    json_t *o = json_object();
    json_object_set_new(o, "fn", json_string(fn));
    progwire_send("unimplemented", o);
    return (int)rt_leave(fn, cudaErrorNotSupported, 0, "(not implemented)");
}

/* Device 0's timeline with every other device's entries added: device d's
 * stream s becomes stream d*100+s ("device d: ..."), each entry says its
 * device, and the host rows' "host code" (on every device alike) is kept
 * once. Caller frees. */
Timeline *rt_timeline_merged(void) {
    Timeline *out = NULL;
    Backend *b0 = g_rt.dev[0].b;
    Diag *d = b0->ops->timeline_get(b0, &out);
    diag_free(&d);
    if (!out) out = timeline_new(true, "emu-model", "");
    for (int i = 1; i < g_rt.n_dev; i++) {
        Backend *b = g_rt.dev[i].b;
        Timeline *t = NULL;
        d = b->ops->timeline_get(b, &t);
        diag_free(&d);
        if (!t) continue;
        for (int k = 0; k < t->n_streams; k++) {
            char name[200];
            snprintf(name, sizeof name, "device %d: %s", i, t->streams[k].name ? t->streams[k].name : "stream");
            timeline_set_stream(out, RT_DEVICE_STREAMS * i + t->streams[k].id, name, t->streams[k].priority);
        }
        for (int k = 0; k < t->n; k++) {
            const TimelineEntry *e = &t->v[k];
            if (e->kind == TL_HOST && e->stream == TIMELINE_HOST) continue;
            int stream = e->stream == TIMELINE_HOST ? TIMELINE_HOST : RT_DEVICE_STREAMS * i + e->stream;
            TimelineEntry *c = timeline_add(out, e->kind, stream, e->name, e->start_us, e->dur_us);
            if (!c) continue;
            c->bytes = e->bytes;
            c->pinned = e->pinned;
            memcpy(c->grid, e->grid, sizeof c->grid);
            memcpy(c->block, e->block, sizeof c->block);
            c->device = i;
        }
        out->dropped += t->dropped;
        timeline_free(&t);
    }
    return out;
}

/* At exit: the timeline of each device that did something, and a note when
 * kernel printf output was never printed (CUDA prints it only at a
 * synchronisation point, and so do we). */
static void rt_exit(void) {
    pthread_mutex_lock(&g_rt.lock);
    rt_guard_open();
    host_time_flush(true);
    if (g_rt.out.len) {
        Diag *d = diag_new(DIAG_WARNING, "printf-lost", NULL, 0, 0,
                           "Kernel printf output was never shown: the program ended without synchronising "
                           "(cudaDeviceSynchronize, a blocking cudaMemcpy, ...) after the kernel that printed it, "
                           "so on a GPU it is lost too.");
        rt_findings(d);
        strbuf_reset(&g_rt.out);
    }
    if (g_rt.kernels_dropped) {
        json_t *o = json_object();
        json_object_set_new(o, "count", json_integer(g_rt.kernels_dropped));
        progwire_send("kernels_dropped", o);
    }
    /* one timeline for all devices (their clocks are one host's) */
    rt_host_clocks_sync();
    Timeline *t = rt_timeline_merged();
    json_t *o = json_object();
    json_object_set_new(o, "timeline", timeline_to_json(t));
    if (g_rt.n_dev > 1) json_object_set_new(o, "devices", json_integer(g_rt.n_dev));
    progwire_send("timeline", o);
    timeline_free(&t);
    fflush(stdout);
    pthread_mutex_unlock(&g_rt.lock);
}
