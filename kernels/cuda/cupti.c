/* kernels/cuda/cupti.c: CUPTI activity collection, loaded with dlopen.
 *
 * The record structs come from the toolkit's cupti_activity.h (CUDA 13:
 * Kernel10, Memcpy6, Memset4, Synchronization2); the library is the same
 * major version (libcupti.so.13), which writes exactly those versions.
 * Buffers are 1 MiB; CUPTI hands them back (bufferCompleted, possibly on its
 * own thread) and the records we keep are copied out under a mutex. With
 * hooks set (the injection library, kernels/cuda/inject.c) every callback and
 * every raw record goes to them instead, and nothing is kept here. */
#include "kernels/cuda/cupti.h"

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define BUF_SIZE (1u << 20)
#define BUF_ALIGN 8

typedef CUptiResult (*FnSubscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
typedef CUptiResult (*FnEnableDomain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
typedef CUptiResult (*FnRegister)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
typedef CUptiResult (*FnEnable)(CUpti_ActivityKind);
typedef CUptiResult (*FnFlushAll)(uint32_t);
typedef CUptiResult (*FnNextRecord)(uint8_t *, size_t, CUpti_Activity **);
typedef CUptiResult (*FnDropped)(CUcontext, uint32_t, size_t *);
typedef CUptiResult (*FnTimestamp)(uint64_t *);
typedef CUptiResult (*FnResultString)(CUptiResult, const char **);

static struct {
    pthread_once_t once;
    bool ok;
    void *lib;                      /* the libcupti handle, for cupti_symbol */
    CuptiHooks hooks;
    char why[200];
    FnFlushAll flush_all;
    FnNextRecord next_record;
    FnDropped dropped;
    FnTimestamp timestamp;
    pthread_mutex_t mu;             /* guards recs and lost */
    CuptiRecord *recs;
    int n, cap;
    long lost;
} C = {.once = PTHREAD_ONCE_INIT, .mu = PTHREAD_MUTEX_INITIALIZER};

static _Thread_local struct {
    bool open;
    CuptiBracket br;
} T;

static void CUPTIAPI on_api(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId cbid, const void *data) {
    (void)user;
    if (C.hooks.api) C.hooks.api(C.hooks.user, (uint32_t)dom, (uint32_t)cbid, data);
    if (!T.open) return;
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite != CUPTI_API_ENTER) return;
    for (int i = 0; i < T.br.n; i++)
        if (T.br.ids[i] == cb->correlationId) return;
    if (T.br.n < CUPTI_BRACKET_IDS) T.br.ids[T.br.n++] = cb->correlationId;
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records) {
    *buf = aligned_alloc(BUF_ALIGN, BUF_SIZE);
    *size = *buf ? BUF_SIZE : 0;
    *max_records = 0;
}

static TimelineKind copy_kind(uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return TL_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return TL_D2H;
    default: return TL_D2D;
    }
}

static void keep(const CuptiRecord *r) {
    if (C.n == C.cap) {
        C.cap = C.cap ? C.cap * 2 : 256;
        C.recs = xrealloc(C.recs, (size_t)C.cap * sizeof *C.recs);
    }
    C.recs[C.n++] = *r;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid) {
    (void)size;
    CUpti_Activity *a = NULL;
    pthread_mutex_lock(&C.mu);
    while (valid && C.next_record(buf, valid, &a) == CUPTI_SUCCESS) {
        if (C.hooks.activity) {
            C.hooks.activity(C.hooks.user, a);
            continue;
        }
        CuptiRecord r = {0};
        switch (a->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            const CUpti_ActivityKernel10 *k = (const void *)a;
            r = (CuptiRecord){TL_KERNEL, k->correlationId, k->start, k->end, 0, false};
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            const CUpti_ActivityMemcpy6 *m = (const void *)a;
            TimelineKind tk = copy_kind(m->copyKind);
            uint8_t host = tk == TL_H2D ? m->srcKind : m->dstKind;
            r = (CuptiRecord){tk, m->correlationId, m->start, m->end, m->bytes,
                              tk != TL_D2D && host == CUPTI_ACTIVITY_MEMORY_KIND_PINNED};
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            const CUpti_ActivityMemset4 *m = (const void *)a;
            r = (CuptiRecord){TL_MEMSET, m->correlationId, m->start, m->end, m->bytes, false};
            break;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
            const CUpti_ActivitySynchronization2 *s = (const void *)a;
            r = (CuptiRecord){TL_SYNC, s->correlationId, s->start, s->end, 0, false};
            break;
        }
        default:
            continue;
        }
        if (r.end_ns >= r.start_ns && r.start_ns) keep(&r);
    }
    size_t lost = 0;
    if (C.dropped && C.dropped(ctx, stream, &lost) == CUPTI_SUCCESS) C.lost += (long)lost;
    pthread_mutex_unlock(&C.mu);
    free(buf);
}

static void *sym(void *h, const char *name, bool *ok) {
    void *p = dlsym(h, name);
    if (!p) *ok = false;
    return p;
}

static void start_once(void) {
    const char *env = getenv("CUDOJO_TIMELINE");
    if (env && *env && strcmp(env, "cupti")) {
        snprintf(C.why, sizeof C.why, "CUDOJO_TIMELINE=%s", env);
        return;
    }
    /* The executable's RUNPATH ($ORIGIN/lib, the toolkit's lib64) first. */
    static const char *const names[] = {"libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
                                        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13", "libcupti.so"};
    void *h = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(C.why, sizeof C.why, "libcupti.so.13 not found (%s)", dlerror());
        return;
    }
    bool ok = true;
    FnSubscribe subscribe = (FnSubscribe)sym(h, "cuptiSubscribe", &ok);
    FnEnableDomain enable_domain = (FnEnableDomain)sym(h, "cuptiEnableDomain", &ok);
    FnRegister reg = (FnRegister)sym(h, "cuptiActivityRegisterCallbacks", &ok);
    FnEnable enable = (FnEnable)sym(h, "cuptiActivityEnable", &ok);
    FnResultString result_string = (FnResultString)sym(h, "cuptiGetResultString", &ok);
    C.flush_all = (FnFlushAll)sym(h, "cuptiActivityFlushAll", &ok);
    C.next_record = (FnNextRecord)sym(h, "cuptiActivityGetNextRecord", &ok);
    C.timestamp = (FnTimestamp)sym(h, "cuptiGetTimestamp", &ok);
    C.dropped = (FnDropped)dlsym(h, "cuptiActivityGetNumDroppedRecords");
    if (!ok) {
        snprintf(C.why, sizeof C.why, "libcupti lacks an entry point cudojo needs");
        return;
    }
    CUpti_SubscriberHandle sub;
    const char *step = "cuptiSubscribe";
    CUptiResult r = subscribe(&sub, on_api, NULL);
    if (r == CUPTI_SUCCESS) step = "cuptiEnableDomain", r = enable_domain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
    if (r == CUPTI_SUCCESS && !C.hooks.runtime_only) r = enable_domain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
    if (r == CUPTI_SUCCESS) step = "cuptiActivityRegisterCallbacks", r = reg(buffer_requested, buffer_completed);
    static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                               CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && r == CUPTI_SUCCESS; i++)
        step = "cuptiActivityEnable", r = enable(kinds[i]);
    if (r != CUPTI_SUCCESS) {
        const char *s = NULL;
        if (result_string(r, &s) != CUPTI_SUCCESS || !s) s = "unknown error";
        snprintf(C.why, sizeof C.why, "%s: %s", step, s);   /* e.g. another profiler holds CUPTI */
        return;
    }
    C.lib = h;
    C.ok = true;
}

bool cupti_start(char *why, size_t why_len) {
    pthread_once(&C.once, start_once);
    if (!C.ok && why && why_len) snprintf(why, why_len, "%s", C.why);
    return C.ok;
}

bool cupti_active(void) {
    return C.ok;
}

uint64_t cupti_now_ns(void) {
    uint64_t t = 0;
    if (C.ok && C.timestamp(&t) != CUPTI_SUCCESS) t = 0;
    return t;
}

void cupti_bracket_open(void) {
    T.br.n = 0;
    T.open = C.ok;
}

void cupti_bracket_close(CuptiBracket *br) {
    T.open = false;
    *br = T.br;
    T.br.n = 0;
}

int cupti_take(CuptiRecord **out, long *dropped) {
    *out = NULL;
    if (dropped) *dropped = 0;
    if (!C.ok) return 0;
    C.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&C.mu);
    int n = C.n;
    *out = C.recs;
    if (dropped) *dropped = C.lost;
    C.recs = NULL;
    C.n = C.cap = 0;
    C.lost = 0;
    pthread_mutex_unlock(&C.mu);
    return n;
}

void cupti_set_hooks(const CuptiHooks *h) {
    if (!C.ok && !C.lib) C.hooks = *h;
}

void *cupti_symbol(const char *name) {
    return C.lib ? dlsym(C.lib, name) : NULL;
}

void cupti_flush(void) {
    if (C.ok) C.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

long cupti_take_dropped(void) {
    pthread_mutex_lock(&C.mu);
    long n = C.lost;
    C.lost = 0;
    pthread_mutex_unlock(&C.mu);
    return n;
}
