/* kernels/emurt/emurt_capture.c: stream capture — while a stream
 * captures, its kernels, copies, memsets and host functions are recorded
 * into a graph (emurt_graph.h) instead of running; another stream joins the
 * capture by waiting on an event recorded in a capturing stream (fork and
 * join); a query or synchronize of a capturing stream, or of an event
 * recorded in it, is refused and spoils the capture, as in CUDA, and so is
 * a wait that would merge two captures (both spoiled).
 *
 * Edges are CUDA's: each capturing stream keeps the set of nodes its next
 * node depends on (the last node it captured, or what it waited for); an
 * event recorded in it takes that set, and a stream waiting on the event
 * adds the set to its own (a fork/join over two streams is a diamond, its
 * branches independent). cudaStreamEndCapture fails with
 * cudaErrorStreamCaptureUnjoined when a stream that joined has work the
 * origin stream never waited for. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_graph.h"

/* *set becomes the n nodes of `from` (duplicates dropped; add: added to what it holds). */
static void deps_put(int **set, int *nset, const int *from, int n, bool add) {
    if (!add) *nset = 0;
    *set = xrealloc(*set, sizeof **set * (size_t)(*nset + n + 1));
    for (int i = 0; i < n; i++) {
        bool have = false;
        for (int j = 0; j < *nset && !have; j++) have = (*set)[j] == from[i];
        if (!have) (*set)[(*nset)++] = from[i];
    }
}

/* The operation just captured on s depends on s's dependency set, which becomes that operation. */
static void capture_chain(RtStream *s) {
    RtGraph *g = s->capture;
    int op = g->n - 1;
    for (int i = 0; i < s->n_cap_deps; i++) rt_graph_depend(g, op, s->cap_deps[i]);
    deps_put(&s->cap_deps, &s->n_cap_deps, &op, 1, false);
}

/* ---- capture --------------------------------------------------------------------------------------- */
cudaError_t rt_capture_launch(RtStream *s, RtFunc *f, dim3 grid, dim3 block, const unsigned char *params,
                              size_t psize, size_t shared) {
    GraphOp *op = rt_graph_add(s->capture, OP_KERNEL);
    capture_chain(s);
    op->f = f;
    op->grid = grid;
    op->block = block;
    op->params = xmalloc(psize + 1);
    memcpy(op->params, params, psize);
    op->psize = psize;
    op->shared = shared;
    return cudaSuccess;
}

cudaError_t rt_capture_copy(RtStream *s, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
    GraphOp *op = rt_graph_add(s->capture, OP_COPY);
    capture_chain(s);
    op->dst = dst;
    op->src = src;
    op->n = n;
    op->copy_kind = kind;
    return cudaSuccess;
}

cudaError_t rt_capture_memset(RtStream *s, void *dst, int value, size_t n) {
    GraphOp *op = rt_graph_add(s->capture, OP_MEMSET);
    capture_chain(s);
    op->dst = dst;
    op->value = value;
    op->n = op->width = op->pitch = n;
    op->height = 1;
    return cudaSuccess;
}

cudaError_t rt_capture_host(RtStream *s, cudaHostFn_t fn, void *data) {
    GraphOp *op = rt_graph_add(s->capture, OP_HOST);
    capture_chain(s);
    op->fn = fn;
    op->data = data;
    return cudaSuccess;
}

cudaError_t rt_capture_copy3d(RtStream *s, const struct cudaMemcpy3DParms *p) {
    GraphOp *op = rt_graph_add(s->capture, OP_COPY3D);
    capture_chain(s);
    op->p3d = *p;
    return cudaSuccess;
}

cudaError_t rt_capture_memset2d(RtStream *s, void *dst, size_t pitch, int value, size_t width, size_t height) {
    GraphOp *op = rt_graph_add(s->capture, OP_MEMSET);
    capture_chain(s);
    op->dst = dst;
    op->value = value;
    op->n = op->width = width;
    op->pitch = pitch;
    op->height = height;
    return cudaSuccess;
}

static cudaError_t begin_capture(cudaStream_t st, enum cudaStreamCaptureMode mode, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !s->id ? cudaErrorStreamCaptureUnsupported
                     : s->capture ? cudaErrorIllegalState : cudaSuccess;
    if (!rc) {
        s->capture = rt_graph_new();
        s->n_cap_deps = 0;
        s->capture_mode = mode;
        s->capture_origin = true;
        s->capture_thread = pthread_self();
    }
    return rt_leave("cudaStreamBeginCapture", rc, s ? s->id : 0, "%s, mode %d", s ? rt_stream_name(s) : "?", (int)mode);
}

cudaError_t cudaStreamBeginCapture(cudaStream_t st, enum cudaStreamCaptureMode mode) {
    return begin_capture(st, mode, false);
}
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t st, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t st, enum cudaStreamCaptureMode mode) {
    return begin_capture(st, mode, true);
}

/* Whether every stream that joined s's capture was joined back: each node
 * its next work would depend on is one the origin s depends on already. */
static bool capture_joined(const RtStream *s) {
    const RtGraph *g = s->capture;
    bool *before = xcalloc((size_t)g->n + 1, sizeof *before);
    int *stack = xmalloc(sizeof *stack * ((size_t)g->n + 1)), top = 0;
    for (int i = 0; i < s->n_cap_deps; i++) {
        before[s->cap_deps[i]] = true;
        stack[top++] = s->cap_deps[i];
    }
    while (top > 0) {
        const GraphOp *op = &g->ops[stack[--top]];
        for (int d = 0; d < op->ndeps; d++)
            if (!before[op->deps[d]]) {
                before[op->deps[d]] = true;
                stack[top++] = op->deps[d];
            }
    }
    bool ok = true;
    for (int i = 0; i < g_rt.n_streams && ok; i++) {
        const RtStream *o = g_rt.streams[i];
        if (o == s || o->capture != g) continue;
        for (int k = 0; k < o->n_cap_deps && ok; k++) ok = before[o->cap_deps[k]];
    }
    free(before);
    free(stack);
    return ok;
}

static cudaError_t end_capture(cudaStream_t st, cudaGraph_t *out, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !out ? cudaErrorInvalidValue
                     : !s->capture ? cudaErrorIllegalState : cudaSuccess;
    int n = 0;
    if (!rc && !s->capture_origin) rc = cudaErrorStreamCaptureUnmatched; /* it joined another's capture */
    if (!rc) {
        RtGraph *g = s->capture;
        rc = s->capture_error;
        if (!rc && !capture_joined(s)) rc = cudaErrorStreamCaptureUnjoined;
        /* the streams that joined through an event leave the capture too */
        for (int i = 0; i < g_rt.n_streams; i++)
            if (g_rt.streams[i]->capture == g) {
                g_rt.streams[i]->capture = NULL;
                g_rt.streams[i]->capture_error = cudaSuccess;
                g_rt.streams[i]->n_cap_deps = 0;
            }
        /* its events stand for nothing once it ends (the work never ran) */
        for (int i = 0; i < g_rt.n_events; i++)
            if (g_rt.events[i]->capture == g) {
                g_rt.events[i]->capture = NULL;
                g_rt.events[i]->n_cap_deps = 0;
            }
        s->capture = NULL;
        s->capture_error = cudaSuccess;
        s->capture_origin = false;
        if (rc) {
            *out = NULL;
            rt_graph_drop(g);
        } else {
            n = g->n;
            *out = (cudaGraph_t)g;
        }
    }
    return rt_leave("cudaStreamEndCapture", rc, s ? s->id : 0, "%s, &graph (%d operations)",
                    s ? rt_stream_name(s) : "?", n);
}

cudaError_t cudaStreamEndCapture(cudaStream_t st, cudaGraph_t *out) { return end_capture(st, out, false); }
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t st, cudaGraph_t *out);
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t st, cudaGraph_t *out) { return end_capture(st, out, true); }

static cudaError_t is_capturing(cudaStream_t st, enum cudaStreamCaptureStatus *status, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !status ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) *status = s->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return rt_leave("cudaStreamIsCapturing", rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamIsCapturing(cudaStream_t st, enum cudaStreamCaptureStatus *status) {
    return is_capturing(st, status, false);
}
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t st, enum cudaStreamCaptureStatus *status);
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t st, enum cudaStreamCaptureStatus *status) {
    return is_capturing(st, status, true);
}

static cudaError_t capture_info(cudaStream_t st, enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                cudaGraph_t *graph, const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                size_t *ndeps, bool ptsz) {
    rt_enter_pure();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !status ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        *status = s->capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
        if (s->capture && s->capture_error) *status = cudaStreamCaptureStatusInvalidated;
        if (id) *id = (unsigned long long)(uintptr_t)s->capture;
        if (graph) *graph = (cudaGraph_t)s->capture;
        /* the nodes the stream's next captured node will depend on */
        static __thread cudaGraphNode_t *set;
        int n = s->capture ? s->n_cap_deps : 0;
        set = xrealloc(set, sizeof *set * (size_t)(n + 1));
        for (int i = 0; i < n; i++) set[i] = (cudaGraphNode_t)s->capture->ops[s->cap_deps[i]].node;
        if (deps) *deps = n ? set : NULL;
        if (edges) *edges = NULL;
        if (ndeps) *ndeps = (size_t)n;
    }
    return rt_leave("cudaStreamGetCaptureInfo", rc, s ? s->id : 0, "%s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t st, enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                     cudaGraph_t *graph, const cudaGraphNode_t **deps, const cudaGraphEdgeData **edges,
                                     size_t *ndeps) {
    return capture_info(st, status, id, graph, deps, edges, ndeps, false);
}

cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t st, enum cudaStreamCaptureStatus *status,
                                          unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                          const cudaGraphEdgeData **edges, size_t *ndeps);
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t st, enum cudaStreamCaptureStatus *status,
                                          unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                          const cudaGraphEdgeData **edges, size_t *ndeps) {
    return capture_info(st, status, id, graph, deps, edges, ndeps, true);
}

/* ---- capture across streams (fork/join through events) --------------------------------------------------- */
/* An event record or wait node (cudaEventRecordExternal, cudaEventWaitExternal) captured on s. */
static void capture_event_node(RtStream *s, RtEvent *e, bool wait) {
    GraphOp *op = rt_graph_add(s->capture, wait ? OP_EVENT_WAIT : OP_EVENT_RECORD);
    op->event = (cudaEvent_t)e;
    capture_chain(s);
}

void rt_capture_event_record(RtStream *s, RtEvent *e, unsigned flags) {
    if (flags & cudaEventRecordExternal) capture_event_node(s, e, false);
    e->capture = s->capture;
    deps_put(&e->cap_deps, &e->n_cap_deps, s->cap_deps, s->n_cap_deps, false);
}

/* Every stream in g's capture (the origin and those joined through events) is spoiled. */
static void invalidate_graph(const RtGraph *g) {
    for (int i = 0; i < g_rt.n_streams; i++)
        if (g_rt.streams[i]->capture == g) g_rt.streams[i]->capture_error = cudaErrorStreamCaptureInvalidated;
}

cudaError_t rt_capture_wait_event(RtStream *s, RtEvent *e, unsigned flags, bool *captured) {
    *captured = false;
    bool inside = false; /* recorded in a capture still going on */
    for (int i = 0; e->capture && i < g_rt.n_streams && !inside; i++)
        inside = g_rt.streams[i]->capture == e->capture;
    if (s->capture && (flags & cudaEventWaitExternal)) {
        capture_event_node(s, e, true);
        *captured = true;
        return cudaSuccess;
    }
    if (!inside) return cudaSuccess; /* an ordinary wait (outside any capture) */
    if (s->capture && s->capture != e->capture) {
        /* a stream in one capture (its origin or joined) waiting on an event of
           another capture still going on would merge the two: invalid ("would have
           resulted in a merge of two independent capture sequences"), and both
           captures are invalidated (H200, session 9). cudaErrorStreamCaptureIsolation
           is CUDA's for a dependency on uncaptured work, which a wait on an event
           recorded outside any capture is not here (an ordinary wait, above). */
        invalidate_graph(s->capture);
        invalidate_graph(e->capture);
        return cudaErrorStreamCaptureMerge;
    }
    if (!s->capture) {
        /* s joins the capture: its work depends on what the event stood for */
        s->capture = e->capture;
        s->capture_error = cudaSuccess;
        s->capture_origin = false;
        s->n_cap_deps = 0;
    }
    deps_put(&s->cap_deps, &s->n_cap_deps, e->cap_deps, e->n_cap_deps, true);
    *captured = true;
    return cudaSuccess;
}

void rt_capture_invalidate(RtStream *s) {
    if (s->capture) s->capture_error = cudaErrorStreamCaptureInvalidated;
}

cudaError_t rt_capture_event_use(const RtEvent *e) {
    for (int i = 0; e->capture && i < g_rt.n_streams; i++)
        if (g_rt.streams[i]->capture == e->capture) {
            invalidate_graph(e->capture);
            return cudaErrorCapturedEvent;
        }
    return cudaSuccess;
}

cudaError_t rt_capture_unsafe_call(void) {
    int mode = rt_thread_capture_mode();
    if (mode == cudaStreamCaptureModeRelaxed) return cudaSuccess;
    cudaError_t rc = cudaSuccess;
    for (int i = 0; i < g_rt.n_streams; i++) {
        RtStream *o = g_rt.streams[i];
        if (!o->capture || !o->capture_origin) continue;
        bool local = pthread_equal(o->capture_thread, pthread_self());
        /* this thread's own capture forbids it unless that capture began relaxed;
           another thread's forbids it only when both are global */
        bool forbids = local ? o->capture_mode != cudaStreamCaptureModeRelaxed
                             : mode == cudaStreamCaptureModeGlobal && o->capture_mode == cudaStreamCaptureModeGlobal;
        if (!forbids) continue;
        invalidate_graph(o->capture);
        rc = cudaErrorStreamCaptureUnsupported;
    }
    return rc;
}

cudaError_t rt_capture_legacy_use(int dev) {
    cudaError_t rc = cudaSuccess;
    for (int i = 0; i < g_rt.n_streams; i++) {
        RtStream *o = g_rt.streams[i];
        if (!o->capture || o->dev != dev || (o->flags & cudaStreamNonBlocking) || o->per_thread) continue;
        invalidate_graph(o->capture);
        rc = cudaErrorStreamCaptureImplicit;
    }
    return rc;
}

/* The nodes the next operation captured on s depends on: replaced by, or
 * added to, `deps` (nodes of s's capture). */
static cudaError_t update_deps(cudaStream_t st, cudaGraphNode_t *deps, const cudaGraphEdgeData *edges, size_t n,
                               unsigned flags, bool ptsz) {
    rt_enter_pure();
    RtStream *s = rt_stream(st, ptsz);
    static const cudaGraphEdgeData zero;
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !s->capture ? cudaErrorIllegalState
                     : flags > cudaStreamSetCaptureDependencies || (n && !deps) ? cudaErrorInvalidValue : cudaSuccess;
    for (size_t i = 0; !rc && edges && i < n; i++)
        if (memcmp(&edges[i], &zero, sizeof zero)) rc = cudaErrorInvalidValue;
    int *idx = xmalloc(sizeof *idx * (n + 1));
    for (size_t i = 0; !rc && i < n; i++) {
        RtNode *nd = rt_node_find(deps[i]);
        if (!nd || nd->g != s->capture) rc = cudaErrorInvalidValue;
        else idx[i] = nd->index;
    }
    if (!rc) deps_put(&s->cap_deps, &s->n_cap_deps, idx, (int)n, flags == cudaStreamAddCaptureDependencies);
    free(idx);
    return rt_leave("cudaStreamUpdateCaptureDependencies", rc, s ? s->id : 0, "%s, deps, %zu, %u",
                    s ? rt_stream_name(s) : "?", n, flags);
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t st, cudaGraphNode_t *deps, const cudaGraphEdgeData *edges,
                                                size_t n, unsigned int flags) {
    return update_deps(st, deps, edges, n, flags, false);
}
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t st, cudaGraphNode_t *deps,
                                                     const cudaGraphEdgeData *edges, size_t n, unsigned int flags);
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t st, cudaGraphNode_t *deps,
                                                     const cudaGraphEdgeData *edges, size_t n, unsigned int flags) {
    return update_deps(st, deps, edges, n, flags, true);
}
