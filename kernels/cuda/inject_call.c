/* kernels/cuda/inject_call.c: the Injector's runtime API callbacks
 * (injector_api of kernels/cuda/inject.h) — each outermost runtime call
 * becomes a "call" record as it happens, its arguments written as a learner
 * reads them, with streams and events numbered in creation order. What a
 * call said is kept by its correlation id for its activity records
 * (inject_activity.c). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <generated_cuda_runtime_api_meta.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/cuda/inject.h"
#include "kernels/cuda/inject_trace.h"

#define PER_THREAD_HANDLE ((const void *)0x2)   /* cudaStreamPerThread */
#define LEGACY_HANDLE ((const void *)0x1)       /* cudaStreamLegacy */

static _Thread_local struct {
    int depth;
    uint64_t enter_ns;
    /* A <<<>>> launch (__cudaLaunchKernel) that calls cudaLaunchKernel inside:
     * the inner call's parameters are the documented ones, so they are used. */
    bool inner_launch;
    int inner_stream;
    char inner_args[512];
} T;

/* ---- streams, events (under mu) -------------------------------- */

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
            if (sid) injector_learn_sid(ij, sid, s->num);
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
        injector_put_corr(ij, cb->correlationId, c.stream, c.event, "cudaLaunchKernel");
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

/* A capture that failed to begin, or one that ended (successfully, or
 * invalidated: either way the stream left capture mode), is no longer open;
 * another error (no capture on that stream) leaves the count. */
static void capture_count(Injector *ij, const char *fn, int rc) {
    bool begin = !strncmp(fn, "cudaStreamBeginCapture", 22) && rc != cudaSuccess;
    bool end = !strncmp(fn, "cudaStreamEndCapture", 20) && (rc == cudaSuccess || rc == cudaErrorStreamCaptureInvalidated);
    if (!begin && !end) return;
    int n = __atomic_load_n(&ij->captures, __ATOMIC_SEQ_CST);
    while (n > 0 && !__atomic_compare_exchange_n(&ij->captures, &n, n - 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
}

bool injector_capturing(Injector *ij) { return ij && __atomic_load_n(&ij->captures, __ATOMIC_SEQ_CST) > 0; }

void injector_api(Injector *ij, uint32_t domain, uint32_t cbid, const CUpti_CallbackData *cb, uint64_t now_ns) {
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || !cb) return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        if (T.depth++ == 0) {
            T.enter_ns = now_ns, T.inner_launch = false;
            if (cb->functionName && !strncmp(cb->functionName, "cudaStreamBeginCapture", 22))
                __atomic_add_fetch(&ij->captures, 1, __ATOMIC_SEQ_CST);     /* open from its start */
        }
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
    capture_count(ij, fn, rc);

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
        injector_send_hello_locked(ij);
    }
    if (need_legacy && ij->n_legacy < MAX_CONTEXTS) {
        ij->legacy_known[ij->n_legacy++] = cb->context;   /* asked once per context, known or not */
        if (have_legacy) injector_learn_sid(ij, legacy, 0);
    }
    if (!ij->t0) ij->t0 = enter;
    StrBuf sb;
    strbuf_init(&sb);
    Call c = {.fn = fn, .stream = -1, .event = -1};
    if (is_launch_hook(cbid) && T.inner_launch) {
        strbuf_append(&sb, T.inner_args);
        c.stream = T.inner_stream, c.timed = true;
    } else call_args(ij, cbid, cb, rc, have_sid ? sid : 0, &sb, &c);
    if (c.timed || c.event >= 0) injector_put_corr(ij, cb->correlationId, c.stream, c.event, fn);
    const char *err = inject_error_name(rc);
    char unknown[32];
    if (!err) snprintf(unknown, sizeof unknown, "cudaError %d", rc), err = unknown;
    if (ij->hk.call)
        ij->hk.call(ij->hk.user, fn, sb.len ? sb.data : "", c.stream, rc, err,
                    enter >= ij->t0 ? (double)(enter - ij->t0) / 1e3 : 0.0);
    pthread_mutex_unlock(&ij->mu);
    strbuf_fini(&sb);
}
