// tests/programs/recursion.cu: device functions that call themselves, as
// textbook examples do: a recursive factorial, a naive Fibonacci (two calls
// per level), a recursive quicksort of a small per-thread array, and a
// depth-first sum over a binary tree stored in an array. The emulator does not
// run recursive calls yet: there the program must fail, naming it.
// cudojo: emu-fails=recursive call
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

__device__ unsigned long long factorial(int n) { return n <= 1 ? 1ULL : n * factorial(n - 1); }

__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ void quicksort(int *a, int lo, int hi) {
    if (lo >= hi) return;
    int p = a[(lo + hi) / 2], i = lo, j = hi;
    while (i <= j) {
        while (a[i] < p) i++;
        while (a[j] > p) j--;
        if (i <= j) {
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
            i++;
            j--;
        }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

__device__ int tree_sum(const int *tree, int n, int node) {
    if (node >= n) return 0;
    return tree[node] + tree_sum(tree, n, 2 * node + 1) + tree_sum(tree, n, 2 * node + 2);
}

__global__ void recurse(const int *tree, int n, long long *out) {
    int t = threadIdx.x;
    int a[16];
    for (int k = 0; k < 16; k++) a[k] = (k * 7 + t * 3) % 16;
    quicksort(a, 0, 15);
    int sorted = 1;
    for (int k = 1; k < 16; k++) sorted &= a[k - 1] <= a[k];
    out[t * 4 + 0] = (long long)factorial(t % 21);
    out[t * 4 + 1] = fib(t % 16);
    out[t * 4 + 2] = sorted;
    out[t * 4 + 3] = tree_sum(tree, n, t % 7);
}

int main(void) {
    const int n = 63, threads = 32;
    int tree[n], *d_tree;
    for (int i = 0; i < n; i++) tree[i] = i + 1;
    long long out[threads * 4], *d_out;
    cudaCheck(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
    cudaCheck(cudaMalloc(&d_tree, sizeof tree));
    cudaCheck(cudaMalloc(&d_out, sizeof out));
    cudaCheck(cudaMemcpy(d_tree, tree, sizeof tree, cudaMemcpyHostToDevice));
    recurse<<<1, threads>>>(d_tree, n, d_out);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < threads; t++) {
        unsigned long long f = 1;
        for (int k = 2; k <= t % 21; k++) f *= k;
        long long a = 0, b = 1;
        for (int k = 0; k < t % 16; k++) {
            long long c = a + b;
            a = b;
            b = c;
        }
        // sum of the subtree under node t % 7
        long long s = 0;
        int stack[64], sp = 0;
        stack[sp++] = t % 7;
        while (sp) {
            int v = stack[--sp];
            if (v >= n) continue;
            s += tree[v];
            stack[sp++] = 2 * v + 1;
            stack[sp++] = 2 * v + 2;
        }
        bad += out[t * 4] != (long long)f || out[t * 4 + 1] != a || out[t * 4 + 2] != 1 || out[t * 4 + 3] != s;
    }
    printf("20! = %lld, fib(15) = %lld, sorted %lld, tree sum from the root %lld\n", out[20 * 4], out[15 * 4 + 1],
           out[15 * 4 + 2], out[0 * 4 + 3]);
    printf("threads with a wrong answer: %d\n", bad);
    cudaCheck(cudaFree(d_tree));
    cudaCheck(cudaFree(d_out));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
