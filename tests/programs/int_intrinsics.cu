// tests/programs/int_intrinsics.cu: integer intrinsics against a host model
// written from the CUDA Math API's definitions: __popc(ll), __clz(ll) (of 0:
// 32/64), __ffs(ll) (of 0: 0), __brev(ll), __byte_perm, __funnelshift_l/r and
// the clamping lc/rc forms, __mulhi/__umulhi/__mul64hi/__umul64hi,
// __mul24/__umul24, __sad/__usad, __hadd/__rhadd/__uhadd/__urhadd, __dp4a,
// __vadd4/__vsub2/__vminu4/__vmaxs2 (SIMD), shifts by a run-time amount of
// 32 or more (PTX clamps: 0, or the sign for >>), INT_MIN / -1. The GPU's
// answers for integer division by zero are printed (not modelled).
// Its compute_90 PTX has add.s16x2 and max.s16x2 (sm_90's packed 16-bit
// integer SIMD, for __vsub2/__vmaxs2), which the emulator cannot decode yet,
// so cudojo builds it with compute_80 PTX beside the SASS, as tagged here.
// cudojo: emu-ptx=80
#include <climits>
#include <cstdint>
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

const int NV = 8, COLS = 32;

__global__ void ints(const unsigned *u, const unsigned long long *w, long long *out) {
    int i = threadIdx.x;
    if (i >= NV) return;
    unsigned x = u[i], y = u[(i + 3) % NV];
    unsigned long long X = w[i], Y = w[(i + 5) % NV];
    long long *o = out + i * COLS;
    int sh = (int)(y % 40);  // 0..39: some shifts past the width
    o[0] = __popc(x);
    o[1] = __popcll(X);
    o[2] = __clz((int)x);
    o[3] = __clzll((long long)X);
    o[4] = __ffs((int)x);
    o[5] = __ffsll((long long)X);
    o[6] = __brev(x);
    o[7] = (long long)__brevll(X);
    o[8] = __byte_perm(x, y, 0x5140);
    o[9] = __byte_perm(x, y, y & 0x7777);
    o[10] = __funnelshift_l(x, y, sh);
    o[11] = __funnelshift_r(x, y, sh);
    o[12] = __funnelshift_lc(x, y, sh);
    o[13] = __funnelshift_rc(x, y, sh);
    o[14] = __mulhi((int)x, (int)y);
    o[15] = __umulhi(x, y);
    o[16] = __mul64hi((long long)X, (long long)Y);
    o[17] = (long long)__umul64hi(X, Y);
    o[18] = __mul24((int)x, (int)y);
    o[19] = __umul24(x, y);
    o[20] = __sad((int)x, (int)y, 7u);
    o[21] = __usad(x, y, 7u);
    o[22] = __hadd((int)x, (int)y) * 4LL + __rhadd((int)x, (int)y);
    o[23] = (long long)__uhadd(x, y) << 32 | __urhadd(x, y);
    o[24] = __dp4a((int)x, (int)y, 1000);
    o[25] = (long long)__vadd4(x, y) << 32 | __vsub2(x, y);
    o[26] = (long long)__vminu4(x, y) << 32 | __vmaxs2(x, y);
    o[27] = (long long)(x << sh) << 32 | (x >> sh);
    o[28] = (int)x >> sh;
    o[29] = (long long)(X << (sh + 30));
    o[30] = (int)x / ((int)y | 1);
    o[31] = (int)x % ((int)y | 1);
}

__global__ void div_zero(const int *v, long long *out) {
    int a = v[0], z = v[1], m = v[2];
    unsigned ua = (unsigned)a;
    long long la = a;
    out[0] = a / z;
    out[1] = -a / z;
    out[2] = a % z;
    out[3] = ua / (unsigned)z;
    out[4] = ua % (unsigned)z;
    out[5] = la / z;
    out[6] = la % z;
    out[7] = INT_MIN / m;  // m is -1
    out[8] = INT_MIN % m;
}

// ---- the host model ----
static int popc(unsigned long long v) { int n = 0; for (; v; v &= v - 1) n++; return n; }
static int clz(unsigned long long v, int bits) { int n = 0; for (int b = bits - 1; b >= 0 && !(v >> b & 1); b--) n++; return n; }
static int ffs_model(unsigned long long v) { for (int b = 0; b < 64; b++) if (v >> b & 1) return b + 1; return 0; }
static unsigned long long brev(unsigned long long v, int bits) {
    unsigned long long r = 0;
    for (int b = 0; b < bits; b++) if (v >> b & 1) r |= 1ULL << (bits - 1 - b);
    return r;
}
static unsigned byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long bytes = (unsigned long long)y << 32 | x;
    unsigned r = 0;
    for (int k = 0; k < 4; k++) r |= (unsigned)(bytes >> (8 * ((s >> (4 * k)) & 7)) & 0xff) << (8 * k);
    return r;
}
static unsigned funnel(unsigned lo, unsigned hi, unsigned n, bool left, bool clamp) {
    n = clamp ? (n > 32 ? 32 : n) : n & 31;
    unsigned long long v = (unsigned long long)hi << 32 | lo;
    return left ? (unsigned)((v << n) >> 32) : (unsigned)(v >> n);
}
static unsigned long long umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static long long mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static int sx24(unsigned v) { return (int)(v << 8) >> 8; }
static long long model(unsigned x, unsigned y, unsigned long long X, unsigned long long Y, int c) {
    int sh = (int)(y % 40);
    int dp = 1000;
    switch (c) {
    case 0: return popc(x);
    case 1: return popc(X);
    case 2: return clz(x, 32);
    case 3: return clz(X, 64);
    case 4: return ffs_model(x);
    case 5: return ffs_model(X);
    case 6: return brev(x, 32);
    case 7: return (long long)brev(X, 64);
    case 8: return byte_perm(x, y, 0x5140);
    case 9: return byte_perm(x, y, y & 0x7777);
    case 10: return funnel(x, y, (unsigned)sh, true, false);
    case 11: return funnel(x, y, (unsigned)sh, false, false);
    case 12: return funnel(x, y, (unsigned)sh, true, true);
    case 13: return funnel(x, y, (unsigned)sh, false, true);
    case 14: return (int)(((long long)(int)x * (int)y) >> 32);
    case 15: return (unsigned)(((unsigned long long)x * y) >> 32);
    case 16: return mul64hi((long long)X, (long long)Y);
    case 17: return (long long)umul64hi(X, Y);
    case 18: return (int)((long long)sx24(x) * sx24(y));
    case 19: return (unsigned)((unsigned long long)(x & 0xffffff) * (y & 0xffffff));
    case 20: return (unsigned)(llabs((long long)(int)x - (int)y) + 7);
    case 21: return (unsigned)((x > y ? x - y : y - x) + 7);
    case 22: return (((long long)(int)x + (int)y) >> 1) * 4 + (((long long)(int)x + (int)y + 1) >> 1);
    case 23: return (long long)(((unsigned long long)x + y) >> 1) << 32 | (((unsigned long long)x + y + 1) >> 1);
    case 24:
        for (int k = 0; k < 4; k++) dp += (signed char)(x >> (8 * k)) * (signed char)(y >> (8 * k));
        return dp;
    case 25: {
        unsigned a4 = 0, s2 = 0;
        for (int k = 0; k < 4; k++) a4 |= ((x >> (8 * k)) + (y >> (8 * k)) & 0xff) << (8 * k);
        for (int k = 0; k < 2; k++) s2 |= ((x >> (16 * k)) - (y >> (16 * k)) & 0xffff) << (16 * k);
        return (long long)a4 << 32 | s2;
    }
    case 26: {
        unsigned d4 = 0, m2 = 0;
        for (int k = 0; k < 4; k++) {
            int p = (int)(x >> (8 * k) & 0xff), q = (int)(y >> (8 * k) & 0xff);
            d4 |= (unsigned)(p < q ? p : q) << (8 * k);
        }
        for (int k = 0; k < 2; k++) {
            short p = (short)(x >> (16 * k)), q = (short)(y >> (16 * k));
            m2 |= (unsigned)(unsigned short)(p > q ? p : q) << (16 * k);
        }
        return (long long)d4 << 32 | m2;
    }
    case 27: return (long long)(sh >= 32 ? 0u : x << sh) << 32 | (sh >= 32 ? 0u : x >> sh);
    case 28: return sh >= 32 ? ((int)x < 0 ? -1 : 0) : (int)x >> sh;
    case 29: return sh + 30 >= 64 ? 0 : (long long)(X << (sh + 30));
    case 30: return (int)(unsigned)((long long)(int)x / ((int)y | 1));  // INT_MIN / -1 wraps to INT_MIN
    case 31: return (int)((long long)(int)x % ((int)y | 1));
    }
    return 0;
}

int main(void) {
    unsigned hu[NV] = {0u, 1u, 0x80000000u, 0xdeadbeefu, 0x12345678u, 0xffffffffu, 0x00ff00f0u, 0x7fffff21u};
    unsigned long long hw[NV] = {0ULL, 1ULL, 0x8000000000000000ULL, 0xdeadbeefcafef00dULL, 0x0123456789abcdefULL,
                                 ~0ULL, 0x00000000ffff0000ULL, 0x7fffffffffffffffULL};
    unsigned *d_u;
    unsigned long long *d_w;
    long long *d_o, got[NV * COLS];
    cudaCheck(cudaMalloc(&d_u, sizeof hu));
    cudaCheck(cudaMalloc(&d_w, sizeof hw));
    cudaCheck(cudaMalloc(&d_o, sizeof got));
    cudaCheck(cudaMemcpy(d_u, hu, sizeof hu, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(d_w, hw, sizeof hw, cudaMemcpyHostToDevice));
    ints<<<1, 32>>>(d_u, d_w, d_o);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(got, d_o, sizeof got, cudaMemcpyDeviceToHost));
    const char *names[COLS] = {"__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__brev", "__brevll",
                               "__byte_perm 0x5140", "__byte_perm y", "__funnelshift_l", "__funnelshift_r",
                               "__funnelshift_lc", "__funnelshift_rc", "__mulhi", "__umulhi", "__mul64hi",
                               "__umul64hi", "__mul24", "__umul24", "__sad", "__usad", "__hadd/__rhadd",
                               "__uhadd/__urhadd", "__dp4a", "__vadd4/__vsub2", "__vminu4/__vmaxs2",
                               "<< >> by 0..39", "int >> by 0..39", "64-bit << by 30..69", "int /", "int %"};
    int bad = 0;
    for (int c = 0; c < COLS; c++) {
        int cb = 0;
        for (int i = 0; i < NV; i++) {
            long long want = model(hu[i], hu[(i + 3) % NV], hw[i], hw[(i + 5) % NV], c);
            if (got[i * COLS + c] != want) {
                if (!cb) printf("  %s, input %d: got %#llx, the model says %#llx\n", names[c], i,
                                (unsigned long long)got[i * COLS + c], (unsigned long long)want);
                cb++;
            }
        }
        printf("%-26s input 3: %#-20llx mismatches %d\n", names[c], (unsigned long long)got[3 * COLS + c], cb);
        bad += cb;
    }
    int hv[3] = {7, 0, -1}, *d_v;
    long long dz[9];
    cudaCheck(cudaMalloc(&d_v, sizeof hv));
    cudaCheck(cudaMemcpy(d_v, hv, sizeof hv, cudaMemcpyHostToDevice));
    div_zero<<<1, 1>>>(d_v, d_o);
    cudaCheck(cudaGetLastError());
    cudaCheck(cudaMemcpy(dz, d_o, sizeof dz, cudaMemcpyDeviceToHost));
    printf("7/0 = %lld, -7/0 = %lld, 7%%0 = %lld, 7u/0 = %lld, 7u%%0 = %lld, 7LL/0 = %lld, 7LL%%0 = %lld\n", dz[0], dz[1],
           dz[2], dz[3], dz[4], dz[5], dz[6]);
    printf("INT_MIN / -1 = %lld, INT_MIN %% -1 = %lld\n", dz[7], dz[8]);
    cudaCheck(cudaFree(d_u));
    cudaCheck(cudaFree(d_w));
    cudaCheck(cudaFree(d_o));
    cudaCheck(cudaFree(d_v));
    printf("%s\n", bad == 0 ? "PASS" : "FAIL");
    return bad == 0 ? 0 : 1;
}
