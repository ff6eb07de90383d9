/* tests/emurt/programs/graph_clone_find.c: cudaGraphNodeFindInClone after
 * the original graph changed (built with cc, no nvcc needed). Three host
 * nodes a, b, c (their userData says which) are cloned; then a is destroyed
 * in the original and d added: b and c must still find their own copies,
 * d (not in the graph when it was cloned) none. The clone's own change (its
 * b destroyed) leaves c's answer right. Was: found by position, so b found
 * c's copy and d found one too. */
#include <cuda_runtime_api.h>
#include <stdio.h>

static void CUDART_CB nothing(void *arg) { (void)arg; }

static cudaGraphNode_t host_node(cudaGraph_t g, const char *name) {
    struct cudaHostNodeParams hp = {nothing, (void *)name};
    cudaGraphNode_t n = NULL;
    cudaError_t rc = cudaGraphAddHostNode(&n, g, NULL, 0, &hp);
    if (rc) printf("cudaGraphAddHostNode: %s\n", cudaGetErrorName(rc));
    return n;
}

/* Which node of clone `original` finds: its userData, or the error. */
static void find(const char *label, cudaGraphNode_t original, cudaGraph_t clone) {
    cudaGraphNode_t n = NULL;
    cudaError_t rc = cudaGraphNodeFindInClone(&n, original, clone);
    struct cudaHostNodeParams hp = {0};
    if (!rc) rc = cudaGraphHostNodeGetParams(n, &hp);
    printf("%s: %s\n", label, rc ? cudaGetErrorName(rc) : (const char *)hp.userData);
}

int main(void) {
    cudaGraph_t g, clone;
    cudaGraphCreate(&g, 0);
    cudaGraphNode_t a = host_node(g, "a"), b = host_node(g, "b"), c = host_node(g, "c");
    cudaGraphClone(&clone, g);
    find("b before", b, clone);
    printf("destroy a: %s\n", cudaGetErrorName(cudaGraphDestroyNode(a)));
    cudaGraphNode_t d = host_node(g, "d");
    find("b", b, clone);
    find("c", c, clone);
    find("d", d, clone);
    cudaGraphNode_t cb = NULL;
    cudaGraphNodeFindInClone(&cb, b, clone);
    printf("destroy the clone's b: %s\n", cudaGetErrorName(cudaGraphDestroyNode(cb)));
    find("c after", c, clone);
    cudaGraphDestroy(clone);
    cudaGraphDestroy(g);
    printf("still running\n");
    return 0;
}
