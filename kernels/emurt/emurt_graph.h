/* kernels/emurt/emurt_graph.h: a CUDA graph as the emulator runtime keeps
 * it — the list of its operations in the order they were added or
 * captured — shared by emurt_graph.c (graphs by hand, instantiate, launch)
 * and emurt_capture.c (stream capture). */
#ifndef CUDOJO_KERNELS_EMURT_GRAPH_H
#define CUDOJO_KERNELS_EMURT_GRAPH_H

#include "kernels/emurt/emurt_internal.h"

#define GRAPH_MAGIC 0x47524150u  /* "GRAP" */
#define EXEC_MAGIC 0x47455845u   /* "GEXE" */

typedef enum OpKind {
    OP_KERNEL, OP_COPY, OP_MEMSET, OP_HOST, OP_EMPTY, OP_COPY3D,
    OP_CHILD,                       /* a child graph, run as one node (its own edges kept) */
    OP_EVENT_RECORD, OP_EVENT_WAIT, /* cudaEventRecord / cudaStreamWaitEvent on the launch's stream */
} OpKind;

typedef struct GraphOp {
    OpKind kind;
    RtFunc *f;
    dim3 grid, block;
    unsigned char *params;
    size_t psize, shared;
    void *dst;
    const void *src;
    size_t n;
    enum cudaMemcpyKind copy_kind;
    int value;
    size_t pitch, width, height;    /* memset nodes: rows */
    cudaHostFn_t fn;
    void *data;
    struct cudaMemcpy3DParms p3d;   /* OP_COPY3D (cudaGraphAddMemcpyNode) */
    struct RtGraph *child;          /* OP_CHILD: the node's own copy of the graph */
    cudaEvent_t event;              /* OP_EVENT_RECORD, OP_EVENT_WAIT (looked up when run) */
    struct RtNode *node;
    int ndeps;
    int *deps;                      /* the indices of the ndeps nodes it depends on */
} GraphOp;

/* A node handle stays valid while ops arrays grow: it names (graph, index). */
typedef struct RtNode {
    uint32_t magic;
    struct RtGraph *g;
    int index;
    uint64_t id;                    /* unique for the process (handles' addresses are reused) */
    uint64_t cloned_id;             /* in a clone: the id of the original's node it copies; 0 otherwise */
} RtNode;

#define NODE_MAGIC 0x4e4f4445u   /* "NODE" */

struct RtGraph {
    uint32_t magic;
    GraphOp *ops;
    int n, cap;
    const struct RtGraph *cloned_from;  /* cudaGraphClone's original (cudaGraphNodeFindInClone) */
};
typedef struct RtGraph RtGraph;

typedef struct RtGraphExec {
    uint32_t magic;
    RtGraph *g;
    int *order;                     /* g's operations in an order that honours every dependency */
} RtGraphExec;

/* Graphs the program holds (made by cudaGraphCreate or a capture). */
RtGraph *rt_graph_new(void);
RtGraph *rt_graph_find(const void *p);
/* Appends an operation (and its node handle) to g. */
GraphOp *rt_graph_add(RtGraph *g, OpKind kind);
/* Makes the op at index `op` of g depend on the op at index `on`. */
void rt_graph_depend(RtGraph *g, int op, int on);
/* Forgets g and frees it with its nodes. */
void rt_graph_drop(RtGraph *g);
RtNode *rt_node_find(const void *p);

#endif
