/* kernels/emurt/emurt_capture.c: stream capture — while a stream
 * captures, its kernels, copies, memsets and host functions are recorded
 * into a graph (emurt_graph.h) instead of running; another stream joins the
 * capture by waiting on an event recorded in a capturing stream (fork and
 * join); a query or synchronize of a capturing stream is refused and spoils
 * the capture, as in CUDA. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_graph.h"

/* A captured operation depends on the one captured before it (a chain:
 * work forked into other streams through events is chained in issue order
 * too, one valid order of CUDA's diamond). */
static void capture_chain(RtGraph *g) {
    if (g->n > 1) rt_graph_depend(g, g->n - 1, g->n - 2);
}

/* ---- capture --------------------------------------------------------------------------------------- */
cudaError_t rt_capture_launch(RtStream *s, RtFunc *f, dim3 grid, dim3 block, const unsigned char *params,
                              size_t psize, size_t shared) {
    GraphOp *op = rt_graph_add(s->capture, OP_KERNEL);
    capture_chain(s->capture);
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
    capture_chain(s->capture);
    op->dst = dst;
    op->src = src;
    op->n = n;
    op->copy_kind = kind;
    return cudaSuccess;
}

cudaError_t rt_capture_memset(RtStream *s, void *dst, int value, size_t n) {
    GraphOp *op = rt_graph_add(s->capture, OP_MEMSET);
    capture_chain(s->capture);
    op->dst = dst;
    op->value = value;
    op->n = op->width = op->pitch = n;
    op->height = 1;
    return cudaSuccess;
}

cudaError_t rt_capture_host(RtStream *s, cudaHostFn_t fn, void *data) {
    GraphOp *op = rt_graph_add(s->capture, OP_HOST);
    capture_chain(s->capture);
    op->fn = fn;
    op->data = data;
    return cudaSuccess;
}

cudaError_t rt_capture_copy3d(RtStream *s, const struct cudaMemcpy3DParms *p) {
    GraphOp *op = rt_graph_add(s->capture, OP_COPY3D);
    capture_chain(s->capture);
    op->p3d = *p;
    return cudaSuccess;
}

cudaError_t rt_capture_memset2d(RtStream *s, void *dst, size_t pitch, int value, size_t width, size_t height) {
    GraphOp *op = rt_graph_add(s->capture, OP_MEMSET);
    capture_chain(s->capture);
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

static cudaError_t end_capture(cudaStream_t st, cudaGraph_t *out, bool ptsz) {
    rt_enter();
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !s ? cudaErrorInvalidResourceHandle : !out ? cudaErrorInvalidValue
                     : !s->capture ? cudaErrorIllegalState : cudaSuccess;
    int n = 0;
    if (!rc) {
        RtGraph *g = s->capture;
        rc = s->capture_error;
        /* the streams that joined through an event leave the capture too */
        for (int i = 0; i < g_rt.n_streams; i++)
            if (g_rt.streams[i]->capture == g) {
                g_rt.streams[i]->capture = NULL;
                g_rt.streams[i]->capture_error = cudaSuccess;
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
        /* the last captured node is what the next one depends on */
        static __thread cudaGraphNode_t last;
        last = s->capture && s->capture->n ? (cudaGraphNode_t)s->capture->ops[s->capture->n - 1].node : NULL;
        if (deps) *deps = last ? &last : NULL;
        if (edges) *edges = NULL;
        if (ndeps) *ndeps = last ? 1 : 0;
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
void rt_capture_event_record(RtStream *s, RtEvent *e) { e->capture = s->capture; }

bool rt_capture_wait_event(RtStream *s, RtEvent *e) {
    if (!e->capture || !rt_graph_find(e->capture)) return false;
    if (!s->capture) s->capture = e->capture;
    return true;
}

void rt_capture_invalidate(RtStream *s) {
    if (s->capture) s->capture_error = cudaErrorStreamCaptureInvalidated;
}

/* Every stream in g's capture (the origin and those joined through events) is spoiled. */
static void invalidate_graph(const RtGraph *g) {
    for (int i = 0; i < g_rt.n_streams; i++)
        if (g_rt.streams[i]->capture == g) g_rt.streams[i]->capture_error = cudaErrorStreamCaptureInvalidated;
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
