/* kernels/cuda/inject_trace.c: the Injector of kernels/cuda/inject.h —
 * runtime API callbacks become "call" records as they happen, activity
 * records are kept and become "kernel" records and one "timeline" at exit.
 *
 * Streams and events get small numbers in creation order (legacy stream 0);
 * an activity record finds its stream by CUPTI's stream id (asked when the
 * stream was created), else by the call it came from (its correlation id),
 * which also names copies after their call. Timestamps are CUPTI's, in ns;
 * the timeline counts from the earliest entry. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/cuda/inject.h"
#include "kernels/progwire.h"
#include "kernels/timeline.h"

#define PER_THREAD_HANDLE ((const void *)0x2)   /* cudaStreamPerThread */
#define LEGACY_HANDLE ((const void *)0x1)       /* cudaStreamLegacy */
#define MAX_KERNEL_RECORDS PROGWIRE_MAX_CALLS
/* A loop of a million launches must not grow the program by gigabytes: past
 * these, activity records are only counted (as the timeline's dropped) and
 * calls no longer remember their stream for them. */
#define MAX_ACTS (2 * TIMELINE_MAX_ENTRIES)
#define MAX_CORR (8 * TIMELINE_MAX_ENTRIES)

typedef enum ActWhat { ACT_KERNEL, ACT_COPY, ACT_MEMSET, ACT_SYNC, ACT_EVENT, ACT_UM } ActWhat;

typedef struct Act {
    ActWhat what;
    int sub;                        /* copies, UM: TimelineKind; sync: CUPTI's synchronization type */
    bool pinned;
    uint32_t corr;
    uint64_t sid;                   /* stream key: context id << 32 | CUPTI's stream id */
    uint64_t start, end, bytes;
    int grid[3], block[3], shared_dyn, shared_static, regs;
    uint32_t local;
    char *name;                     /* kernels: the mangled name (owned) */
} Act;

typedef struct Handle {             /* a stream or event the program created */
    const void *h;                  /* NULL once destroyed */
    int num, priority;
    unsigned flags;
} Handle;

typedef struct CorrInfo {           /* what a call said, for its activity records */
    uint32_t corr;                  /* 0 = empty slot */
    int stream, event;
    const char *fn;                 /* CUPTI's functionName: static */
} CorrInfo;

typedef struct SidMap {
    uint64_t sid;                   /* context id << 32 | stream id (stream ids are per context) */
    int num;
} SidMap;

#define STREAM_KEY(ctx, id) ((uint64_t)(ctx) << 32 | (uint32_t)(id))
#define MAX_CONTEXTS 16

struct Injector {
    InjectHooks hk;
    uint64_t t0;
    pthread_mutex_t mu;
    bool hello_sent, finished;
    CUcontext legacy_known[MAX_CONTEXTS];   /* contexts whose legacy stream id we know */
    int n_legacy;
    char device[160];
    Handle *streams, *events;
    int n_streams, n_events, next_stream, next_event;
    int per_thread;                 /* its number, 0 until used */
    SidMap *sids;
    int n_sids;
    CorrInfo *corr;                 /* open addressing, cap a power of two */
    size_t corr_cap, corr_n;
    Act *acts;
    size_t n_acts, cap_acts;
    long acts_dropped;
    uint64_t um_h2d, um_d2h, um_cpu_faults, um_gpu_faults, um_h2d_n, um_d2h_n;
    bool um_seen;
};

static _Thread_local struct {
    int depth;
    uint64_t enter_ns;
    /* A <<<>>> launch (__cudaLaunchKernel) that calls cudaLaunchKernel inside:
     * the inner call's parameters are the documented ones, so they are used. */
    bool inner_launch;
    int inner_stream;
    char inner_args[512];
} T;

/* ---- names ------------------------------------------------------------------ */

static const struct {
    int code;
    const char *name;
} ERRORS[] = {
    {0, "cudaSuccess"},
#include "cuda_errors.h"
};

const char *inject_error_name(int rc) {
    for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++)
        if (ERRORS[i].code == rc) return ERRORS[i].name;
    return NULL;
}

typedef char *(*DemangleFn)(const char *, char *, size_t *, int *);

static DemangleFn g_demangle;
static void find_demangler(void) {
    /* A CUDA program is C++ and brings libstdc++; a C host may not. */
    g_demangle = (DemangleFn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!g_demangle) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h) g_demangle = (DemangleFn)dlsym(h, "__cxa_demangle");
    }
}

/* The length-prefixed source names of a plain mangled name ("_Z4busyPKfPfii",
 * "_ZN2ns4busyEv") when no demangler is at hand; NULL for anything else. */
static char *simple_demangle(const char *m) {
    if (strncmp(m, "_Z", 2)) return NULL;
    const char *p = m + 2;
    bool nested = *p == 'N';
    if (nested) p++;
    StrBuf sb;
    strbuf_init(&sb);
    while (*p >= '1' && *p <= '9') {
        char *end;
        long n = strtol(p, &end, 10);
        if ((long)strlen(end) < n) break;
        if (sb.len) strbuf_append(&sb, "::");
        strbuf_append_n(&sb, end, (size_t)n);
        p = end + n;
        if (!nested) break;
    }
    if (!sb.len || *p == 'I' || (nested && *p != 'E')) {
        strbuf_fini(&sb);
        return NULL;
    }
    return strbuf_steal(&sb);
}

char *inject_kernel_name(const char *mangled) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (!mangled || !*mangled) return xstrdup("?");
    pthread_once(&once, find_demangler);
    char *d = NULL;
    int status = -1;
    if (g_demangle) d = g_demangle(mangled, NULL, NULL, &status);
    if (!d || status != 0) {
        free(d);
        d = simple_demangle(mangled);
        return d ? d : xstrdup(mangled);
    }
    /* "void scale<float>(float*, int)" → "scale<float>": the parameter list
     * is the first '(' outside <>, the return type ends at the last space
     * outside <> before it. */
    static const char ANON[] = "(anonymous namespace)";
    int angle = 0;
    size_t cut = strlen(d), name_from = 0;
    for (size_t i = 0; d[i]; i++) {
        if (!strncmp(d + i, ANON, sizeof ANON - 1)) {
            i += sizeof ANON - 2;
            continue;
        }
        char c = d[i];
        if (c == '<') angle++;
        else if (c == '>' && angle > 0) angle--;
        else if (c == ' ' && angle == 0) name_from = i + 1;
        else if (c == '(' && angle == 0) {
            cut = i;
            break;
        }
    }
    if (name_from >= cut) name_from = 0;
    char *s = xstrndup(d + name_from, cut - name_from);
    free(d);
    return s;
}

/* ---- streams, events, correlation ids (under mu) -------------------------------- */

static Handle *handle_find(Handle *v, int n, const void *h) {
    for (int i = n - 1; i >= 0; i--)
        if (v[i].h == h) return &v[i];
    return NULL;
}

static Handle *handle_add(Handle **v, int *n, int *next, const void *h) {
    *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    Handle *x = &(*v)[(*n)++];
    *x = (Handle){.h = h, .num = ++*next};
    return x;
}

/* The number of a stream handle as a call passed it; `ptsz`: the call was
 * the per-thread-default-stream form, where NULL means the per-thread stream. */
static int stream_num(Injector *ij, const void *h, bool ptsz) {
    if (h == LEGACY_HANDLE || (!h && !ptsz)) return 0;
    if (!h || h == PER_THREAD_HANDLE) {
        if (!ij->per_thread) ij->per_thread = ++ij->next_stream;
        return ij->per_thread;
    }
    Handle *s = handle_find(ij->streams, ij->n_streams, h);
    if (!s) s = handle_add(&ij->streams, &ij->n_streams, &ij->next_stream, h);   /* made elsewhere (driver API) */
    return s->num;
}

static int event_num(Injector *ij, const void *h) {
    Handle *e = handle_find(ij->events, ij->n_events, h);
    if (!e) e = handle_add(&ij->events, &ij->n_events, &ij->next_event, h);
    return e->num;
}

static void sid_learn(Injector *ij, uint64_t sid, int num) {
    for (int i = 0; i < ij->n_sids; i++)
        if (ij->sids[i].sid == sid) {
            ij->sids[i].num = num;
            return;
        }
    ij->sids = xrealloc(ij->sids, (size_t)(ij->n_sids + 1) * sizeof *ij->sids);
    ij->sids[ij->n_sids++] = (SidMap){sid, num};
}

static const int *sid_find(const Injector *ij, uint64_t sid) {
    for (int i = 0; i < ij->n_sids; i++)
        if (ij->sids[i].sid == sid) return &ij->sids[i].num;
    return NULL;
}

static size_t corr_slot(const CorrInfo *t, size_t cap, uint32_t corr) {
    size_t i = (corr * 2654435761u) & (cap - 1);
    while (t[i].corr && t[i].corr != corr) i = (i + 1) & (cap - 1);
    return i;
}

static void corr_put(Injector *ij, uint32_t corr, int stream, int event, const char *fn) {
    if (!corr || ij->corr_n >= MAX_CORR) return;
    if ((ij->corr_n + 1) * 2 > ij->corr_cap) {
        size_t cap = ij->corr_cap ? ij->corr_cap * 2 : 1024;
        CorrInfo *t = xcalloc(cap, sizeof *t);
        for (size_t i = 0; i < ij->corr_cap; i++)
            if (ij->corr[i].corr) t[corr_slot(t, cap, ij->corr[i].corr)] = ij->corr[i];
        free(ij->corr);
        ij->corr = t;
        ij->corr_cap = cap;
    }
    size_t i = corr_slot(ij->corr, ij->corr_cap, corr);
    if (!ij->corr[i].corr) ij->corr_n++;
    ij->corr[i] = (CorrInfo){corr, stream, event, fn};
}

static const CorrInfo *corr_get(const Injector *ij, uint32_t corr) {
    if (!corr || !ij->corr_cap) return NULL;
    const CorrInfo *c = &ij->corr[corr_slot(ij->corr, ij->corr_cap, corr)];
    return c->corr ? c : NULL;
}

/* ---- call records -------------------------------------------------------------------- */

static const char *copy_kind_name(int k) {
    static const char *const names[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                                        "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"};
    return k >= 0 && k < 5 ? names[k] : "cudaMemcpyKind?";
}

static void put_dim(StrBuf *sb, dim3 d) {
    strbuf_printf(sb, "(%u,%u,%u)", d.x, d.y, d.z);
}

/* As the emulator runtime writes it (kernels/emurt/), so both traces read alike. */
static void put_stream(const Injector *ij, StrBuf *sb, int num) {
    if (num > 0 && num == ij->per_thread) strbuf_append(sb, "cudaStreamPerThread");
    else strbuf_printf(sb, "stream %d", num);
}

static void put_location(StrBuf *sb, struct cudaMemLocation loc) {
    if (loc.type == cudaMemLocationTypeDevice) strbuf_printf(sb, "device %d", loc.id);
    else strbuf_append(sb, "host");
}

typedef struct Call {
    const char *fn;                 /* as recorded */
    int stream, event;              /* -1: none */
    bool timed;                     /* its activity records want its name */
} Call;

/* A plausible launch configuration: __cudaLaunchKernel's parameters are
 * read as cudaLaunchKernel's (its own struct is not in the toolkit's meta
 * header), so they are checked before they are printed. */
static bool sane_launch(const cudaLaunchKernel_v7000_params *p) {
    unsigned long long b = (unsigned long long)p->blockDim.x * p->blockDim.y * p->blockDim.z;
    return p->gridDim.x && p->gridDim.y && p->gridDim.z && b && b <= 4096 && p->sharedMem < (1u << 30);
}

static void launch_args(Injector *ij, StrBuf *sb, Call *c, const char *symbol, dim3 grid, dim3 block, size_t shared,
                        const void *stream, bool ptsz) {
    char *name = inject_kernel_name(symbol);
    c->stream = stream_num(ij, stream, ptsz);
    strbuf_printf(sb, "%s<<<", name);
    put_dim(sb, grid);
    strbuf_append(sb, ", ");
    put_dim(sb, block);
    strbuf_printf(sb, ", %zu, ", shared);
    put_stream(ij, sb, c->stream);
    strbuf_append(sb, ">>>");
    free(name);
    c->timed = true;
}

/* Fills sb with the call's arguments as a learner reads them; under mu.
 * `sid` is the key of a stream this call created (0 = unknown). */
static void call_args(Injector *ij, uint32_t cbid, const CUpti_CallbackData *cb, int rc, uint64_t sid, StrBuf *sb,
                      Call *c) {
    const void *p = cb->functionParams;
    if (!p) return;
    bool ok = rc == 0;
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
        const cudaMalloc_v3020_params *a = p;
        strbuf_printf(sb, "&%p, %zu", ok && a->devPtr ? *a->devPtr : NULL, a->size);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020: {
        const cudaMallocHost_v3020_params *a = p;
        strbuf_printf(sb, "&%p, %zu", ok && a->ptr ? *a->ptr : NULL, a->size);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020: {
        const cudaHostAlloc_v3020_params *a = p;
        strbuf_printf(sb, "&%p, %zu, %u", ok && a->pHost ? *a->pHost : NULL, a->size, a->flags);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
        const cudaMallocManaged_v6000_params *a = p;
        strbuf_printf(sb, "&%p, %zu, %s", ok && a->devPtr ? *a->devPtr : NULL, a->size,
                      a->flags == cudaMemAttachHost ? "cudaMemAttachHost" : "cudaMemAttachGlobal");
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000: {
        const cudaHostRegister_v4000_params *a = p;
        strbuf_printf(sb, "%p, %zu bytes, flags %u", a->ptr, a->size, a->flags);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
        strbuf_printf(sb, "%p", ((const cudaFree_v3020_params *)p)->devPtr);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
        const cudaMemcpy_v3020_params *a = p;
        c->stream = stream_num(ij, NULL, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000);
        strbuf_printf(sb, "%p, %p, %zu, %s", a->dst, a->src, a->count, copy_kind_name(a->kind));
        c->timed = true;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
        const cudaMemcpyAsync_v3020_params *a = p;
        c->stream = stream_num(ij, a->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000);
        strbuf_printf(sb, "%p, %p, %zu, %s, ", a->dst, a->src, a->count, copy_kind_name(a->kind));
        put_stream(ij, sb, c->stream);
        c->timed = true;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000: {
        const cudaMemcpy2D_v3020_params *a = p;
        c->stream = stream_num(ij, NULL, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000);
        strbuf_printf(sb, "%p, pitch %zu, %p, pitch %zu, %zu x %zu, %s", a->dst, a->dpitch, a->src, a->spitch,
                      a->width, a->height, copy_kind_name(a->kind));
        c->timed = true;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000: {
        const cudaMemcpy2DAsync_v3020_params *a = p;
        c->stream = stream_num(ij, a->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000);
        strbuf_printf(sb, "%p, pitch %zu, %p, pitch %zu, %zu x %zu, %s, ", a->dst, a->dpitch, a->src, a->spitch,
                      a->width, a->height, copy_kind_name(a->kind));
        put_stream(ij, sb, c->stream);
        c->timed = true;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000: {
        const cudaMemset_v3020_params *a = p;
        c->stream = stream_num(ij, NULL, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000);
        strbuf_printf(sb, "%p, %d, %zu", a->devPtr, a->value, a->count);
        c->timed = true;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000: {
        const cudaMemsetAsync_v3020_params *a = p;
        c->stream = stream_num(ij, a->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000);
        strbuf_printf(sb, "%p, %d, %zu, ", a->devPtr, a->value, a->count);
        put_stream(ij, sb, c->stream);
        c->timed = true;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000: {
        const cudaLaunchKernel_v7000_params *a = p;
        bool ptsz = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
                    cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000;
        if (sane_launch(a))
            launch_args(ij, sb, c, cb->symbolName, a->gridDim, a->blockDim, a->sharedMem, a->stream, ptsz);
        else {
            char *name = inject_kernel_name(cb->symbolName);
            strbuf_printf(sb, "%s<<<...>>>", name);
            free(name);
            c->timed = true;
        }
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
        const cudaLaunchKernelExC_v11060_params *a = p;
        if (a->config)
            launch_args(ij, sb, c, cb->symbolName, a->config->gridDim, a->config->blockDim,
                        a->config->dynamicSmemBytes, a->config->stream,
                        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050: {
        const cudaStreamCreateWithPriority_v5050_params *a = p;   /* pStream first in all three */
        unsigned flags = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020 ? 0 : a->flags;
        int prio = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050 ? a->priority : 0;
        if (ok && a->pStream && *a->pStream) {
            Handle *s = handle_find(ij->streams, ij->n_streams, *a->pStream);
            if (!s) s = handle_add(&ij->streams, &ij->n_streams, &ij->next_stream, *a->pStream);
            s->flags = flags, s->priority = prio;
            c->stream = s->num;
            if (sid) sid_learn(ij, sid, s->num);
            strbuf_printf(sb, "&stream %d", s->num);
        } else strbuf_append(sb, "&?");
        if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000)
            strbuf_append(sb, flags & cudaStreamNonBlocking ? ", cudaStreamNonBlocking" : ", cudaStreamDefault");
        if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050)
            strbuf_printf(sb, ", %u, %d", flags, prio);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000: {
        const void *h = ((const cudaStreamSynchronize_v3020_params *)p)->stream;
        c->stream = stream_num(ij, h, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000 ||
                                          cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000);
        put_stream(ij, sb, c->stream);
        c->timed = true;   /* a synchronize names its host wait */
        if ((cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v3020 ||
             cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050) && ok) {
            Handle *s = handle_find(ij->streams, ij->n_streams, h);
            if (s) s->h = NULL;   /* a new stream may get the same handle */
        }
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000: {
        const cudaStreamWaitEvent_v3020_params *a = p;
        c->stream = stream_num(ij, a->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000);
        c->event = event_num(ij, a->event);
        put_stream(ij, sb, c->stream);
        strbuf_printf(sb, ", event %d", c->event);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020: {
        const cudaEventCreateWithFlags_v3020_params *a = p;
        if (ok && a->event && *a->event) {
            Handle *e = handle_find(ij->events, ij->n_events, *a->event);
            if (!e) e = handle_add(&ij->events, &ij->n_events, &ij->next_event, *a->event);
            c->event = e->num;
            strbuf_printf(sb, "&event %d", e->num);
        } else strbuf_append(sb, "&?");
        if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020) {
            if (a->flags & cudaEventDisableTiming) strbuf_append(sb, ", cudaEventDisableTiming");
            if (a->flags & cudaEventBlockingSync) strbuf_append(sb, ", cudaEventBlockingSync");
        }
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010: {
        const cudaEventRecord_v3020_params *a = p;
        bool ptsz = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000 ||
                    cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010;
        c->event = event_num(ij, a->event);
        c->stream = stream_num(ij, a->stream, ptsz);
        strbuf_printf(sb, "event %d, ", c->event);
        put_stream(ij, sb, c->stream);
        c->timed = true;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020: {
        const void *h = ((const cudaEventSynchronize_v3020_params *)p)->event;
        c->event = event_num(ij, h);
        strbuf_printf(sb, "event %d", c->event);
        if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020 && ok) {
            Handle *e = handle_find(ij->events, ij->n_events, h);
            if (e) e->h = NULL;
        }
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v12080: {
        const cudaEventElapsedTime_v12080_params *a = p;
        strbuf_printf(sb, "event %d, event %d", event_num(ij, a->start), event_num(ij, a->end));
        if (ok && a->ms) strbuf_printf(sb, " -> %.6g ms", (double)*a->ms);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v12020: {
        const cudaMemPrefetchAsync_v12020_params *a = p;
        c->stream = stream_num(ij, a->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v12020);
        strbuf_printf(sb, "%p, %zu, ", a->devPtr, a->count);
        put_location(sb, a->location);
        strbuf_append(sb, ", ");
        put_stream(ij, sb, c->stream);
        c->timed = true;
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemAdvise_v12020: {
        static const char *const advice[] = {"?", "cudaMemAdviseSetReadMostly", "cudaMemAdviseUnsetReadMostly",
                                             "cudaMemAdviseSetPreferredLocation",
                                             "cudaMemAdviseUnsetPreferredLocation", "cudaMemAdviseSetAccessedBy",
                                             "cudaMemAdviseUnsetAccessedBy"};
        const cudaMemAdvise_v12020_params *a = p;
        strbuf_printf(sb, "%p, %zu, %s, ", a->devPtr, a->count,
                      (unsigned)a->advice < 7 ? advice[a->advice] : "cudaMemoryAdvise?");
        put_location(sb, a->location);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020:
        strbuf_printf(sb, "%d", ((const cudaSetDevice_v3020_params *)p)->device);
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000: {
        const cudaGraphLaunch_v10000_params *a = p;
        c->stream = stream_num(ij, a->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000);
        strbuf_printf(sb, "%p, ", (const void *)a->graphExec);
        put_stream(ij, sb, c->stream);
        c->timed = true;
        break;
    }
    default:
        break;
    }
}

static bool is_launch_hook(uint32_t cbid) {
    return cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000;
}

static bool is_documented_launch(uint32_t cbid) {
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060;
}

/* An inner documented launch: its arguments for the outer record, and its
 * correlation id for the kernel's activity record. */
static void inner_launch(Injector *ij, uint32_t cbid, const CUpti_CallbackData *cb) {
    int rc = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;
    StrBuf sb;
    strbuf_init(&sb);
    Call c = {.fn = cb->functionName, .stream = -1, .event = -1};
    pthread_mutex_lock(&ij->mu);
    if (!ij->finished) {
        call_args(ij, cbid, cb, rc, 0, &sb, &c);
        corr_put(ij, cb->correlationId, c.stream, c.event, "cudaLaunchKernel");
    }
    pthread_mutex_unlock(&ij->mu);
    if (sb.len) {
        snprintf(T.inner_args, sizeof T.inner_args, "%s", sb.data);
        T.inner_stream = c.stream;
        T.inner_launch = true;
    }
    strbuf_fini(&sb);
}

static bool is_stream_create(uint32_t cbid) {
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050;
}

static void send_hello_locked(Injector *ij) {
    ij->hello_sent = true;
    if (ij->hk.hello) ij->hk.hello(ij->hk.user, ij->device);
}

void injector_api(Injector *ij, uint32_t domain, uint32_t cbid, const CUpti_CallbackData *cb, uint64_t now_ns) {
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || !cb) return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        if (T.depth++ == 0) T.enter_ns = now_ns, T.inner_launch = false;
        return;
    }
    uint64_t enter = now_ns;
    if (T.depth > 0) {
        /* an inner runtime call (the runtime calling itself) is part of the outer one */
        if (--T.depth > 0) {
            if (is_documented_launch(cbid) && cb->functionParams) inner_launch(ij, cbid, cb);
            return;
        }
        enter = T.enter_ns;
    } else T.depth = 0, T.inner_launch = false;   /* the call that loaded us: its enter came before we subscribed */
    const char *fn = cb->functionName ? cb->functionName : "?";
    if (!strncmp(fn, "__cuda", 6) && !is_launch_hook(cbid)) return;   /* nvcc's registration hooks */
    if (is_launch_hook(cbid)) fn = "cudaLaunchKernel";
    int rc = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : 0;

    /* CUPTI and the driver are asked before taking the lock (see InjectHooks). */
    uint64_t sid = 0, legacy = 0;
    bool have_sid = false, have_legacy = false;
    char device[sizeof ij->device] = "";
    pthread_mutex_lock(&ij->mu);
    bool need_hello = !ij->hello_sent, need_legacy = cb->context && ij->n_legacy < MAX_CONTEXTS;
    for (int i = 0; i < ij->n_legacy && need_legacy; i++) need_legacy = ij->legacy_known[i] != cb->context;
    pthread_mutex_unlock(&ij->mu);
    if (need_hello && ij->hk.device_name && !ij->hk.device_name(ij->hk.user, cb->context, device, sizeof device))
        device[0] = 0;
    if (need_legacy && ij->hk.stream_id) have_legacy = ij->hk.stream_id(ij->hk.user, cb->context, NULL, &legacy);
    if (is_stream_create(cbid) && rc == 0 && ij->hk.stream_id && cb->functionParams) {
        const cudaStreamCreate_v3020_params *a = cb->functionParams;
        if (a->pStream && *a->pStream) have_sid = ij->hk.stream_id(ij->hk.user, cb->context, *a->pStream, &sid);
    }

    pthread_mutex_lock(&ij->mu);
    if (ij->finished) {
        pthread_mutex_unlock(&ij->mu);
        return;
    }
    if (need_hello && !ij->hello_sent) {
        if (device[0]) snprintf(ij->device, sizeof ij->device, "%s", device);
        send_hello_locked(ij);
    }
    if (need_legacy && ij->n_legacy < MAX_CONTEXTS) {
        ij->legacy_known[ij->n_legacy++] = cb->context;   /* asked once per context, known or not */
        if (have_legacy) sid_learn(ij, legacy, 0);
    }
    if (!ij->t0) ij->t0 = enter;
    StrBuf sb;
    strbuf_init(&sb);
    Call c = {.fn = fn, .stream = -1, .event = -1};
    if (is_launch_hook(cbid) && T.inner_launch) {
        strbuf_append(&sb, T.inner_args);
        c.stream = T.inner_stream, c.timed = true;
    } else call_args(ij, cbid, cb, rc, have_sid ? sid : 0, &sb, &c);
    if (c.timed || c.event >= 0) corr_put(ij, cb->correlationId, c.stream, c.event, fn);
    const char *err = inject_error_name(rc);
    char unknown[32];
    if (!err) snprintf(unknown, sizeof unknown, "cudaError %d", rc), err = unknown;
    if (ij->hk.call)
        ij->hk.call(ij->hk.user, fn, sb.len ? sb.data : "", c.stream, rc, err,
                    enter >= ij->t0 ? (double)(enter - ij->t0) / 1e3 : 0.0);
    pthread_mutex_unlock(&ij->mu);
    strbuf_fini(&sb);
}

/* ---- activity records ------------------------------------------------------------------- */

static TimelineKind copy_kind(uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return TL_H2D;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return TL_D2H;
    default: return TL_D2D;
    }
}

/* Keeps a copy of *a (taking its name); false when full. */
static bool act_push(Injector *ij, const Act *a) {
    if (ij->n_acts >= MAX_ACTS) {
        ij->acts_dropped++;
        return false;
    }
    if (ij->n_acts == ij->cap_acts) {
        ij->cap_acts = ij->cap_acts ? ij->cap_acts * 2 : 256;
        ij->acts = xrealloc(ij->acts, ij->cap_acts * sizeof *ij->acts);
    }
    ij->acts[ij->n_acts++] = *a;
    return true;
}

static void um_counter(Injector *ij, const CUpti_ActivityUnifiedMemoryCounter3 *u) {
    ij->um_seen = true;
    switch (u->counterKind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH: {
        bool h2d = u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
        *(h2d ? &ij->um_h2d : &ij->um_d2h) += u->value;
        *(h2d ? &ij->um_h2d_n : &ij->um_d2h_n) += 1;
        if (u->start && u->end >= u->start)
            act_push(ij, &(Act){.what = ACT_UM, .sub = h2d ? TL_H2D : TL_D2H, .sid = u->streamId,   /* no context */
                                .start = u->start, .end = u->end, .bytes = u->value});
        break;
    }
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT: ij->um_cpu_faults += u->value; break;
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT: ij->um_gpu_faults += u->value; break;
    default: break;
    }
}

void injector_activity(Injector *ij, const CUpti_Activity *rec) {
    Act a = {0};
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const void *)rec;
        a = (Act){.what = ACT_KERNEL, .corr = k->correlationId, .sid = STREAM_KEY(k->contextId, k->streamId),
                  .start = k->start, .end = k->end, .grid = {k->gridX, k->gridY, k->gridZ},
                  .block = {k->blockX, k->blockY, k->blockZ},
                  .shared_dyn = k->dynamicSharedMemory, .shared_static = k->staticSharedMemory,
                  .regs = k->registersPerThread, .local = k->localMemoryPerThread};
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const void *)rec;
        TimelineKind tk = copy_kind(m->copyKind);
        uint8_t host = tk == TL_H2D ? m->srcKind : m->dstKind;
        a = (Act){.what = ACT_COPY, .sub = tk, .corr = m->correlationId, .sid = STREAM_KEY(m->contextId, m->streamId),
                  .start = m->start, .end = m->end, .bytes = m->bytes,
                  .pinned = tk != TL_D2D && host == CUPTI_ACTIVITY_MEMORY_KIND_PINNED};
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const void *)rec;
        a = (Act){.what = ACT_MEMSET, .corr = m->correlationId, .sid = STREAM_KEY(m->contextId, m->streamId),
                  .start = m->start, .end = m->end, .bytes = m->bytes};
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *s = (const void *)rec;
        if (s->type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT) return;   /* the GPU waits */
        a = (Act){.what = ACT_SYNC, .sub = (int)s->type, .corr = s->correlationId,
                  .sid = STREAM_KEY(s->contextId, s->streamId), .start = s->start, .end = s->end};
        break;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        const CUpti_ActivityCudaEvent2 *e = (const void *)rec;
        if (!e->deviceTimestamp) return;
        a = (Act){.what = ACT_EVENT, .corr = e->correlationId, .sid = STREAM_KEY(e->contextId, e->streamId),
                  .start = e->deviceTimestamp, .end = e->deviceTimestamp};
        break;
    }
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
        pthread_mutex_lock(&ij->mu);
        if (!ij->finished) um_counter(ij, (const void *)rec);
        pthread_mutex_unlock(&ij->mu);
        return;
    default:
        return;
    }
    if (!a.start || a.end < a.start) return;
    pthread_mutex_lock(&ij->mu);
    if (!ij->finished) {
        if (a.what == ACT_KERNEL) a.name = xstrdup(((const CUpti_ActivityKernel10 *)rec)->name);
        if (!act_push(ij, &a)) free(a.name);
    }
    pthread_mutex_unlock(&ij->mu);
}

/* ---- at exit ----------------------------------------------------------------------------- */

/* The stream number of a record: CUPTI's stream id if known, else the
 * call it came from (and remember that for the id), else a new number. */
static int act_stream(Injector *ij, const Act *a) {
    if (a->what == ACT_UM) {   /* CUPTI gives no context: any stream with that id, else the legacy one */
        for (int i = 0; i < ij->n_sids; i++)
            if ((uint32_t)ij->sids[i].sid == (uint32_t)a->sid) return ij->sids[i].num;
        return 0;
    }
    const int *n = sid_find(ij, a->sid);
    if (n) return *n;
    const CorrInfo *c = corr_get(ij, a->corr);
    int num = c && c->stream >= 0 ? c->stream : ++ij->next_stream;
    sid_learn(ij, a->sid, num);
    return num;
}

static int cmp_act(const void *x, const void *y) {
    const Act *a = x, *b = y;
    return (a->start > b->start) - (a->start < b->start);
}

static char *sync_name(const Injector *ij, const Act *a, int stream) {
    const CorrInfo *c = corr_get(ij, a->corr);
    switch (a->sub) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
        if (c && c->event > 0) return xasprintf("cudaEventSynchronize(event %d)", c->event);
        return xstrdup("cudaEventSynchronize");
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
        return xasprintf("cudaStreamSynchronize(stream %d)", stream);
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return xstrdup("cudaDeviceSynchronize");
    default: return xstrdup(c && c->fn ? c->fn : "synchronize");
    }
}

static void add_streams(Injector *ij, Timeline *tl) {
    for (int i = 0; i < ij->n_streams; i++) {
        const Handle *s = &ij->streams[i];
        char name[64];
        snprintf(name, sizeof name, "stream %d%s", s->num, s->flags & cudaStreamNonBlocking ? " (non-blocking)" : "");
        timeline_set_stream(tl, s->num, name, s->priority);
    }
    if (ij->per_thread) timeline_set_stream(tl, ij->per_thread, "default (per-thread)", 0);
}

static json_t *dim_json(const int d[3]) {
    return json_pack("[iii]", d[0], d[1], d[2]);
}

static json_t *kernel_json(const Act *a, const char *name, int stream) {
    json_t *o = json_object();
    json_object_set_new(o, "name", progwire_string(name));
    json_object_set_new(o, "mangled", progwire_string(a->name ? a->name : ""));
    json_object_set_new(o, "grid", dim_json(a->grid));
    json_object_set_new(o, "block", dim_json(a->block));
    json_object_set_new(o, "shared", json_integer(a->shared_dyn));
    json_object_set_new(o, "stream", json_integer(stream));
    json_object_set_new(o, "registers", json_integer(a->regs));
    json_object_set_new(o, "local_bytes", json_integer(a->local));
    json_object_set_new(o, "shared_static", json_integer(a->shared_static));
    json_object_set_new(o, "ms", json_real((double)(a->end - a->start) / 1e6));
    json_object_set_new(o, "modeled", json_false());
    return o;
}

/* Builds the timeline and the kernel records (appended to `kernels`); under mu. */
static Timeline *build(Injector *ij, json_t *kernels, long dropped) {
    Timeline *tl = timeline_new(false, "cupti", ij->device);
    if (ij->n_acts) qsort(ij->acts, ij->n_acts, sizeof *ij->acts, cmp_act);
    uint64_t base = ij->n_acts ? ij->acts[0].start : 0;
    for (size_t i = 0; i < ij->n_acts; i++)   /* learn every stream id before the host waits are named */
        if (ij->acts[i].what != ACT_SYNC) act_stream(ij, &ij->acts[i]);
    for (size_t i = 0; i < ij->n_acts; i++) {
        const Act *a = &ij->acts[i];
        const CorrInfo *c = corr_get(ij, a->corr);
        double start = (double)(a->start - base) / 1e3, dur = (double)(a->end - a->start) / 1e3;
        int stream = a->what == ACT_SYNC ? TIMELINE_HOST : act_stream(ij, a);
        TimelineEntry *e = NULL;
        switch (a->what) {
        case ACT_KERNEL: {
            char *name = inject_kernel_name(a->name);
            if ((e = timeline_add(tl, TL_KERNEL, stream, name, start, dur)))
                for (int k = 0; k < 3; k++) e->grid[k] = (unsigned)a->grid[k], e->block[k] = (unsigned)a->block[k];
            if (json_array_size(kernels) < MAX_KERNEL_RECORDS)
                json_array_append_new(kernels, kernel_json(a, name, stream));
            free(name);
            break;
        }
        case ACT_COPY:
        case ACT_MEMSET:
            e = timeline_add(tl, a->what == ACT_COPY ? (TimelineKind)a->sub : TL_MEMSET, stream,
                             c && c->fn ? c->fn : a->what == ACT_COPY ? "copy" : "memset", start, dur);
            if (e) e->bytes = (size_t)a->bytes, e->pinned = a->pinned;
            break;
        case ACT_UM:
            if ((e = timeline_add(tl, (TimelineKind)a->sub, stream, "page migration", start, dur)))
                e->bytes = (size_t)a->bytes;
            break;
        case ACT_EVENT: {
            char name[32];
            snprintf(name, sizeof name, "event %d", c && c->event > 0 ? c->event : 0);
            timeline_add(tl, TL_EVENT, stream, name, start, 0);
            break;
        }
        case ACT_SYNC: {
            /* CUPTI also reports cudaEventQuery/cudaStreamQuery here: a query never waits */
            if (c && c->fn && strstr(c->fn, "Query")) break;
            const int *sn = sid_find(ij, a->sid);
            char *name = sync_name(ij, a, c && c->stream >= 0 ? c->stream : sn ? *sn : 0);
            timeline_add(tl, TL_SYNC, TIMELINE_HOST, name, start, dur);
            free(name);
            break;
        }
        }
    }
    add_streams(ij, tl);   /* after act_stream, which may have numbered unknown streams */
    for (int n = 1; n <= ij->next_stream; n++) {
        bool named = false;
        for (int s = 0; s < tl->n_streams; s++) named |= tl->streams[s].id == n;
        if (!named) {
            char name[32];
            snprintf(name, sizeof name, "stream %d", n);
            timeline_set_stream(tl, n, name, 0);
        }
    }
    tl->dropped += dropped + ij->acts_dropped;
    return tl;
}

void injector_finish(Injector *ij, long dropped) {
    pthread_mutex_lock(&ij->mu);
    if (ij->finished) {
        pthread_mutex_unlock(&ij->mu);
        return;
    }
    if (!ij->hello_sent) send_hello_locked(ij);
    ij->finished = true;
    json_t *kernels = json_array();
    Timeline *tl = build(ij, kernels, dropped);
    json_t *um = NULL;
    if (ij->um_seen)
        um = json_pack("{sIsIsIsIsIsI}", "h2d_bytes", (json_int_t)ij->um_h2d, "d2h_bytes", (json_int_t)ij->um_d2h,
                       "h2d_migrations", (json_int_t)ij->um_h2d_n, "d2h_migrations", (json_int_t)ij->um_d2h_n,
                       "cpu_page_faults", (json_int_t)ij->um_cpu_faults, "gpu_page_faults",
                       (json_int_t)ij->um_gpu_faults);
    pthread_mutex_unlock(&ij->mu);
    if (ij->hk.send) {
        size_t i;
        json_t *k;
        json_array_foreach(kernels, i, k) ij->hk.send(ij->hk.user, "kernel", json_incref(k));
        if (um) ij->hk.send(ij->hk.user, "unified_memory", json_incref(um));
        json_t *o = json_object();
        json_object_set_new(o, "timeline", timeline_to_json(tl));
        ij->hk.send(ij->hk.user, "timeline", o);
    }
    json_decref(um);
    json_decref(kernels);
    timeline_free(&tl);
}

/* ---- life cycle ---------------------------------------------------------------------------- */

Injector *injector_new(const InjectHooks *hooks, uint64_t t0_ns) {
    Injector *ij = xcalloc(1, sizeof *ij);
    if (hooks) ij->hk = *hooks;
    ij->t0 = t0_ns;
    pthread_mutex_init(&ij->mu, NULL);
    return ij;
}

void injector_free(Injector **p) {
    Injector *ij = *p;
    if (!ij) return;
    for (size_t i = 0; i < ij->n_acts; i++) free(ij->acts[i].name);
    free(ij->acts);
    free(ij->streams);
    free(ij->events);
    free(ij->sids);
    free(ij->corr);
    pthread_mutex_destroy(&ij->mu);
    free(ij);
    *p = NULL;
}
