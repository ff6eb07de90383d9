// tests/programs/virtual_calls.cu: calls whose target is known only at run
// time. A table of __device__ function pointers indexed per thread, a
// function pointer passed as a kernel argument (its address taken on the
// device with cudaMemcpyFromSymbol), and C++ virtual functions on objects
// constructed inside the kernel (placement new into a local buffer). The
// emulator does not run indirect calls yet: there the program must fail,
// naming them.
// cudojo: emu-fails=indirect call
#include <cstdio>
#include <cstdlib>
#include <new>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

typedef int (*BinOp)(int, int);
__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_max(int a, int b) { return a > b ? a : b; }
__device__ BinOp table[3] = {op_add, op_mul, op_max};
__device__ BinOp chosen = op_mul;

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual int sides() const { return 0; }
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float s;
    __device__ Square(float s_) : s(s_) {}
    __device__ float area() const override { return s * s; }
    __device__ int sides() const override { return 4; }
};
struct Circle : Shape {
    float r;
    __device__ Circle(float r_) : r(r_) {}
    __device__ float area() const override { return 3.0f * r * r; }
};

__global__ void dispatch(const int *x, int *out, BinOp arg) {
    int t = threadIdx.x;
    out[t * 4 + 0] = table[t % 3](x[t], 3);
    out[t * 4 + 1] = arg(x[t], 2);
    alignas(Square) unsigned char mem[sizeof(Square) > sizeof(Circle) ? sizeof(Square) : sizeof(Circle)];
    Shape *s = t % 2 ? (Shape *)new (mem) Square((float)x[t]) : (Shape *)new (mem) Circle((float)x[t]);
    out[t * 4 + 2] = (int)s->area();
    out[t * 4 + 3] = s->sides();
    s->~Shape();
}

int main(void) {
    const int T = 32;
    int x[T], out[T * 4], *d_x, *d_out;
    for (int t = 0; t < T; t++) x[t] = t - 10;
    BinOp h_chosen;
    cudaCheck(cudaMemcpyFromSymbol(&h_chosen, chosen, sizeof h_chosen));
    cudaCheck(cudaMalloc(&d_x, sizeof x));
    cudaCheck(cudaMalloc(&d_out, sizeof out));
    cudaCheck(cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice));
    dispatch<<<1, T>>>(d_x, d_out, h_chosen);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < T; t++) {
        int v = x[t];
        int w0 = t % 3 == 0 ? v + 3 : t % 3 == 1 ? v * 3 : (v > 3 ? v : 3);
        int w2 = t % 2 ? v * v : (int)(3.0f * v * v);
        bad += out[t * 4] != w0 || out[t * 4 + 1] != v * 2 || out[t * 4 + 2] != w2 || out[t * 4 + 3] != (t % 2 ? 4 : 0);
    }
    printf("thread 7: table %d, argument %d, area %d, sides %d\n", out[28], out[29], out[30], out[31]);
    printf("threads with a wrong answer: %d\n", bad);
    cudaCheck(cudaFree(d_x));
    cudaCheck(cudaFree(d_out));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
