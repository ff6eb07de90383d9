// tests/conformance/mma_probe.cu: captures how the GPU's tensor cores round,
// for fitting the emulator's model (kernels/emu/emu_mma.c) offline with
// tools/mma_fit.c. Standalone (no cudojo code):
//   nvcc -arch=sm_90 -O2 -o mma_probe tests/conformance/mma_probe.cu
//   ./mma_probe DIR            (runs on the GPU, writes DIR)
//   ./mma_probe --inputs DIR   (no GPU: the inputs, D all zero bits)
// For each operation (mma.sync m16n8k16 f16/bf16, m16n8k8 f16/tf32, f16 and
// f32 accumulators; wmma m16n16k16 f16/bf16, m16n16k8 tf32) it runs a set of
// tiles (one warp each) of designed and random inputs and writes, per op,
// OP.a (tiles x M x K, row-major), OP.b (tiles x K x N, row-major), OP.c and
// OP.d (tiles x M x N, row-major) as raw little-endian bits (f16/bf16: 2
// bytes, tf32/f32: 4), OP.kinds (one line per tile: "TILE KIND"), and
// DIR/manifest.txt: "op NAME M N K ATYPE CTYPE DTYPE TILES" per op.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <string>
#include <vector>
using namespace nvcuda;

enum { TY_F16, TY_BF16, TY_TF32, TY_F32 };
static const char *TY_NAME[] = {"f16", "bf16", "tf32", "f32"};
static int ty_bytes(int t) { return t == TY_F16 || t == TY_BF16 ? 2 : 4; }

// ---- kernels: one warp per tile; global arrays row-major per tile -------------------

__device__ unsigned ld_pair(const unsigned short *p, int i0, int i1) {
    return (unsigned)p[i0] | ((unsigned)p[i1] << 16);
}

// m16n8k16, f16 or bf16 inputs (bf = 1), f32 accumulators.
__global__ void k_mma16816_f32(const unsigned short *A, const unsigned short *B, const float *C, float *D, int bf) {
    int tile = blockIdx.x, lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const unsigned short *a = A + tile * 256, *b = B + tile * 128;
    const float *c = C + tile * 128;
    unsigned ra[4], rb[2];
    for (int i = 0; i < 4; i++) {
        int e = 2 * i, row = g + 8 * ((e >> 1) & 1), col = 2 * t + 8 * (e >> 2);
        ra[i] = ld_pair(a, row * 16 + col, row * 16 + col + 1);
    }
    for (int i = 0; i < 2; i++) {
        int k = 2 * t + 8 * i;
        rb[i] = ld_pair(b, k * 8 + g, (k + 1) * 8 + g);
    }
    float rc[4], rd[4];
    for (int i = 0; i < 4; i++) rc[i] = c[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    if (!bf)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%10,%11,%12,%13};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%10,%11,%12,%13};"
                     : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    for (int i = 0; i < 4; i++) D[tile * 128 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = rd[i];
}

// m16n8k16 f16 inputs, f16 accumulators.
__global__ void k_mma16816_f16(const unsigned short *A, const unsigned short *B, const unsigned short *C,
                               unsigned short *D) {
    int tile = blockIdx.x, lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const unsigned short *a = A + tile * 256, *b = B + tile * 128, *c = C + tile * 128;
    unsigned ra[4], rb[2], rc[2], rd[2];
    for (int i = 0; i < 4; i++) {
        int e = 2 * i, row = g + 8 * ((e >> 1) & 1), col = 2 * t + 8 * (e >> 2);
        ra[i] = ld_pair(a, row * 16 + col, row * 16 + col + 1);
    }
    for (int i = 0; i < 2; i++) {
        int k = 2 * t + 8 * i;
        rb[i] = ld_pair(b, k * 8 + g, (k + 1) * 8 + g);
    }
    for (int i = 0; i < 2; i++) rc[i] = ld_pair(c, (g + 8 * i) * 8 + 2 * t, (g + 8 * i) * 8 + 2 * t + 1);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(rd[0]), "=r"(rd[1])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), "r"(rc[1]));
    for (int i = 0; i < 2; i++) {
        D[tile * 128 + (g + 8 * i) * 8 + 2 * t] = (unsigned short)(rd[i] & 0xffff);
        D[tile * 128 + (g + 8 * i) * 8 + 2 * t + 1] = (unsigned short)(rd[i] >> 16);
    }
}

// m16n8k8 f16 inputs, f32 accumulators.
__global__ void k_mma1688_f16(const unsigned short *A, const unsigned short *B, const float *C, float *D) {
    int tile = blockIdx.x, lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const unsigned short *a = A + tile * 128, *b = B + tile * 64;
    const float *c = C + tile * 128;
    unsigned ra[2], rb;
    for (int i = 0; i < 2; i++) ra[i] = ld_pair(a, (g + 8 * i) * 8 + 2 * t, (g + 8 * i) * 8 + 2 * t + 1);
    rb = ld_pair(b, (2 * t) * 8 + g, (2 * t + 1) * 8 + g);
    float rc[4], rd[4];
    for (int i = 0; i < 4; i++) rc[i] = c[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%7,%8,%9,%10};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(rb), "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    for (int i = 0; i < 4; i++) D[tile * 128 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = rd[i];
}

// m16n8k8 tf32 inputs (raw f32 bits), f32 accumulators.
__global__ void k_mma1688_tf32(const unsigned *A, const unsigned *B, const float *C, float *D) {
    int tile = blockIdx.x, lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    const unsigned *a = A + tile * 128, *b = B + tile * 64;
    const float *c = C + tile * 128;
    unsigned ra[4], rb[2];
    for (int i = 0; i < 4; i++) ra[i] = a[(g + 8 * (i & 1)) * 8 + t + 4 * (i >> 1)];
    for (int i = 0; i < 2; i++) rb[i] = b[(t + 4 * i) * 8 + g];
    float rc[4], rd[4];
    for (int i = 0; i < 4; i++) rc[i] = c[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    for (int i = 0; i < 4; i++) D[tile * 128 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = rd[i];
}

// wmma m16n16k16 f16 inputs, f32 accumulators (A, B, C, D row-major).
__global__ void k_wmma_f16_f32(const __half *A, const __half *B, const float *C, float *D) {
    int tile = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, A + tile * 256, 16);
    wmma::load_matrix_sync(fb, B + tile * 256, 16);
    wmma::load_matrix_sync(fc, C + tile * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D + tile * 256, fc, 16, wmma::mem_row_major);
}

// wmma m16n16k16 f16 inputs, f16 accumulators.
__global__ void k_wmma_f16_f16(const __half *A, const __half *B, const __half *C, __half *D) {
    int tile = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, __half> fc;
    wmma::load_matrix_sync(fa, A + tile * 256, 16);
    wmma::load_matrix_sync(fb, B + tile * 256, 16);
    wmma::load_matrix_sync(fc, C + tile * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D + tile * 256, fc, 16, wmma::mem_row_major);
}

// wmma m16n16k16 bf16 inputs, f32 accumulators.
__global__ void k_wmma_bf16_f32(const __nv_bfloat16 *A, const __nv_bfloat16 *B, const float *C, float *D) {
    int tile = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, A + tile * 256, 16);
    wmma::load_matrix_sync(fb, B + tile * 256, 16);
    wmma::load_matrix_sync(fc, C + tile * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D + tile * 256, fc, 16, wmma::mem_row_major);
}

// wmma m16n16k8 tf32 inputs (raw f32 bits, not converted), f32 accumulators.
__global__ void k_wmma_tf32_f32(const float *A, const float *B, const float *C, float *D) {
    int tile = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, A + tile * 128, 8);
    wmma::load_matrix_sync(fb, B + tile * 128, 16);
    wmma::load_matrix_sync(fc, C + tile * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(D + tile * 256, fc, 16, wmma::mem_row_major);
}

// ---- host: inputs ---------------------------------------------------------------------

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double urand(void) { return (double)(rnd() >> 11) * 0x1p-53; }   // [0, 1)
static int irand(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }
static double sgn(void) { return (rnd() & 1) ? -1.0 : 1.0; }
// +-[1,2) * 2^e, e uniform in [elo, ehi]
static double rexp(int elo, int ehi) { return sgn() * ldexp(1.0 + urand(), irand(elo, ehi)); }
static double rexp_pos(int elo, int ehi) { return ldexp(1.0 + urand(), irand(elo, ehi)); }

static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

// Round-to-nearest-even of a double to f16 bits (exact for what the designs use).
static uint16_t to_f16(double v) {
    __half h = __double2half(v);
    __half_raw r = h;
    return r.x;
}
static uint16_t to_bf16(double v) {
    __nv_bfloat16 h = __double2bfloat16(v);
    __nv_bfloat16_raw r = h;
    return r.x;
}

// One operation's description and its buffers (raw bits).
struct Op {
    const char *name;
    int M, N, K, at, ct, dt;
    std::vector<unsigned char> a, b, c, d;
    std::vector<std::string> kinds;
    int tiles;
};

// Value ranges of an input type: exponents of the normal numbers.
struct Range { int emin, emax; };
static Range range_of(int t) {
    if (t == TY_F16) return {-14, 15};
    return {-126, 127};
}

// A tile in value space; tf32 inputs may carry low bits (raw[] marks f32 bit patterns).
struct Tile {
    int M, N, K;
    double a[16 * 16], b[16 * 16], c[16 * 16];
    bool rawa, rawb;             // a/b hold f32 values to store bit-exact (tf32)
};

static void put(std::vector<unsigned char> &buf, int t, double v, bool raw) {
    unsigned char bytes[4];
    if (t == TY_F16) { uint16_t h = to_f16(v); memcpy(bytes, &h, 2); }
    else if (t == TY_BF16) { uint16_t h = to_bf16(v); memcpy(bytes, &h, 2); }
    else {
        float f = (float)v;
        uint32_t u = f2u(f);
        if (t == TY_TF32 && !raw) u = (u + 0x1000u) & 0xffffe000u;   // tf32-representable unless raw
        if (t == TY_TF32 && !raw && ((f2u(f) & 0x7f800000u) == 0x7f800000u)) u = f2u(f);
        memcpy(bytes, &u, 4);
    }
    buf.insert(buf.end(), bytes, bytes + ty_bytes(t));
}

static void op_add(Op &op, const Tile &tl, const char *kind) {
    for (int i = 0; i < op.M * op.K; i++) put(op.a, op.at, tl.a[i], tl.rawa);
    for (int i = 0; i < op.K * op.N; i++) put(op.b, op.at, tl.b[i], tl.rawb);
    for (int i = 0; i < op.M * op.N; i++) put(op.c, op.ct, tl.c[i], true);
    op.kinds.push_back(kind);
    op.tiles++;
}

#define A_(i, k) tl.a[(i) * K + (k)]
#define B_(k, j) tl.b[(k) * N + (j)]
#define C_(i, j) tl.c[(i) * N + (j)]

static void tile_init(Tile &tl, const Op &op) {
    memset(&tl, 0, sizeof tl);
    tl.M = op.M; tl.N = op.N; tl.K = op.K;
}

// The designs. Each fills one tile; `v` selects a variant.
static void gen_tiles(Op &op) {
    int M = op.M, N = op.N, K = op.K;
    Range R = range_of(op.at);
    bool half = op.at == TY_F16;
    bool c16 = op.ct == TY_F16;
    Tile tl;
    // 1. random in [-1,1], C = 0 / random
    for (int v = 0; v < 24; v++) {
        tile_init(tl, op);
        for (int i = 0; i < M * K; i++) tl.a[i] = 2 * urand() - 1;
        for (int i = 0; i < K * N; i++) tl.b[i] = 2 * urand() - 1;
        for (int i = 0; i < M * N; i++) tl.c[i] = v < 8 ? 0.0 : (c16 ? (4 * urand() - 2) : (8 * urand() - 4));
        op_add(op, tl, v < 8 ? "rand_unit_c0" : "rand_unit");
    }
    // 2. positive random (no cancellation)
    for (int v = 0; v < 8; v++) {
        tile_init(tl, op);
        for (int i = 0; i < M * K; i++) tl.a[i] = urand();
        for (int i = 0; i < K * N; i++) tl.b[i] = urand();
        for (int i = 0; i < M * N; i++) tl.c[i] = v < 4 ? 0.0 : urand() * 4;
        op_add(op, tl, "rand_pos");
    }
    // 3. random with spread exponents: +-[1,2)*2^[-s,s]
    for (int v = 0; v < 24; v++) {
        int s = v < 8 ? 4 : v < 16 ? 8 : (half ? 12 : 30);
        tile_init(tl, op);
        for (int i = 0; i < M * K; i++) tl.a[i] = rexp(-s, s);
        for (int i = 0; i < K * N; i++) tl.b[i] = rexp(-s, s);
        for (int i = 0; i < M * N; i++) tl.c[i] = (v & 1) ? 0.0 : rexp(c16 ? -s / 2 : -2 * s, c16 ? s / 2 : 2 * s);
        op_add(op, tl, v < 8 ? "rand_exp4" : v < 16 ? "rand_exp8" : "rand_expwide");
    }
    // 4. one large product at position p (row i: p = (i + v) % K), small products elsewhere
    //    with bits far below the large one's f32 ulp; columns vary C.
    for (int v = 0; v < 16; v++) {
        tile_init(tl, op);
        int big = half ? 7 : 20, small = half ? -7 : -20;
        for (int i = 0; i < M; i++) {
            int p = (i + v) % K;
            bool same_sign = (v & 1) != 0;
            for (int k = 0; k < K; k++)
                A_(i, k) = k == p ? rexp_pos(big, big) : (same_sign ? rexp_pos(small - 1, small + 1) : rexp(small - 1, small + 1));
        }
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++) B_(k, j) = (v & 2) ? 1.0 : rexp_pos(-2, 2);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int w = j % 4;
                C_(i, j) = w == 0 ? 0.0 : w == 1 ? rexp(half ? -6 : -18, half ? -2 : -12)
                                        : w == 2 ? rexp(half ? 8 : 21, half ? 10 : 23)
                                                 : -(double)ldexp(1.0, (half ? 7 : 20) + 1);
                if (c16) C_(i, j) = w == 2 ? rexp(8, 10) : w == 3 ? -256.0 : C_(i, j);
            }
        op_add(op, tl, "big_at_p");
    }
    // 5. +2^E at p, -2^E at r, 2^e (tiny) at q, zero elsewhere; B = +-1 or powers of two per column;
    //    C per column. Which terms are summed together shows in whether the tiny one survives.
    for (int v = 0; v < 32; v++) {
        tile_init(tl, op);
        int E = half ? 14 : 40, e = half ? -12 : -40;
        for (int i = 0; i < M; i++) {
            int p = irand(0, K - 1), r, q;
            do r = irand(0, K - 1); while (r == p);
            do q = irand(0, K - 1); while (q == p || q == r);
            for (int k = 0; k < K; k++) A_(i, k) = 0.0;
            A_(i, p) = ldexp(1.0, E);
            A_(i, r) = -ldexp(1.0, E) * (v & 1 ? 1.0 : (1.0 + ldexp(1.0, half ? -10 : -7)));
            A_(i, q) = (v & 2 ? 1.5 : 1.0) * ldexp(1.0, e + irand(0, half ? 8 : 20));
        }
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++) B_(k, j) = j < 4 ? 1.0 : ldexp(1.0, j % 4 - 2);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int w = (j + v / 4) % 4;
                C_(i, j) = w == 0 ? 0.0 : w == 1 ? ldexp(1.0, half ? -14 : -45) : w == 2 ? -ldexp(1.0, E) : ldexp(3.0, E - 2);
                if (c16 && w >= 2) C_(i, j) = w == 2 ? -1024.0 : 768.0;
            }
        op_add(op, tl, "cancel_tiny");
    }
    // 6. many small terms of one sign plus one large: does truncation act per term or on the sum?
    for (int v = 0; v < 8; v++) {
        tile_init(tl, op);
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++)
                A_(i, k) = k == (i + v) % K ? (v & 1 ? -1.0 : 1.0) * ldexp(1.0, half ? 4 : 10)
                                            : ldexp(1.0 + ldexp((double)irand(0, 1023), -10), half ? -10 : -16 + (i % 4));
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++) B_(k, j) = ldexp(1.0 + ldexp((double)irand(0, 1023), -10), -(j % 4));
        for (int i = 0; i < M * N; i++) tl.c[i] = (i & 1) ? 0.0 : (c16 ? 1.0 : ldexp(1.0, 2));
        op_add(op, tl, "many_small");
    }
    // 7. exact cancellation (sum zero), signs of zero results, zero inputs
    for (int v = 0; v < 4; v++) {
        tile_init(tl, op);
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++) {
                if (i < 4) A_(i, k) = (k % 2 ? -1.0 : 1.0) * ldexp(1.0, k / 2);   // pairs cancel
                else if (i < 8) A_(i, k) = (k < K / 2 ? 1.0 : -1.0) * ldexp(1.0, k % (K / 2)); // halves cancel
                else if (i < 12) A_(i, k) = (i & 1) ? -0.0 : 0.0;
                else A_(i, k) = rexp(-3, 3);
            }
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++) B_(k, j) = 1.0;
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int w = (j + v) % 4;
                C_(i, j) = w == 0 ? 0.0 : w == 1 ? -0.0 : w == 2 ? 1.0 : -1.0;
            }
        if (v >= 2)   // B -0 / negative
            for (int k = 0; k < K; k++)
                for (int j = 0; j < N; j++) B_(k, j) = (j & 1) ? -1.0 : -0.0;
        op_add(op, tl, "zeros_signs");
    }
    // 8. subnormals: f16 subnormal inputs; bf16/tf32 products and sums in f32's subnormal range;
    //    subnormal C.
    for (int v = 0; v < 12; v++) {
        tile_init(tl, op);
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++) {
                if (half) A_(i, k) = (i + k + v) % 3 == 0 ? sgn() * ldexp((double)irand(1, 1023), -24) : rexp(-14, -8);
                else A_(i, k) = (i + k + v) % 3 == 0 ? sgn() * ldexp((double)irand(1, 127), -133) : rexp(-75, -60);
            }
        for (int k = 0; k < K; k++)
            for (int j = 0; j < N; j++) B_(k, j) = half ? ((j + k) % 2 ? rexp(-14, -10) : rexp(0, 4)) : rexp(-75, -60);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int w = (i + j) % 4;
                if (c16) C_(i, j) = w == 0 ? 0.0 : w == 1 ? sgn() * ldexp((double)irand(1, 1023), -24) : rexp(-14, -12);
                else C_(i, j) = w == 0 ? 0.0 : w == 1 ? sgn() * ldexp((double)irand(1, 1 << 22), -149)
                                                      : w == 2 ? rexp(-126, -120) : rexp(half ? -40 : -140, half ? -30 : -130);
            }
        op_add(op, tl, "subnormal");
    }
    // 9. large results: f16 accumulators overflowing; bf16/tf32 products overflowing; inf/nan inputs
    for (int v = 0; v < 4; v++) {
        tile_init(tl, op);
        for (int i = 0; i < M * K; i++) tl.a[i] = rexp(-2, 2);
        for (int i = 0; i < K * N; i++) tl.b[i] = rexp(-2, 2);
        for (int i = 0; i < M * N; i++) tl.c[i] = rexp(-2, 2);
        for (int k = 0; k < K; k++) {
            A_(0, k) = half ? 60000.0 : ldexp(1.5, 126);
            A_(1, k) = half ? -60000.0 : ldexp(1.5, 100);
        }
        A_(2, v % K) = INFINITY;
        A_(3, v % K) = -INFINITY;
        A_(4, v % K) = NAN;
        A_(5, 0) = INFINITY; A_(5, K - 1) = -INFINITY;
        for (int j = 0; j < N; j++) {
            B_(v % K, j) = j == 0 ? 0.0 : B_(v % K, j);   // inf * 0
            C_(6, j) = j % 3 == 0 ? INFINITY : j % 3 == 1 ? -INFINITY : NAN;
            C_(7, j) = c16 ? 65504.0 : ldexp(1.9, 127);
        }
        for (int k = 0; k < K; k++) A_(7, k) = half ? 256.0 : ldexp(1.0, 120);
        op_add(op, tl, "special");
    }
    // 10. tf32 only: raw f32 inputs with low mantissa bits set (are they truncated or rounded?)
    if (op.at == TY_TF32)
        for (int v = 0; v < 16; v++) {
            tile_init(tl, op);
            tl.rawa = tl.rawb = true;
            for (int i = 0; i < M * K; i++) tl.a[i] = (float)(v < 8 ? 2 * urand() - 1 : rexp(-8, 8));
            for (int i = 0; i < K * N; i++) tl.b[i] = (float)(v < 8 ? 2 * urand() - 1 : rexp(-8, 8));
            for (int i = 0; i < M * N; i++) tl.c[i] = (v & 1) ? 0.0 : (float)(2 * urand() - 1);
            op_add(op, tl, "tf32_raw");
        }
    // 11. more random tiles with random C at the products' scale
    for (int v = 0; v < 32; v++) {
        tile_init(tl, op);
        int s = v % 4 == 0 ? 0 : v % 4 == 1 ? 3 : v % 4 == 2 ? 6 : 10;
        for (int i = 0; i < M * K; i++) tl.a[i] = sgn() * ldexp(urand(), irand(-s, 0));
        for (int i = 0; i < K * N; i++) tl.b[i] = sgn() * ldexp(urand(), irand(-s, 0));
        for (int i = 0; i < M * N; i++) tl.c[i] = sgn() * ldexp(urand(), irand(-2 * s, 2));
        op_add(op, tl, "rand_mixed");
    }
    (void)R;
}

// ---- host: running --------------------------------------------------------------------

static bool g_nogpu = false;

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "mma_probe: %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static void *dev_copy(const std::vector<unsigned char> &v) {
    void *p;
    CK(cudaMalloc(&p, v.size()));
    CK(cudaMemcpy(p, v.data(), v.size(), cudaMemcpyHostToDevice));
    return p;
}

static void run_op(Op &op, int which) {
    size_t dbytes = (size_t)op.tiles * op.M * op.N * ty_bytes(op.dt);
    op.d.assign(dbytes, 0);
    if (g_nogpu) return;
    void *A = dev_copy(op.a), *B = dev_copy(op.b), *C = dev_copy(op.c), *D;
    CK(cudaMalloc(&D, dbytes));
    CK(cudaMemset(D, 0xff, dbytes));
    typedef unsigned short us;
    switch (which) {
    case 0: k_mma16816_f32<<<op.tiles, 32>>>((us *)A, (us *)B, (float *)C, (float *)D, 0); break;
    case 1: k_mma16816_f32<<<op.tiles, 32>>>((us *)A, (us *)B, (float *)C, (float *)D, 1); break;
    case 2: k_mma16816_f16<<<op.tiles, 32>>>((us *)A, (us *)B, (us *)C, (us *)D); break;
    case 3: k_mma1688_f16<<<op.tiles, 32>>>((us *)A, (us *)B, (float *)C, (float *)D); break;
    case 4: k_mma1688_tf32<<<op.tiles, 32>>>((unsigned *)A, (unsigned *)B, (float *)C, (float *)D); break;
    case 5: k_wmma_f16_f32<<<op.tiles, 32>>>((__half *)A, (__half *)B, (float *)C, (float *)D); break;
    case 6: k_wmma_f16_f16<<<op.tiles, 32>>>((__half *)A, (__half *)B, (__half *)C, (__half *)D); break;
    case 7: k_wmma_bf16_f32<<<op.tiles, 32>>>((__nv_bfloat16 *)A, (__nv_bfloat16 *)B, (float *)C, (float *)D); break;
    case 8: k_wmma_tf32_f32<<<op.tiles, 32>>>((float *)A, (float *)B, (float *)C, (float *)D); break;
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(op.d.data(), D, dbytes, cudaMemcpyDeviceToHost));
    CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(C)); CK(cudaFree(D));
}

static void write_file(const char *dir, const char *name, const char *ext, const void *p, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "mma_probe: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

int main(int argc, char **argv) {
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--inputs")) g_nogpu = true;
        else dir = argv[i];
    }
    if (!dir) {
        fprintf(stderr, "usage: mma_probe [--inputs] DIR\n");
        return 2;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mma_probe: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    if (!g_nogpu) {
        cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, 0));
        printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
    }
    struct { const char *name; int M, N, K, at, ct, dt; } ops[] = {
        {"mma_m16n8k16_f16_f32", 16, 8, 16, TY_F16, TY_F32, TY_F32},
        {"mma_m16n8k16_bf16_f32", 16, 8, 16, TY_BF16, TY_F32, TY_F32},
        {"mma_m16n8k16_f16_f16", 16, 8, 16, TY_F16, TY_F16, TY_F16},
        {"mma_m16n8k8_f16_f32", 16, 8, 8, TY_F16, TY_F32, TY_F32},
        {"mma_m16n8k8_tf32_f32", 16, 8, 8, TY_TF32, TY_F32, TY_F32},
        {"wmma_m16n16k16_f16_f32", 16, 16, 16, TY_F16, TY_F32, TY_F32},
        {"wmma_m16n16k16_f16_f16", 16, 16, 16, TY_F16, TY_F16, TY_F16},
        {"wmma_m16n16k16_bf16_f32", 16, 16, 16, TY_BF16, TY_F32, TY_F32},
        {"wmma_m16n16k8_tf32_f32", 16, 16, 8, TY_TF32, TY_F32, TY_F32},
    };
    char mpath[4096];
    snprintf(mpath, sizeof mpath, "%s/manifest.txt", dir);
    FILE *mf = fopen(mpath, "w");
    if (!mf) {
        fprintf(stderr, "mma_probe: cannot write %s: %s\n", mpath, strerror(errno));
        return 1;
    }
    fprintf(mf, "# mma_probe capture%s\n", g_nogpu ? " (--inputs: no GPU, D is zero)" : "");
    for (int w = 0; w < (int)(sizeof ops / sizeof ops[0]); w++) {
        Op op;
        op.name = ops[w].name;
        op.M = ops[w].M; op.N = ops[w].N; op.K = ops[w].K;
        op.at = ops[w].at; op.ct = ops[w].ct; op.dt = ops[w].dt;
        op.tiles = 0;
        g_rng = 0x9e3779b97f4a7c15ull * (uint64_t)(w + 1);
        gen_tiles(op);
        run_op(op, w);
        write_file(dir, op.name, "a", op.a.data(), op.a.size());
        write_file(dir, op.name, "b", op.b.data(), op.b.size());
        write_file(dir, op.name, "c", op.c.data(), op.c.size());
        write_file(dir, op.name, "d", op.d.data(), op.d.size());
        std::string kinds;
        for (int t = 0; t < op.tiles; t++) kinds += std::to_string(t) + " " + op.kinds[t] + "\n";
        write_file(dir, op.name, "kinds", kinds.data(), kinds.size());
        fprintf(mf, "op %s %d %d %d %s %s %s %d\n", op.name, op.M, op.N, op.K, TY_NAME[op.at], TY_NAME[op.ct],
                TY_NAME[op.dt], op.tiles);
        printf("%s: %d tiles\n", op.name, op.tiles);
    }
    if (fclose(mf) != 0) {
        fprintf(stderr, "mma_probe: cannot write %s\n", mpath);
        return 1;
    }
    printf("wrote %s\n", dir);
    return 0;
}
