// tests/programs/struct_layout.cu: structs whose layout has padding and
// alignment, passed by value to kernels and copied through device memory.
// The device reports sizeof/alignof/offsetof of each type (they must be the
// host's), copies fields of a by-value parameter out, updates an array of
// padded structs in place (the padding bytes are never written, so the host's
// pattern survives), and returns a struct from a __device__ function. Types:
// char+double, alignas(16), a nested struct with an array, a union, bitfields.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define cudaCheck(call) cuda_check((call), #call, __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e != cudaSuccess) {
        fprintf(stderr, "[CUDA ERROR] at file %s:%d: %s\n%s\n", file, line, what, cudaGetErrorString(e));
        exit(EXIT_FAILURE);
    }
}

struct Padded {
    char c;
    double d;
    short s;
};
struct alignas(16) Aligned {
    float x;
    int tag;
};
struct Inner {
    unsigned char bytes[3];
    int i;
};
struct Outer {
    short a;
    Inner in[2];
    long long ll;
    char last;
};
union Bits {
    float f;
    unsigned u;
    unsigned char b[4];
};
struct Flags {
    unsigned kind : 3;
    unsigned level : 5;
    signed delta : 6;
    unsigned rest : 18;
};
struct Mixed {
    char c;
    Aligned al;
    Bits bits;
    Flags fl;
};

#define LAYOUT(T) sizeof(T), alignof(T)
__global__ void layout(size_t *out) {
    size_t v[] = {LAYOUT(Padded), offsetof(Padded, d), offsetof(Padded, s), LAYOUT(Aligned), LAYOUT(Outer),
                  offsetof(Outer, in), offsetof(Outer, ll), offsetof(Outer, last), LAYOUT(Bits), LAYOUT(Flags),
                  LAYOUT(Mixed), offsetof(Mixed, al), offsetof(Mixed, bits), offsetof(Mixed, fl)};
    for (int i = 0; i < (int)(sizeof v / sizeof v[0]); i++) out[i] = v[i];
}

__global__ void fields(Padded p, Aligned a, Outer o, Bits b, Flags f, Mixed m, double *out) {
    out[0] = p.c;
    out[1] = p.d;
    out[2] = p.s;
    out[3] = a.x;
    out[4] = a.tag;
    out[5] = o.a;
    out[6] = o.in[1].bytes[2];
    out[7] = o.in[1].i;
    out[8] = (double)o.ll;
    out[9] = o.last;
    out[10] = b.u;
    out[11] = b.b[3];
    out[12] = f.kind;
    out[13] = f.level;
    out[14] = f.delta;
    out[15] = f.rest;
    out[16] = m.c + m.al.x + m.al.tag + m.bits.b[0] + m.fl.delta;
}

__device__ Padded make(int i) {
    Padded p;
    p.c = (char)('a' + i % 26);
    p.d = i * 0.5;
    p.s = (short)(-i);
    return p;
}

__global__ void update(Padded *ps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Padded q = make(i);
    ps[i].c = q.c;  // field by field: the padding bytes keep the host's pattern
    ps[i].d += q.d;
    ps[i].s = q.s;
}

int main(void) {
    size_t host[] = {LAYOUT(Padded), offsetof(Padded, d), offsetof(Padded, s), LAYOUT(Aligned), LAYOUT(Outer),
                     offsetof(Outer, in), offsetof(Outer, ll), offsetof(Outer, last), LAYOUT(Bits), LAYOUT(Flags),
                     LAYOUT(Mixed), offsetof(Mixed, al), offsetof(Mixed, bits), offsetof(Mixed, fl)};
    const int nl = sizeof host / sizeof host[0];
    size_t dev[nl], *d_l;
    cudaCheck(cudaMalloc(&d_l, sizeof dev));
    layout<<<1, 1>>>(d_l);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(dev, d_l, sizeof dev, cudaMemcpyDeviceToHost));
    int bad = memcmp(host, dev, sizeof dev) != 0;
    printf("layout (device):");
    for (int i = 0; i < nl; i++) printf(" %zu", dev[i]);
    printf("\nlayout matches the host: %s\n", bad ? "no" : "yes");

    Padded p = {'x', 2.75, -123};
    Aligned a = {1.5f, 42};
    Outer o;
    memset(&o, 0, sizeof o);
    o.a = -7;
    o.in[1].bytes[2] = 200;
    o.in[1].i = 123456;
    o.ll = 1LL << 40;
    o.last = 'z';
    Bits b;
    b.f = 1.0f;
    Flags f;
    f.kind = 5;
    f.level = 31;
    f.delta = -17;
    f.rest = 0x2abcd;
    Mixed m;
    memset(&m, 0, sizeof m);
    m.c = 1;
    m.al = a;
    m.bits.u = 0x01020304;
    m.fl = f;
    double out[17], *d_out;
    cudaCheck(cudaMalloc(&d_out, sizeof out));
    fields<<<1, 1>>>(p, a, o, b, f, m, d_out);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    printf("fields:");
    for (int i = 0; i < 17; i++) printf(" %.17g", out[i]);
    printf("\n");
    double want[17] = {'x', 2.75, -123, 1.5, 42, -7, 200, 123456, (double)(1LL << 40), 'z', 0x3f800000, 0x3f,
                       5, 31, -17, 0x2abcd, 1 + 1.5 + 42 + 4 - 17};
    int fb = memcmp(out, want, sizeof out) != 0;
    bad += fb;

    const int n = 300;
    Padded *h = (Padded *)malloc(n * sizeof(Padded)), *d_p;
    memset(h, 0xA5, n * sizeof(Padded));
    for (int i = 0; i < n; i++) h[i].d = i;
    cudaCheck(cudaMalloc(&d_p, n * sizeof(Padded)));
    cudaCheck(cudaMemcpy(d_p, h, n * sizeof(Padded), cudaMemcpyHostToDevice));
    update<<<(n + 127) / 128, 128>>>(d_p, n);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(h, d_p, n * sizeof(Padded), cudaMemcpyDeviceToHost));
    int ub = 0, pad = 0;
    for (int i = 0; i < n; i++) {
        ub += h[i].c != (char)('a' + i % 26) || h[i].d != i * 1.5 || h[i].s != -i;
        const unsigned char *raw = (const unsigned char *)&h[i];
        for (size_t k = 1; k < offsetof(Padded, d); k++) pad += raw[k] != 0xA5;
        for (size_t k = offsetof(Padded, s) + sizeof(short); k < sizeof(Padded); k++) pad += raw[k] != 0xA5;
    }
    printf("array of %d padded structs: wrong fields %d, padding bytes changed %d, h[299] = {%c, %g, %d}\n", n, ub,
           pad, h[n - 1].c, h[n - 1].d, h[n - 1].s);
    bad += ub + pad;
    cudaCheck(cudaFree(d_l));
    cudaCheck(cudaFree(d_out));
    cudaCheck(cudaFree(d_p));
    free(h);
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
