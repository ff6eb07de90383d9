// tests/conformance/int_ops.cu: integer arithmetic families (add/sub, mul.lo/hi/wide,
// mad, div/rem, min/max/abs/neg, logic, shifts incl. PTX's clamped shift amounts).
// Every kernel writes op k for element i to out[k * n + i]; the CPU references
// in tests/conformance/cases_int.h compute the same expressions in C.
// Arithmetic that could overflow is done in unsigned types (wraps, no UB).

extern "C" __global__ void int_addsub(const int *a, const int *b, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i];
    out[0 * n + i] = (int)(x + y);
    out[1 * n + i] = (int)(x - y);
    out[2 * n + i] = (int)(0u - x);
    out[3 * n + i] = (int)(x + 12345u);
    out[4 * n + i] = (int)(y - 1u);
}

extern "C" __global__ void int_addsub64(const long long *a, const long long *b, long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long x = a[i], y = b[i];
    out[0 * n + i] = (long long)(x + y);
    out[1 * n + i] = (long long)(x - y);
    out[2 * n + i] = (long long)(0ull - x);
    out[3 * n + i] = (long long)(x + 0x100000001ull);
}

extern "C" __global__ void int_mul(const int *a, const int *b, int *out, long long *wide, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = x, uy = y;
    out[0 * n + i] = (int)(ux * uy);
    out[1 * n + i] = __mulhi(x, y);
    out[2 * n + i] = (int)__umulhi(ux, uy);
    out[3 * n + i] = (int)(ux * 7u);
    wide[0 * n + i] = (long long)x * (long long)y;
    wide[1 * n + i] = (long long)((unsigned long long)ux * (unsigned long long)uy);
}

extern "C" __global__ void int_mul64(const long long *a, const long long *b, long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = a[i], y = b[i];
    unsigned long long ux = x, uy = y;
    out[0 * n + i] = (long long)(ux * uy);
    out[1 * n + i] = __mul64hi(x, y);
    out[2 * n + i] = (long long)__umul64hi(ux, uy);
}

extern "C" __global__ void int_mad(const int *a, const int *b, const int *c, int *out, long long *wide, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i], z = c[i];
    unsigned ux = x, uy = y, uz = z;
    out[0 * n + i] = (int)(ux * uy + uz);
    out[1 * n + i] = (int)(ux * 3u + uy * 5u + uz);
    wide[0 * n + i] = (long long)x * (long long)y + (long long)z;
    wide[1 * n + i] = (long long)((unsigned long long)ux * uy + (unsigned long long)uz);
}

extern "C" __global__ void int_divrem(const int *a, const int *b, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = x, uy = y;
    bool ok = y != 0 && !(x == (int)0x80000000 && y == -1);
    out[0 * n + i] = ok ? x / y : 0;
    out[1 * n + i] = ok ? x % y : 0;
    out[2 * n + i] = uy ? (int)(ux / uy) : 0;
    out[3 * n + i] = uy ? (int)(ux % uy) : 0;
    // Division by constants becomes mul.hi + shifts.
    out[4 * n + i] = x / 7;
    out[5 * n + i] = x % 10;
    out[6 * n + i] = (int)(ux / 3u);
    out[7 * n + i] = x / -5;
}

extern "C" __global__ void int_divrem64(const long long *a, const long long *b, long long *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long x = a[i], y = b[i];
    unsigned long long ux = x, uy = y;
    bool ok = y != 0 && !(x == (long long)0x8000000000000000ull && y == -1);
    out[0 * n + i] = ok ? x / y : 0;
    out[1 * n + i] = ok ? x % y : 0;
    out[2 * n + i] = uy ? (long long)(ux / uy) : 0;
    out[3 * n + i] = uy ? (long long)(ux % uy) : 0;
}

extern "C" __global__ void int_minmax(const int *a, const int *b, int *out, long long *out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    unsigned ux = x, uy = y;
    out[0 * n + i] = min(x, y);
    out[1 * n + i] = max(x, y);
    out[2 * n + i] = (int)umin(ux, uy);
    out[3 * n + i] = (int)umax(ux, uy);
    out[4 * n + i] = abs(x);
    long long lx = (long long)x * 65537, ly = (long long)y * 3;
    out64[0 * n + i] = llmin(lx, ly);
    out64[1 * n + i] = llmax(lx, ly);
    out64[2 * n + i] = (long long)ullmin((unsigned long long)lx, (unsigned long long)ly);
    out64[3 * n + i] = (long long)ullmax((unsigned long long)lx, (unsigned long long)ly);
    out64[4 * n + i] = llabs(lx);
}

extern "C" __global__ void int_logic(const int *a, const int *b, int *out, long long *out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    out[0 * n + i] = x & y;
    out[1 * n + i] = x | y;
    out[2 * n + i] = x ^ y;
    out[3 * n + i] = ~x;
    out[4 * n + i] = !x;
    out[5 * n + i] = (x & 0xff00ff00) | (~y & 0x00ff00ff);
    long long lx = ((long long)x << 32) | (unsigned)y, ly = ((long long)y << 32) ^ (unsigned)x;
    out64[0 * n + i] = lx & ly;
    out64[1 * n + i] = lx | ly;
    out64[2 * n + i] = lx ^ ly;
    out64[3 * n + i] = ~lx;
}

extern "C" __global__ void int_shift(const int *a, const int *b, int *out, long long *out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i];
    unsigned s = (unsigned)b[i] & 31u, s64 = (unsigned)b[i] & 63u;
    unsigned ux = x;
    out[0 * n + i] = (int)(ux << s);
    out[1 * n + i] = x >> s;
    out[2 * n + i] = (int)(ux >> s);
    out[3 * n + i] = (int)(ux << 5) ^ (x >> 3);
    long long lx = ((long long)x << 32) | (unsigned)b[i];
    out64[0 * n + i] = (long long)((unsigned long long)lx << s64);
    out64[1 * n + i] = lx >> s64;
    out64[2 * n + i] = (long long)((unsigned long long)lx >> s64);
}

// PTX clamps shift amounts larger than the width (x86 masks them): inline asm so
// the amounts really reach the instruction.
extern "C" __global__ void int_shift_clamp(const int *a, const int *b, int *out, long long *out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], s = (unsigned)b[i];
    unsigned r0, r1, r2;
    asm("shl.b32 %0, %1, %2;" : "=r"(r0) : "r"(x), "r"(s));
    asm("shr.u32 %0, %1, %2;" : "=r"(r1) : "r"(x), "r"(s));
    asm("shr.s32 %0, %1, %2;" : "=r"(r2) : "r"(x), "r"(s));
    out[0 * n + i] = (int)r0;
    out[1 * n + i] = (int)r1;
    out[2 * n + i] = (int)r2;
    unsigned long long lx = ((unsigned long long)x << 32) | (x ^ 0x5a5a5a5au), q0, q1, q2;
    asm("shl.b64 %0, %1, %2;" : "=l"(q0) : "l"(lx), "r"(s));
    asm("shr.u64 %0, %1, %2;" : "=l"(q1) : "l"(lx), "r"(s));
    asm("shr.s64 %0, %1, %2;" : "=l"(q2) : "l"(lx), "r"(s));
    out64[0 * n + i] = (long long)q0;
    out64[1 * n + i] = (long long)q1;
    out64[2 * n + i] = (long long)q2;
}
