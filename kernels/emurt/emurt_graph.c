/* kernels/emurt/emurt_graph.c: CUDA graphs, the simple way — a graph is
 * the list of its operations (kernel with its parameter buffer as it was
 * when added, 1D or 3D copy, memset, host function, empty node, a child
 * graph of its own, event record and wait) and their
 * dependencies, built by hand (cudaGraphCreate, cudaGraphAdd*Node,
 * cudaGraphAddDependencies, cudaGraphClone, cudaGraphDestroyNode) or by stream capture
 * (emurt_capture.c); a launch of the instantiated graph replays them one at
 * a time on the launch's stream, in an order that honours every dependency
 * (the order they were added where it does). On the modeled timeline a
 * launch is one host cost for the whole graph and its kernel nodes follow
 * each other with a smaller gap than separate launches
 * (emu_model_graph_begin, kernels/costmodel.h). cudaGraphExecUpdate takes
 * a graph of the same shape (node count, kinds, order) and copies its
 * nodes' parameters. */
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "kernels/emurt/emurt_graph.h"
#include "kernels/progwire.h"

static RtNode **g_nodes;
static int g_n_nodes;
static uint64_t g_node_ids;
static RtGraph **g_graphs;
static int g_n_graphs;
static RtGraphExec **g_execs;
static int g_n_execs;

RtGraph *rt_graph_new(void) {
    RtGraph *g = xcalloc(1, sizeof *g);
    g->magic = GRAPH_MAGIC;
    g_graphs = xrealloc(g_graphs, sizeof *g_graphs * (size_t)(g_n_graphs + 1));
    g_graphs[g_n_graphs++] = g;
    return g;
}

RtGraph *rt_graph_find(const void *p) {
    for (int i = 0; p && i < g_n_graphs; i++)
        if ((const void *)g_graphs[i] == p) return g_graphs[i];
    return NULL;
}

GraphOp *rt_graph_add(RtGraph *g, OpKind kind) {
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 8;
        g->ops = xrealloc(g->ops, sizeof *g->ops * (size_t)g->cap);
    }
    GraphOp *op = &g->ops[g->n++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    RtNode *nd = xcalloc(1, sizeof *nd);
    nd->magic = NODE_MAGIC;
    nd->g = g;
    nd->index = g->n - 1;
    nd->id = ++g_node_ids;
    g_nodes = xrealloc(g_nodes, sizeof *g_nodes * (size_t)(g_n_nodes + 1));
    g_nodes[g_n_nodes++] = nd;
    op->node = nd;
    return op;
}

void rt_graph_depend(RtGraph *g, int op, int on) {
    GraphOp *o = &g->ops[op];
    o->deps = xrealloc(o->deps, sizeof *o->deps * (size_t)(o->ndeps + 1));
    o->deps[o->ndeps++] = on;
}

RtNode *rt_node_find(const void *p) {
    for (int i = 0; p && i < g_n_nodes; i++)
        if ((const void *)g_nodes[i] == p) return g_nodes[i];
    return NULL;
}

static void graph_free(RtGraph *g);

/* Frees what an operation owns: its parameters, dependencies, child graph
 * (the program's handle to it, from cudaGraphChildGraphNodeGetGraph, too). */
static void op_fini(GraphOp *op) {
    free(op->params);
    free(op->deps);
    if (op->child && rt_graph_find(op->child)) rt_graph_drop(op->child);
    else if (op->child) graph_free(op->child);
    op->params = NULL;
    op->deps = NULL;
    op->child = NULL;
}

static void graph_free(RtGraph *g) {
    for (int i = 0; i < g_n_nodes; i++)
        if (g_nodes[i]->g == g) {
            free(g_nodes[i]);
            g_nodes[i--] = g_nodes[--g_n_nodes];
        }
    for (int i = 0; i < g->n; i++) op_fini(&g->ops[i]);
    free(g->ops);
    g->magic = 0;
    free(g);
}

/* A deep copy of src the program cannot see (no handles; child graphs copied too). */
static RtGraph *graph_copy(const RtGraph *src) {
    RtGraph *g = xcalloc(1, sizeof *g);
    g->magic = GRAPH_MAGIC;
    g->n = g->cap = src->n;
    g->ops = xcalloc((size_t)(src->n ? src->n : 1), sizeof *g->ops);
    for (int i = 0; i < src->n; i++) {
        g->ops[i] = src->ops[i];
        g->ops[i].node = NULL;
        if (src->ops[i].params) {
            g->ops[i].params = xmalloc(src->ops[i].psize + 1);
            memcpy(g->ops[i].params, src->ops[i].params, src->ops[i].psize);
        }
        if (src->ops[i].deps) {
            g->ops[i].deps = xmalloc(sizeof *g->ops[i].deps * (size_t)src->ops[i].ndeps);
            memcpy(g->ops[i].deps, src->ops[i].deps, sizeof *g->ops[i].deps * (size_t)src->ops[i].ndeps);
        }
        if (src->ops[i].child) g->ops[i].child = graph_copy(src->ops[i].child);
    }
    return g;
}

/* A copy of src the program holds (cudaGraphClone, a child graph node's
 * graph): registered, with node handles, its child graphs such copies too. */
static RtGraph *graph_clone(const RtGraph *src) {
    RtGraph *c = rt_graph_new();
    RtGraph *copy = graph_copy(src);
    for (int i = 0; i < copy->n; i++) {
        GraphOp *op = rt_graph_add(c, copy->ops[i].kind);
        RtNode *nd = op->node;
        *op = copy->ops[i];
        op->node = nd;
        /* found by identity, not position: either graph may lose or gain nodes later */
        nd->cloned_id = src->ops[i].node ? src->ops[i].node->id : 0;
        if (op->child) {
            graph_free(op->child);
            op->child = graph_clone(src->ops[i].child);
        }
    }
    free(copy->ops);
    free(copy);
    c->cloned_from = src;
    return c;
}

void rt_graph_drop(RtGraph *g) {
    for (int i = 0; i < g_n_graphs; i++)
        if (g_graphs[i] == g) {
            g_graphs[i] = g_graphs[--g_n_graphs];
            break;
        }
    graph_free(g);
}

/* Whether every one of deps is a node of g, none twice (CUDA's rule). */
static cudaError_t deps_check(const RtGraph *g, const cudaGraphNode_t *deps, size_t ndeps) {
    if (ndeps && !deps) return cudaErrorInvalidValue;
    for (size_t i = 0; i < ndeps; i++) {
        RtNode *nd = rt_node_find(deps[i]);
        if (!nd || nd->g != g) return cudaErrorInvalidValue;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i]) return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

static void deps_add(RtGraph *g, int op, const cudaGraphNode_t *deps, size_t ndeps) {
    for (size_t i = 0; i < ndeps; i++) rt_graph_depend(g, op, rt_node_find(deps[i])->index);
}

/* ---- graphs by hand ------------------------------------------------------------------------------------ */
cudaError_t cudaGraphCreate(cudaGraph_t *out, unsigned int flags) {
    rt_enter();
    cudaError_t rc = !out || flags ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) *out = (cudaGraph_t)rt_graph_new();
    return rt_leave("cudaGraphCreate", rc, 0, "&graph, %u", flags);
}

/* A kernel node's operation from cudaKernelNodeParams: the arguments are
 * copied into one parameter buffer now (as CUDA reads them when the node is
 * set). */
static cudaError_t kernel_params(const struct cudaKernelNodeParams *p, RtFunc **fout, unsigned char **params,
                                 size_t *psize) {
    RtFunc *f = p ? rt_func_find(p->func) : NULL;
    *fout = f;
    if (!p) return cudaErrorInvalidValue;
    if (!f) return cudaErrorInvalidDeviceFunction;
    cudaError_t rc;
    BackendModule *bm = rt_module_get(f->mod, rt_current_device(), &rc);
    if (!bm) return rc;
    EmuKernelInfo ki;
    if (!emu_module_kernel_info(bm, f->name, &ki)) return cudaErrorInvalidDeviceFunction;
    if (ki.n_params && !p->kernelParams) return cudaErrorInvalidValue;
    *params = xcalloc(ki.param_size + 1, 1);
    for (int i = 0; i < ki.n_params; i++) memcpy(*params + ki.param_offsets[i], p->kernelParams[i], ki.param_sizes[i]);
    *psize = ki.param_size;
    return cudaSuccess;
}

static void kernel_op_set(GraphOp *op, RtFunc *f, const struct cudaKernelNodeParams *p, unsigned char *params,
                          size_t psize) {
    free(op->params);
    op->params = params;
    op->psize = psize;
    op->f = f;
    op->grid = p->gridDim;
    op->block = p->blockDim;
    op->shared = p->sharedMemBytes;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps,
                                   const struct cudaKernelNodeParams *p) {
    rt_enter();
    RtGraph *g = rt_graph_find(graph);
    RtFunc *f = NULL;
    unsigned char *params = NULL;
    size_t psize = 0;
    cudaError_t rc = !g || !node ? cudaErrorInvalidValue : deps_check(g, deps, ndeps);
    if (!rc) rc = kernel_params(p, &f, &params, &psize);
    if (!rc) {
        GraphOp *op = rt_graph_add(g, OP_KERNEL);
        deps_add(g, g->n - 1, deps, ndeps);
        op = &g->ops[g->n - 1];
        kernel_op_set(op, f, p, params, psize);
        *node = (cudaGraphNode_t)op->node;
    }
    return rt_leave("cudaGraphAddKernelNode", rc, 0, "&node, graph, deps, %zu, %s", ndeps, f ? f->pretty : "?");
}

static GraphOp *add_node(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps,
                         OpKind kind, cudaError_t *rc) {
    RtGraph *g = rt_graph_find(graph);
    *rc = !g || !node ? cudaErrorInvalidValue : deps_check(g, deps, ndeps);
    if (*rc) return NULL;
    GraphOp *op = rt_graph_add(g, kind);
    deps_add(g, g->n - 1, deps, ndeps);
    *node = (cudaGraphNode_t)op->node;
    return op;
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps,
                                   const struct cudaMemsetParams *p) {
    rt_enter();
    cudaError_t rc = !p || !p->width || !p->height || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
                         ? cudaErrorInvalidValue : cudaSuccess;
    GraphOp *op = rc ? NULL : add_node(node, graph, deps, ndeps, OP_MEMSET, &rc);
    if (op) {
        op->dst = p->dst;
        op->value = (int)p->value;
        op->width = p->width * p->elementSize;
        op->height = p->height;
        op->pitch = p->height > 1 ? p->pitch : op->width;
        op->n = op->width;
        op->data = (void *)(uintptr_t)p->elementSize;
    }
    return rt_leave("cudaGraphAddMemsetNode", rc, 0, "&node, graph, deps, %zu, %s", ndeps, p ? rt_ptr(p->dst) : "?");
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                     size_t ndeps, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    rt_enter();
    cudaError_t rc;
    GraphOp *op = add_node(node, graph, deps, ndeps, OP_COPY, &rc);
    if (op) {
        op->dst = dst;
        op->src = src;
        op->n = count;
        op->copy_kind = kind;
    }
    return rt_leave("cudaGraphAddMemcpyNode1D", rc, 0, "&node, graph, deps, %zu, %s, %s, %zu, %s", ndeps, rt_ptr(dst),
                    rt_ptr(src), count, rt_kind_name(kind));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t ndeps,
                                 const struct cudaHostNodeParams *p) {
    rt_enter();
    cudaError_t rc = !p || !p->fn ? cudaErrorInvalidValue : cudaSuccess;
    GraphOp *op = rc ? NULL : add_node(node, graph, deps, ndeps, OP_HOST, &rc);
    if (op) {
        op->fn = p->fn;
        op->data = p->userData;
    }
    return rt_leave("cudaGraphAddHostNode", rc, 0, "&node, graph, deps, %zu, fn", ndeps);
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                  size_t ndeps) {
    rt_enter();
    cudaError_t rc;
    add_node(node, graph, deps, ndeps, OP_EMPTY, &rc);
    return rt_leave("cudaGraphAddEmptyNode", rc, 0, "&node, graph, deps, %zu", ndeps);
}

/* A 3D copy node (pitched pointers; CUDA arrays are not implemented). */
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                   size_t ndeps, const struct cudaMemcpy3DParms *p) {
    if (p && (p->srcArray || p->dstArray)) return (cudaError_t)emurt_unimplemented("cudaGraphAddMemcpyNode of a CUDA array");
    rt_enter();
    cudaError_t rc = !p || (unsigned)p->kind > cudaMemcpyDefault ? cudaErrorInvalidValue : cudaSuccess;
    GraphOp *op = rc ? NULL : add_node(node, graph, deps, ndeps, OP_COPY3D, &rc);
    if (op) op->p3d = *p;
    return rt_leave("cudaGraphAddMemcpyNode", rc, 0, "&node, graph, deps, %zu, {%s -> %s, extent {%zu, %zu, %zu}, %s}",
                    ndeps, p ? rt_ptr(p->srcPtr.ptr) : "?", p ? rt_ptr(p->dstPtr.ptr) : "?", p ? p->extent.width : 0,
                    p ? p->extent.height : 0, p ? p->extent.depth : 0, p ? rt_kind_name(p->kind) : "?");
}

/* A child graph node: the node runs a copy of `child` made now (later edits
 * of `child` do not reach it), as one node, with the child's own edges. */
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                       size_t ndeps, cudaGraph_t child) {
    rt_enter();
    RtGraph *c = rt_graph_find(child);
    cudaError_t rc = !c || c == (RtGraph *)graph ? cudaErrorInvalidValue : cudaSuccess;
    GraphOp *op = rc ? NULL : add_node(node, graph, deps, ndeps, OP_CHILD, &rc);
    if (op) op->child = graph_clone(c);
    return rt_leave("cudaGraphAddChildGraphNode", rc, 0, "&node, graph, deps, %zu, child (%d operations)", ndeps,
                    c ? c->n : 0);
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *out) {
    rt_enter_pure();
    RtNode *nd = rt_node_find(node);
    GraphOp *op = nd ? &nd->g->ops[nd->index] : NULL;
    cudaError_t rc = !op || !out || op->kind != OP_CHILD ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) *out = (cudaGraph_t)op->child;
    return rt_leave("cudaGraphChildGraphNodeGetGraph", rc, 0, "node, &graph");
}

static cudaError_t add_event_node(const char *fn, cudaGraphNode_t *node, cudaGraph_t graph,
                                  const cudaGraphNode_t *deps, size_t ndeps, cudaEvent_t event, OpKind kind) {
    rt_enter();
    cudaError_t rc = rt_event_find(event) ? cudaSuccess : cudaErrorInvalidResourceHandle;
    GraphOp *op = rc ? NULL : add_node(node, graph, deps, ndeps, kind, &rc);
    if (op) op->event = event;
    return rt_leave(fn, rc, 0, "&node, graph, deps, %zu, event %d", ndeps,
                    rt_event_find(event) ? rt_event_find(event)->id : 0);
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                        size_t ndeps, cudaEvent_t event) {
    return add_event_node("cudaGraphAddEventRecordNode", node, graph, deps, ndeps, event, OP_EVENT_RECORD);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                      size_t ndeps, cudaEvent_t event) {
    return add_event_node("cudaGraphAddEventWaitNode", node, graph, deps, ndeps, event, OP_EVENT_WAIT);
}

static cudaError_t event_node(const char *fn, cudaGraphNode_t node, OpKind kind, cudaEvent_t *get, cudaEvent_t set) {
    rt_enter_pure();
    RtNode *nd = rt_node_find(node);
    GraphOp *op = nd && nd->g->ops[nd->index].kind == kind ? &nd->g->ops[nd->index] : NULL;
    cudaError_t rc = !op || (!get && !set) ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc && set && !rt_event_find(set)) rc = cudaErrorInvalidResourceHandle;
    if (!rc && get) *get = op->event;
    if (!rc && set) op->event = set;
    return rt_leave(fn, rc, 0, "node, %s", get ? "&event" : "event");
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *out) {
    return event_node("cudaGraphEventRecordNodeGetEvent", node, OP_EVENT_RECORD, out, NULL);
}
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    return event_node("cudaGraphEventRecordNodeSetEvent", node, OP_EVENT_RECORD, NULL, event);
}
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *out) {
    return event_node("cudaGraphEventWaitNodeGetEvent", node, OP_EVENT_WAIT, out, NULL);
}
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    return event_node("cudaGraphEventWaitNodeSetEvent", node, OP_EVENT_WAIT, NULL, event);
}

/* Removes the node and every edge to or from it; the graph's other node
 * handles stay valid. */
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
    rt_enter();
    RtNode *nd = rt_node_find(node);
    cudaError_t rc = nd ? cudaSuccess : cudaErrorInvalidValue;
    /* not in a graph a capture is still building (its streams point at nodes by index) */
    for (int i = 0; !rc && i < g_rt.n_streams; i++)
        if (g_rt.streams[i]->capture == nd->g) rc = cudaErrorIllegalState;
    if (!rc) {
        RtGraph *g = nd->g;
        int k = nd->index;
        op_fini(&g->ops[k]);
        memmove(&g->ops[k], &g->ops[k + 1], sizeof *g->ops * (size_t)(g->n - k - 1));
        g->n--;
        for (int i = 0; i < g->n; i++) {
            GraphOp *op = &g->ops[i];
            int m = 0;
            for (int d = 0; d < op->ndeps; d++)
                if (op->deps[d] != k) op->deps[m++] = op->deps[d] > k ? op->deps[d] - 1 : op->deps[d];
            op->ndeps = m;
        }
        for (int i = 0; i < g_n_nodes; i++) {
            if (g_nodes[i]->g != g) continue;
            if (g_nodes[i]->index > k) g_nodes[i]->index--;
            else if (g_nodes[i] == nd) {
                free(nd);
                g_nodes[i--] = g_nodes[--g_n_nodes];
            }
        }
    }
    return rt_leave("cudaGraphDestroyNode", rc, 0, "node");
}

cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t graph) {
    rt_enter();
    RtGraph *g = rt_graph_find(graph);
    cudaError_t rc = !g || !out ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) *out = (cudaGraph_t)graph_clone(g);
    return rt_leave("cudaGraphClone", rc, 0, "&clone, graph (%d operations)", g ? g->n : 0);
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *out, cudaGraphNode_t original, cudaGraph_t clone) {
    rt_enter_pure();
    RtNode *nd = rt_node_find(original);
    RtGraph *c = rt_graph_find(clone);
    cudaError_t rc = !out || !nd || !c || c->cloned_from != nd->g ? cudaErrorInvalidValue : cudaSuccess;
    /* a node added to the original after the clone, or destroyed in the clone, has no copy */
    int k = 0;
    while (!rc && k < c->n && !(c->ops[k].node && c->ops[k].node->cloned_id == nd->id)) k++;
    if (!rc && k == c->n) rc = cudaErrorInvalidValue;
    if (!rc) *out = (cudaGraphNode_t)c->ops[k].node;
    return rt_leave("cudaGraphNodeFindInClone", rc, 0, "&node, node, clone");
}

/* Edge data other than the default (programmatic ports) is not implemented. */
static bool edges_default(const cudaGraphEdgeData *e, size_t n) {
    static const cudaGraphEdgeData zero;
    for (size_t i = 0; e && i < n; i++)
        if (memcmp(&e[i], &zero, sizeof zero)) return false;
    return true;
}

static int dep_index(const GraphOp *op, int on) {
    for (int k = 0; k < op->ndeps; k++)
        if (op->deps[k] == on) return k;
    return -1;
}

static cudaError_t edit_dependencies(const char *fn, cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edges, size_t n, bool add) {
    if (!edges_default(edges, n)) return (cudaError_t)emurt_unimplemented("graph edges with edge data (ports)");
    rt_enter();
    RtGraph *g = rt_graph_find(graph);
    cudaError_t rc = !g || (n && (!from || !to)) ? cudaErrorInvalidValue : cudaSuccess;
    /* all checked before any changes, as CUDA does */
    for (size_t i = 0; !rc && i < n; i++) {
        RtNode *a = rt_node_find(from[i]), *b = rt_node_find(to[i]);
        if (!a || !b || a->g != g || b->g != g || a == b) rc = cudaErrorInvalidValue;
        else if ((dep_index(&g->ops[b->index], a->index) >= 0) == add) rc = cudaErrorInvalidValue;
    }
    for (size_t i = 0; !rc && i < n; i++) {
        GraphOp *op = &g->ops[rt_node_find(to[i])->index];
        int on = rt_node_find(from[i])->index;
        if (add) rt_graph_depend(g, (int)(op - g->ops), on);
        else {
            int k = dep_index(op, on);
            if (k >= 0) op->deps[k] = op->deps[--op->ndeps];
        }
    }
    return rt_leave(fn, rc, 0, "graph, from, to, %zu", n);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *edges, size_t n) {
    return edit_dependencies("cudaGraphAddDependencies", graph, from, to, edges, n, true);
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                        const cudaGraphEdgeData *edges, size_t n) {
    return edit_dependencies("cudaGraphRemoveDependencies", graph, from, to, edges, n, false);
}

/* Lists into out (up to *num of them; *num becomes the count when out is
 * NULL or there are fewer) as CUDA's query functions do. */
static void list_put(cudaGraphNode_t *out, cudaGraphEdgeData *edges, size_t *num, size_t *k, cudaGraphNode_t nd) {
    if (out && *k < *num) {
        out[*k] = nd;
        if (edges) memset(&edges[*k], 0, sizeof *edges);
    }
    (*k)++;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to, cudaGraphEdgeData *edges,
                              size_t *num) {
    rt_enter_pure();
    RtGraph *g = rt_graph_find(graph);
    cudaError_t rc = !g || !num || (!from != !to) ? cudaErrorInvalidValue : cudaSuccess;
    size_t k = 0;
    for (int i = 0; !rc && i < g->n; i++)
        for (int d = 0; d < g->ops[i].ndeps; d++) {
            if (from && k < *num) to[k] = (cudaGraphNode_t)g->ops[i].node;
            list_put(from, edges, num, &k, (cudaGraphNode_t)g->ops[g->ops[i].deps[d]].node);
        }
    if (!rc && (!from || k < *num)) *num = k;
    return rt_leave("cudaGraphGetEdges", rc, 0, "graph, %s, &num = %zu", from ? "from, to" : "NULL, NULL", k);
}

static cudaError_t node_neighbours(const char *fn, cudaGraphNode_t node, cudaGraphNode_t *out,
                                   cudaGraphEdgeData *edges, size_t *num, bool dependents) {
    rt_enter_pure();
    RtNode *nd = rt_node_find(node);
    cudaError_t rc = !nd || !num ? cudaErrorInvalidValue : cudaSuccess;
    size_t k = 0;
    if (!rc) {
        RtGraph *g = nd->g;
        if (!dependents)
            for (int d = 0; d < g->ops[nd->index].ndeps; d++)
                list_put(out, edges, num, &k, (cudaGraphNode_t)g->ops[g->ops[nd->index].deps[d]].node);
        else
            for (int i = 0; i < g->n; i++)
                if (dep_index(&g->ops[i], nd->index) >= 0) list_put(out, edges, num, &k, (cudaGraphNode_t)g->ops[i].node);
        if (!out || k < *num) *num = k;
    }
    return rt_leave(fn, rc, 0, "node, %s, &num = %zu", out ? "nodes" : "NULL", k);
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps, cudaGraphEdgeData *edges,
                                         size_t *num) {
    return node_neighbours("cudaGraphNodeGetDependencies", node, deps, edges, num, false);
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *out, cudaGraphEdgeData *edges,
                                           size_t *num) {
    return node_neighbours("cudaGraphNodeGetDependentNodes", node, out, edges, num, true);
}

/* The node's operation when it is of `kind`, else NULL. */
static GraphOp *node_op(cudaGraphNode_t node, OpKind kind) {
    RtNode *nd = rt_node_find(node);
    return nd && nd->g->ops[nd->index].kind == kind ? &nd->g->ops[nd->index] : NULL;
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *p) {
    rt_enter_pure();
    GraphOp *op = node_op(node, OP_HOST);
    cudaError_t rc = !op || !p ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        p->fn = op->fn;
        p->userData = op->data;
    }
    return rt_leave("cudaGraphHostNodeGetParams", rc, 0, "node");
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *p) {
    rt_enter();
    GraphOp *op = node_op(node, OP_HOST);
    cudaError_t rc = !op || !p || !p->fn ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        op->fn = p->fn;
        op->data = p->userData;
    }
    return rt_leave("cudaGraphHostNodeSetParams", rc, 0, "node");
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *p) {
    rt_enter_pure();
    GraphOp *op = node_op(node, OP_MEMSET);
    cudaError_t rc = !op || !p ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        size_t es = op->data ? (size_t)(uintptr_t)op->data : 1;
        memset(p, 0, sizeof *p);
        p->dst = op->dst;
        p->value = (unsigned)op->value;
        p->elementSize = (unsigned)es;
        p->width = op->width / es;
        p->height = op->height;
        p->pitch = op->height > 1 ? op->pitch : 0;
    }
    return rt_leave("cudaGraphMemsetNodeGetParams", rc, 0, "node");
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *p) {
    rt_enter_pure();
    RtNode *nd = rt_node_find(node);
    GraphOp *op = nd ? &nd->g->ops[nd->index] : NULL;
    cudaError_t rc = !op || !p || (op->kind != OP_COPY && op->kind != OP_COPY3D) ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc && op->kind == OP_COPY3D) *p = op->p3d;
    else if (!rc) {
        /* a 1D copy as CUDA describes it: one row of `count` bytes */
        memset(p, 0, sizeof *p);
        p->srcPtr = (struct cudaPitchedPtr){(void *)op->src, op->n, op->n, 1};
        p->dstPtr = (struct cudaPitchedPtr){op->dst, op->n, op->n, 1};
        p->extent = (struct cudaExtent){op->n, 1, 1};
        p->kind = op->copy_kind;
    }
    return rt_leave("cudaGraphMemcpyNodeGetParams", rc, 0, "node");
}

static cudaError_t list_nodes(const char *fn, cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *num, bool roots) {
    rt_enter();
    RtGraph *g = rt_graph_find(graph);
    cudaError_t rc = !g || !num ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        size_t k = 0;
        for (int i = 0; i < g->n; i++) {
            if (roots && g->ops[i].ndeps) continue;
            if (nodes && k < *num) nodes[k] = (cudaGraphNode_t)g->ops[i].node;
            k++;
        }
        if (!nodes || k < *num) *num = k;
    }
    return rt_leave(fn, rc, 0, "graph, %s, &num = %zu", nodes ? "nodes" : "NULL", num ? *num : 0);
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *num) {
    return list_nodes("cudaGraphGetNodes", graph, nodes, num, false);
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *num) {
    return list_nodes("cudaGraphGetRootNodes", graph, nodes, num, true);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    rt_enter();
    RtGraph *g = rt_graph_find(graph);
    if (g) rt_graph_drop(g);
    return rt_leave("cudaGraphDestroy", g ? cudaSuccess : cudaErrorInvalidValue, 0, "graph");
}

/* The operations of g in an order that honours every dependency, the
 * order they were added where it can (Kahn's algorithm taking the first
 * ready one): NULL when the dependencies make a cycle. Caller frees. */
static int *graph_order(const RtGraph *g) {
    int *order = xmalloc(sizeof *order * (size_t)(g->n ? g->n : 1));
    bool *done = xcalloc((size_t)(g->n ? g->n : 1), sizeof *done);
    for (int k = 0; k < g->n; k++) {
        int pick = -1;
        for (int i = 0; i < g->n && pick < 0; i++) {
            if (done[i]) continue;
            bool ready = true;
            for (int d = 0; d < g->ops[i].ndeps && ready; d++) ready = done[g->ops[i].deps[d]];
            if (ready) pick = i;
        }
        if (pick < 0) {
            free(order);
            free(done);
            return NULL;
        }
        done[pick] = true;
        order[k] = pick;
    }
    free(done);
    return order;
}

/* Whether every child graph of g (at any depth) has an order. */
static bool children_acyclic(const RtGraph *g) {
    for (int i = 0; i < g->n; i++) {
        if (!g->ops[i].child) continue;
        int *o = graph_order(g->ops[i].child);
        bool ok = o && children_acyclic(g->ops[i].child);
        free(o);
        if (!ok) return false;
    }
    return true;
}

/* ---- instantiate and launch --------------------------------------------------------------------------------- */
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *out, cudaGraph_t graph, unsigned long long flags) {
    rt_enter();
    RtGraph *g = rt_graph_find(graph);
    cudaError_t rc = !out || !g ? cudaErrorInvalidValue : cudaSuccess;
    int *order = rc ? NULL : graph_order(g);
    if (!rc && (!order || !children_acyclic(g))) rc = cudaErrorInvalidValue; /* a cycle */
    if (!rc) {
        RtGraphExec *x = xcalloc(1, sizeof *x);
        x->magic = EXEC_MAGIC;
        x->g = graph_copy(g);
        x->order = order;
        g_execs = xrealloc(g_execs, sizeof *g_execs * (size_t)(g_n_execs + 1));
        g_execs[g_n_execs++] = x;
        *out = (cudaGraphExec_t)x;
    }
    return rt_leave("cudaGraphInstantiate", rc, 0, "&exec, graph (%d operations), %llu", g ? g->n : 0, flags);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *out, cudaGraph_t graph, unsigned long long flags) {
    return cudaGraphInstantiate(out, graph, flags);
}

static RtGraphExec *exec_find(const void *p) {
    for (int i = 0; p && i < g_n_execs; i++)
        if ((const void *)g_execs[i] == p) return g_execs[i];
    return NULL;
}

/* A row of a memset node of 2- or 4-byte elements (arguments for the stream's queue). */
typedef struct MemsetRow {
    void *row;
    int value;
    size_t es, width;
} MemsetRow;

static cudaError_t memset_row(void *row, int value, size_t es, size_t width, RtStream *s);
static void run_queued_row(RtStream *s, RtQOp *op) {
    const MemsetRow *m = op->blob;
    memset_row(m->row, m->value, m->es, m->width, s);
}

/* The row is filled with the element, then modeled as one memset; in
 * stream order (queued behind a running host node). */
static cudaError_t memset_row(void *row, int value, size_t es, size_t width, RtStream *s) {
    RtAlloc *a = rt_alloc_find(row);
    if (!a) return cudaErrorInvalidValue;
    if (rt_queue_needed(s)) {
        MemsetRow m = {row, value, es, width};
        rt_queue_call(s, &m, sizeof m, run_queued_row);
        return cudaSuccess;
    }
    rt_mem_fill(row, (unsigned)value, es, width);
    emu_model_memset(g_rt.dev[a->dev].b, s->dev == a->dev ? s->id : 0, width, true, "memset node");
    return cudaSuccess;
}

/* Replays g's operations on s in `order`; a child graph node replays its graph in place. */
static cudaError_t graph_run(const RtGraph *g, const int *order, RtStream *s) {
    cudaError_t rc = cudaSuccess;
    for (int i = 0; !rc && i < g->n; i++) {
        const GraphOp *op = &g->ops[order[i]];
        switch (op->kind) {
        case OP_KERNEL: rc = rt_launch_params(op->f, op->grid, op->block, op->params, op->psize, op->shared, s); break;
        case OP_COPY: rc = rt_memcpy(op->dst, op->src, op->n, op->copy_kind, s, false); break;
        case OP_MEMSET:
            for (size_t r = 0; !rc && r < (op->height ? op->height : 1); r++) {
                size_t es = op->data ? (size_t)(uintptr_t)op->data : 1;
                if (es == 1) rc = rt_memset((char *)op->dst + r * op->pitch, op->value, op->width, s, false);
                else rc = memset_row((char *)op->dst + r * op->pitch, op->value, es, op->width, s);
            }
            break;
        case OP_HOST: rt_host_func(s, op->fn, NULL, NULL, op->data); break;
        case OP_COPY3D: rc = rt_memcpy3d(&op->p3d, s, false); break;
        case OP_EMPTY: break;
        case OP_CHILD: {
            int *o = graph_order(op->child);
            rc = o ? graph_run(op->child, o, s) : cudaErrorInvalidValue;
            free(o);
            break;
        }
        case OP_EVENT_RECORD:
        case OP_EVENT_WAIT: {
            RtEvent *e = rt_event_find(op->event);
            if (!e) rc = cudaErrorInvalidResourceHandle;
            else if (op->kind == OP_EVENT_RECORD) rc = rt_event_record(e, s, s->capture ? cudaEventRecordExternal : 0);
            else rc = rt_stream_wait_event(s, e, s->capture ? cudaEventWaitExternal : 0);
            break;
        }
        }
    }
    return rc;
}

static cudaError_t graph_launch(cudaGraphExec_t exec, cudaStream_t st, bool ptsz) {
    progwire_turn();
    rt_enter();
    RtGraphExec *x = exec_find(exec);
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !x ? cudaErrorInvalidValue : !s ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) rc = rt_sticky(s->dev, false);
    Backend *model = !rc && !s->capture ? g_rt.dev[s->dev].b : NULL;
    if (model) emu_model_graph_begin(model);
    if (!rc) rc = graph_run(x->g, x->order, s);
    if (model) emu_model_graph_end(model);
    return rt_leave("cudaGraphLaunch", rc, s ? s->id : 0, "exec (%d operations), %s", x ? x->g->n : 0,
                    s ? rt_stream_name(s) : "?");
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t st) { return graph_launch(exec, st, false); }
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t st);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t exec, cudaStream_t st) { return graph_launch(exec, st, true); }

/* Nothing to upload: a launch needs no preparation here. */
static cudaError_t graph_upload(cudaGraphExec_t exec, cudaStream_t st, bool ptsz) {
    rt_enter();
    RtGraphExec *x = exec_find(exec);
    RtStream *s = rt_stream(st, ptsz);
    cudaError_t rc = !x ? cudaErrorInvalidValue : !s ? cudaErrorInvalidResourceHandle : rt_sticky(s->dev, false);
    return rt_leave("cudaGraphUpload", rc, s ? s->id : 0, "exec, %s", s ? rt_stream_name(s) : "?");
}

cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t st) { return graph_upload(exec, st, false); }
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t exec, cudaStream_t st);
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t exec, cudaStream_t st) { return graph_upload(exec, st, true); }

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    rt_enter();
    RtGraphExec *x = exec_find(exec);
    if (x) {
        for (int i = 0; i < g_n_execs; i++)
            if (g_execs[i] == x) {
                g_execs[i] = g_execs[--g_n_execs];
                break;
            }
        graph_free(x->g);
        free(x->order);
        x->magic = 0;
        free(x);
    }
    return rt_leave("cudaGraphExecDestroy", x ? cudaSuccess : cudaErrorInvalidValue, 0, "exec");
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *p) {
    rt_enter();
    RtGraphExec *x = exec_find(exec);
    RtNode *nd = rt_node_find(node);
    RtFunc *f = NULL;
    unsigned char *params = NULL;
    size_t psize = 0;
    cudaError_t rc = !x || !nd || nd->index >= x->g->n || x->g->ops[nd->index].kind != OP_KERNEL
                         ? cudaErrorInvalidValue : kernel_params(p, &f, &params, &psize);
    if (!rc) kernel_op_set(&x->g->ops[nd->index], f, p, params, psize);
    return rt_leave("cudaGraphExecKernelNodeSetParams", rc, 0, "exec, node, %s", f ? f->pretty : "?");
}

/* The instance's copy of the node when it is of `kind`, else NULL. */
static GraphOp *exec_op(RtGraphExec *x, cudaGraphNode_t node, OpKind kind) {
    RtNode *nd = rt_node_find(node);
    return x && nd && nd->index < x->g->n && x->g->ops[nd->index].kind == kind ? &x->g->ops[nd->index] : NULL;
}

static cudaError_t exec_event_set(const char *fn, cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event,
                                  OpKind kind) {
    rt_enter_pure();
    GraphOp *op = exec_op(exec_find(exec), node, kind);
    cudaError_t rc = !op ? cudaErrorInvalidValue : !rt_event_find(event) ? cudaErrorInvalidResourceHandle : cudaSuccess;
    if (!rc) op->event = event;
    return rt_leave(fn, rc, 0, "exec, node, event");
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event) {
    return exec_event_set("cudaGraphExecEventRecordNodeSetEvent", exec, node, event, OP_EVENT_RECORD);
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node, cudaEvent_t event) {
    return exec_event_set("cudaGraphExecEventWaitNodeSetEvent", exec, node, event, OP_EVENT_WAIT);
}

static enum cudaGraphExecUpdateResult update_check(const RtGraph *a0, const RtGraph *g, int *bad);

/* The instance's child graph takes `child`'s parameters (the same shape, else cudaErrorInvalidValue). */
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, cudaGraph_t child) {
    rt_enter();
    GraphOp *op = exec_op(exec_find(exec), node, OP_CHILD);
    RtGraph *c = rt_graph_find(child);
    int bad;
    cudaError_t rc = !op || !c || update_check(op->child, c, &bad) != cudaGraphExecUpdateSuccess ? cudaErrorInvalidValue
                                                                                                 : cudaSuccess;
    if (!rc) {
        graph_free(op->child);
        op->child = graph_copy(c);
    }
    return rt_leave("cudaGraphExecChildGraphNodeSetParams", rc, 0, "exec, node, child (%d operations)", c ? c->n : 0);
}

/* Why `g` cannot update `x` (cudaGraphExecUpdateResult), or success: the
 * same operations, in the same order, of the same kinds. */
static enum cudaGraphExecUpdateResult update_check(const RtGraph *a0, const RtGraph *g, int *bad) {
    *bad = -1;
    if (g->n != a0->n) return cudaGraphExecUpdateErrorTopologyChanged;
    for (int i = 0; i < g->n; i++) {
        const GraphOp *a = &a0->ops[i], *b = &g->ops[i];
        *bad = i;
        if (a->kind != b->kind) return cudaGraphExecUpdateErrorNodeTypeChanged;
        if (a->kind == OP_COPY && a->copy_kind != b->copy_kind) return cudaGraphExecUpdateErrorParametersChanged;
        if (a->kind == OP_MEMSET && (a->width != b->width || a->height != b->height))
            return cudaGraphExecUpdateErrorParametersChanged;
        int inner;
        if (a->kind == OP_CHILD && update_check(a->child, b->child, &inner) != cudaGraphExecUpdateSuccess)
            return cudaGraphExecUpdateErrorTopologyChanged;
    }
    *bad = -1;
    return cudaGraphExecUpdateSuccess;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo *info) {
    rt_enter();
    RtGraphExec *x = exec_find(exec);
    RtGraph *g = rt_graph_find(graph);
    cudaError_t rc = !x || !g ? cudaErrorInvalidValue : cudaSuccess;
    int bad = -1;
    enum cudaGraphExecUpdateResult why = cudaGraphExecUpdateError;
    if (!rc) {
        why = update_check(x->g, g, &bad);
        if (why != cudaGraphExecUpdateSuccess) rc = cudaErrorGraphExecUpdateFailure;
    }
    if (!rc) {
        /* the exec takes the graph's parameters; its own node handles stay */
        int *order = graph_order(g);
        RtGraph *fresh = graph_copy(g);
        for (int i = 0; i < g->n; i++) {
            op_fini(&x->g->ops[i]);
            x->g->ops[i] = fresh->ops[i];
        }
        if (order) {
            free(x->order);
            x->order = order;
        }
        free(fresh->ops);
        free(fresh);
    }
    if (info) {
        memset(info, 0, sizeof *info);
        info->result = why;
        if (!rc) info->result = cudaGraphExecUpdateSuccess;
        if (bad >= 0 && g) info->errorNode = (cudaGraphNode_t)g->ops[bad].node;
    }
    return rt_leave("cudaGraphExecUpdate", rc, 0, "exec, graph (%d operations), &info", g ? g->n : 0);
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type) {
    rt_enter_pure();
    RtNode *nd = rt_node_find(node);
    cudaError_t rc = !nd || !type ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        static const enum cudaGraphNodeType T[] = {cudaGraphNodeTypeKernel, cudaGraphNodeTypeMemcpy,
                                                   cudaGraphNodeTypeMemset, cudaGraphNodeTypeHost,
                                                   cudaGraphNodeTypeEmpty,  cudaGraphNodeTypeMemcpy,
                                                   cudaGraphNodeTypeGraph,  cudaGraphNodeTypeEventRecord,
                                                   cudaGraphNodeTypeWaitEvent};
        *type = T[nd->g->ops[nd->index].kind];
    }
    return rt_leave("cudaGraphNodeGetType", rc, 0, "node");
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *p) {
    rt_enter_pure();
    RtNode *nd = rt_node_find(node);
    cudaError_t rc = !nd || !p || nd->g->ops[nd->index].kind != OP_KERNEL ? cudaErrorInvalidValue : cudaSuccess;
    if (!rc) {
        GraphOp *op = &nd->g->ops[nd->index];
        memset(p, 0, sizeof *p);
        p->func = (void *)op->f->host;
        p->gridDim = op->grid;
        p->blockDim = op->block;
        p->sharedMemBytes = (unsigned)op->shared;
        /* the parameters live in the node as one buffer: kernelParams stays NULL */
    }
    return rt_leave("cudaGraphKernelNodeGetParams", rc, 0, "node");
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *p) {
    rt_enter();
    RtNode *nd = rt_node_find(node);
    RtFunc *f = NULL;
    unsigned char *params = NULL;
    size_t psize = 0;
    cudaError_t rc = !nd || nd->g->ops[nd->index].kind != OP_KERNEL ? cudaErrorInvalidValue
                                                                    : kernel_params(p, &f, &params, &psize);
    if (!rc) kernel_op_set(&nd->g->ops[nd->index], f, p, params, psize);
    return rt_leave("cudaGraphKernelNodeSetParams", rc, 0, "node, %s", f ? f->pretty : "?");
}
