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

// Integer forms nvcc seldom emits, through inline asm (found by tests/difffuzz):
// mul24/mad24 .lo/.hi in .u32 (24-bit operands zero-extended) and .s32, the
// .sat forms (add/sub.sat.s32, mad.hi.sat.s32, mad24.hi.sat.s32: the exact
// result clamped), and cvt to a signed type narrower than its register
// (sign-extended to the register, as the ISA's destination rule says).
#define ASM2(name, ins) \
    __device__ __forceinline__ unsigned name(int x, int y) { \
        unsigned r; asm(ins " %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y)); return r; }
#define ASM3(name, ins) \
    __device__ __forceinline__ unsigned name(int x, int y, int z) { \
        unsigned r; asm(ins " %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(z)); return r; }
ASM2(mul24_lo_u, "mul24.lo.u32") ASM2(mul24_hi_u, "mul24.hi.u32")
ASM2(mul24_lo_s, "mul24.lo.s32") ASM2(mul24_hi_s, "mul24.hi.s32")
ASM3(mad24_lo_u, "mad24.lo.u32") ASM3(mad24_hi_u, "mad24.hi.u32")
ASM3(mad24_hi_s, "mad24.hi.s32") ASM3(mad24_hi_sat_s, "mad24.hi.sat.s32")
ASM2(add_sat_s, "add.sat.s32") ASM2(sub_sat_s, "sub.sat.s32") ASM3(mad_hi_sat_s, "mad.hi.sat.s32")
extern "C" __global__ void int_asm_forms(const int *a, const int *b, const int *c, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i], z = c[i];
    unsigned k = 0;
    out[k++ * n + i] = mul24_lo_u(x, y);
    out[k++ * n + i] = mul24_hi_u(x, y);
    out[k++ * n + i] = mul24_lo_s(x, y);
    out[k++ * n + i] = mul24_hi_s(x, y);
    out[k++ * n + i] = mad24_lo_u(x, y, z);
    out[k++ * n + i] = mad24_hi_u(x, y, z);
    out[k++ * n + i] = mad24_hi_s(x, y, z);
    out[k++ * n + i] = mad24_hi_sat_s(x, y, z);
    out[k++ * n + i] = add_sat_s(x, y);
    out[k++ * n + i] = sub_sat_s(x, y);
    out[k++ * n + i] = mad_hi_sat_s(x, y, z);
    unsigned s8, s16;
    unsigned short h;
    asm("cvt.s8.s32 %0, %1;" : "=r"(s8) : "r"(x));
    asm("cvt.sat.s16.s32 %0, %1;" : "=r"(s16) : "r"(y));
    asm("{ .reg .s16 t; cvt.rzi.s8.f32 t, %1; mov.b16 %0, t; }" : "=h"(h) : "f"((float)z * 0.001f));
    out[k++ * n + i] = s8;
    out[k++ * n + i] = s16;
    out[k++ * n + i] = h;
}
