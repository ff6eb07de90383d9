/* tests/difffuzz/prelude.cuh: the helpers every generated program calls,
 * pasted at the top of it by gen.py so that a program is one file.
 *
 * Each helper is __host__ __device__: on the device it is the CUDA intrinsic
 * or operator under test (so the emulator runs the PTX instruction a GPU
 * would), on the host a plain C++ definition of what CUDA documents. Where
 * C leaves a result undefined (division by zero, INT_MIN / -1, shifts by the
 * width, out-of-range float-to-int conversion) the helper defines it the
 * same way on both sides, or the host side spells out what the device does.
 * The host side is compiled with -ffp-contract=off and without fast math;
 * directed rounding on the host switches the FPU's mode around volatile
 * operands so the compiler cannot move the operation out of it. */
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define H __host__ __device__ __forceinline__
#define HN __host__ __device__ __noinline__

/* ---- bits ------------------------------------------------------------------ */
H uint32_t fz_fbits(float x) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(x);
#else
    uint32_t u; memcpy(&u, &x, 4); return u;
#endif
}
H uint64_t fz_dbits(double x) {
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u; memcpy(&u, &x, 8); return u;
#endif
}
H float fz_bitsf(uint32_t u) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float x; memcpy(&x, &u, 4); return x;
#endif
}
H double fz_bitsd(uint64_t u) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x; memcpy(&x, &u, 8); return x;
#endif
}
/* A float's bits with every NaN made one NaN (PTX does not promise payloads). */
H uint32_t fz_fbits_canon(float x) { return x != x ? 0x7fffffffu : fz_fbits(x); }
H uint64_t fz_dbits_canon(double x) { return x != x ? 0x7fffffffffffffffull : fz_dbits(x); }

/* ---- integer arithmetic without undefined behaviour ---------------------------- */
H int32_t fz_div_i32(int32_t a, int32_t b) { return b == 0 ? a : b == -1 ? (int32_t)(0u - (uint32_t)a) : a / b; }
H int32_t fz_rem_i32(int32_t a, int32_t b) { return b == 0 ? a : b == -1 ? 0 : a % b; }
H uint32_t fz_div_u32(uint32_t a, uint32_t b) { return b == 0 ? a : a / b; }
H uint32_t fz_rem_u32(uint32_t a, uint32_t b) { return b == 0 ? a : a % b; }
H int64_t fz_div_i64(int64_t a, int64_t b) { return b == 0 ? a : b == -1 ? (int64_t)(0ull - (uint64_t)a) : a / b; }
H int64_t fz_rem_i64(int64_t a, int64_t b) { return b == 0 ? a : b == -1 ? 0 : a % b; }
H uint64_t fz_div_u64(uint64_t a, uint64_t b) { return b == 0 ? a : a / b; }
H uint64_t fz_rem_u64(uint64_t a, uint64_t b) { return b == 0 ? a : a % b; }
template <class T> H T fz_min(T a, T b) { return a < b ? a : b; }
template <class T> H T fz_max(T a, T b) { return a > b ? a : b; }

/* ---- CUDA integer intrinsics ------------------------------------------------------ */
H int32_t fz_popc(uint32_t x) {
#ifdef __CUDA_ARCH__
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}
H int32_t fz_popcll(uint64_t x) {
#ifdef __CUDA_ARCH__
    return __popcll(x);
#else
    return __builtin_popcountll(x);
#endif
}
H int32_t fz_clz(int32_t x) {
#ifdef __CUDA_ARCH__
    return __clz(x);
#else
    return x == 0 ? 32 : __builtin_clz((uint32_t)x);
#endif
}
H int32_t fz_clzll(int64_t x) {
#ifdef __CUDA_ARCH__
    return __clzll(x);
#else
    return x == 0 ? 64 : __builtin_clzll((uint64_t)x);
#endif
}
H int32_t fz_ffs(int32_t x) {
#ifdef __CUDA_ARCH__
    return __ffs(x);
#else
    return __builtin_ffs(x);
#endif
}
H int32_t fz_ffsll(int64_t x) {
#ifdef __CUDA_ARCH__
    return __ffsll(x);
#else
    return __builtin_ffsll(x);
#endif
}
H uint32_t fz_brev(uint32_t x) {
#ifdef __CUDA_ARCH__
    return __brev(x);
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
#endif
}
H uint64_t fz_brevll(uint64_t x) {
#ifdef __CUDA_ARCH__
    return __brevll(x);
#else
    uint64_t r = 0;
    for (int i = 0; i < 64; i++) r |= ((x >> i) & 1ull) << (63 - i);
    return r;
#endif
}
/* Selector nibbles 0-7 only: CUDA documents __byte_perm with bits [2:0]. */
H uint32_t fz_byte_perm(uint32_t x, uint32_t y, uint32_t s) {
    s &= 0x7777u;
#ifdef __CUDA_ARCH__
    return __byte_perm(x, y, s);
#else
    uint64_t v = (uint64_t)y << 32 | x;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) r |= (uint32_t)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
#endif
}
H uint32_t fz_funnelshift_l(uint32_t lo, uint32_t hi, uint32_t sh) {
#ifdef __CUDA_ARCH__
    return __funnelshift_l(lo, hi, sh);
#else
    uint64_t v = (uint64_t)hi << 32 | lo;
    return (uint32_t)((v << (sh & 31)) >> 32);
#endif
}
H uint32_t fz_funnelshift_lc(uint32_t lo, uint32_t hi, uint32_t sh) {
#ifdef __CUDA_ARCH__
    return __funnelshift_lc(lo, hi, sh);
#else
    uint64_t v = (uint64_t)hi << 32 | lo;
    return (uint32_t)((v << (sh > 32 ? 32 : sh)) >> 32);
#endif
}
H uint32_t fz_funnelshift_r(uint32_t lo, uint32_t hi, uint32_t sh) {
#ifdef __CUDA_ARCH__
    return __funnelshift_r(lo, hi, sh);
#else
    uint64_t v = (uint64_t)hi << 32 | lo;
    return (uint32_t)(v >> (sh & 31));
#endif
}
H uint32_t fz_funnelshift_rc(uint32_t lo, uint32_t hi, uint32_t sh) {
#ifdef __CUDA_ARCH__
    return __funnelshift_rc(lo, hi, sh);
#else
    uint64_t v = (uint64_t)hi << 32 | lo;
    return (uint32_t)(v >> (sh > 32 ? 32 : sh));
#endif
}
H int32_t fz_mulhi(int32_t a, int32_t b) {
#ifdef __CUDA_ARCH__
    return __mulhi(a, b);
#else
    return (int32_t)(((int64_t)a * b) >> 32);
#endif
}
H uint32_t fz_umulhi(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __umulhi(a, b);
#else
    return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}
H int64_t fz_mul64hi(int64_t a, int64_t b) {
#ifdef __CUDA_ARCH__
    return __mul64hi(a, b);
#else
    return (int64_t)(((__int128)a * b) >> 64);
#endif
}
H uint64_t fz_umul64hi(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}
H int32_t fz_mul24(int32_t a, int32_t b) {
#ifdef __CUDA_ARCH__
    return __mul24(a, b);
#else
    int64_t x = (int32_t)((uint32_t)a << 8) >> 8, y = (int32_t)((uint32_t)b << 8) >> 8;
    return (int32_t)(uint32_t)(uint64_t)(x * y);
#endif
}
H uint32_t fz_umul24(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __umul24(a, b);
#else
    return (a & 0xffffffu) * (b & 0xffffffu);
#endif
}
H uint32_t fz_sad(int32_t a, int32_t b, uint32_t c) {
#ifdef __CUDA_ARCH__
    return __sad(a, b, c);
#else
    return (a > b ? (uint32_t)a - (uint32_t)b : (uint32_t)b - (uint32_t)a) + c;
#endif
}
H uint32_t fz_usad(uint32_t a, uint32_t b, uint32_t c) {
#ifdef __CUDA_ARCH__
    return __usad(a, b, c);
#else
    return (a > b ? a - b : b - a) + c;
#endif
}
H int32_t fz_abs(int32_t x) {
#ifdef __CUDA_ARCH__
    return abs(x);
#else
    return x < 0 ? (int32_t)(0u - (uint32_t)x) : x;
#endif
}
H int64_t fz_llabs(int64_t x) {
#ifdef __CUDA_ARCH__
    return llabs(x);
#else
    return x < 0 ? (int64_t)(0ull - (uint64_t)x) : x;
#endif
}
H int32_t fz_hadd(int32_t a, int32_t b) {
#ifdef __CUDA_ARCH__
    return __hadd(a, b);
#else
    return (int32_t)(((int64_t)a + b) >> 1);
#endif
}
H int32_t fz_rhadd(int32_t a, int32_t b) {
#ifdef __CUDA_ARCH__
    return __rhadd(a, b);
#else
    return (int32_t)(((int64_t)a + b + 1) >> 1);
#endif
}
H uint32_t fz_uhadd(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __uhadd(a, b);
#else
    return (uint32_t)(((uint64_t)a + b) >> 1);
#endif
}
H uint32_t fz_urhadd(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __urhadd(a, b);
#else
    return (uint32_t)(((uint64_t)a + b + 1) >> 1);
#endif
}
H int32_t fz_dp4a(int32_t a, int32_t b, int32_t c) {
#ifdef __CUDA_ARCH__
    return __dp4a(a, b, c);
#else
    uint32_t r = (uint32_t)c;
    for (int i = 0; i < 4; i++) r += (uint32_t)((int32_t)(int8_t)(a >> (8 * i)) * (int32_t)(int8_t)(b >> (8 * i)));
    return (int32_t)r;
#endif
}
H uint32_t fz_dp4a_u(uint32_t a, uint32_t b, uint32_t c) {
#ifdef __CUDA_ARCH__
    return __dp4a(a, b, c);
#else
    uint32_t r = c;
    for (int i = 0; i < 4; i++) r += ((a >> (8 * i)) & 0xff) * ((b >> (8 * i)) & 0xff);
    return r;
#endif
}
H int32_t fz_dp2a_lo(int32_t a, int32_t b, int32_t c) {
#ifdef __CUDA_ARCH__
    return __dp2a_lo(a, b, c);
#else
    uint32_t r = (uint32_t)c;
    for (int i = 0; i < 2; i++) r += (uint32_t)((int32_t)(int16_t)(a >> (16 * i)) * (int32_t)(int8_t)(b >> (8 * i)));
    return (int32_t)r;
#endif
}
H uint32_t fz_vadd4(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __vadd4(a, b);
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 8) r |= (((a >> i) + (b >> i)) & 0xffu) << i;
    return r;
#endif
}
H uint32_t fz_vsub2(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __vsub2(a, b);
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 16) r |= (((a >> i) - (b >> i)) & 0xffffu) << i;
    return r;
#endif
}
H uint32_t fz_vmaxu4(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __vmaxu4(a, b);
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 8) { uint32_t x = (a >> i) & 0xff, y = (b >> i) & 0xff; r |= (x > y ? x : y) << i; }
    return r;
#endif
}
H uint32_t fz_vmins2(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __vmins2(a, b);
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 16) { int16_t x = (int16_t)(a >> i), y = (int16_t)(b >> i); r |= (uint32_t)(uint16_t)(x < y ? x : y) << i; }
    return r;
#endif
}
H uint32_t fz_vabsdiffu4(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __vabsdiffu4(a, b);
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 8) { uint32_t x = (a >> i) & 0xff, y = (b >> i) & 0xff; r |= (x > y ? x - y : y - x) << i; }
    return r;
#endif
}
H uint32_t fz_vcmpgts2(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __vcmpgts2(a, b);
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 16) { int16_t x = (int16_t)(a >> i), y = (int16_t)(b >> i); r |= (x > y ? 0xffffu : 0u) << i; }
    return r;
#endif
}
H uint32_t fz_vaddss2(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
    return __vaddss2(a, b);
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 16) {
        int32_t s = (int32_t)(int16_t)(a >> i) + (int32_t)(int16_t)(b >> i);
        s = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
        r |= (uint32_t)(uint16_t)s << i;
    }
    return r;
#endif
}

/* ---- float functions: on the host, CUDA's definitions ------------------------------ */
/* min/max of +0 and -0 may return either (PTX does not say): adding +0 makes both +0. */
H float fz_fminf(float a, float b) {
#ifdef __CUDA_ARCH__
    return fminf(a, b) + 0.0f;
#else
    float r = a != a ? b : b != b ? a : a < b ? a : b;
    return r + 0.0f;
#endif
}
H float fz_fmaxf(float a, float b) {
#ifdef __CUDA_ARCH__
    return fmaxf(a, b) + 0.0f;
#else
    float r = a != a ? b : b != b ? a : a > b ? a : b;
    return r + 0.0f;
#endif
}
H double fz_fmin(double a, double b) {
#ifdef __CUDA_ARCH__
    return fmin(a, b) + 0.0;
#else
    double r = a != a ? b : b != b ? a : a < b ? a : b;
    return r + 0.0;
#endif
}
H double fz_fmax(double a, double b) {
#ifdef __CUDA_ARCH__
    return fmax(a, b) + 0.0;
#else
    double r = a != a ? b : b != b ? a : a > b ? a : b;
    return r + 0.0;
#endif
}
H float fz_saturatef(float x) {
#ifdef __CUDA_ARCH__
    return __saturatef(x);
#else
    return x != x ? 0.0f : x <= 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;   /* [+0, 1]: -0 gives +0 */
#endif
}
/* fmodf with a subnormal divisor is left out: CUDA's fmodf divides with
 * div.approx.f32, which the ISA bounds only for |b| in [2^-126, 2^126]; the
 * emulator's a * (1/b) overflows there (fmodf(2^-149, 2^-149) = inf). Until an
 * H200 says what it gives, such a divisor reads as FLT_MIN on both sides. */
H float fz_fmodf(float a, float b) {
    if (b != 0.0f && fabsf(b) < 1.17549435e-38f) b = copysignf(1.17549435e-38f, b);
    return fmodf(a, b);
}
H float fz_ldexpf(float x, int32_t n) { return ldexpf(x, n % 300); }
H double fz_ldexp(double x, int32_t n) { return ldexp(x, n % 2200); }

/* Directed rounding: the device's intrinsic; the host's operation in that mode. */
#ifndef __CUDA_ARCH__
#define FZ_HOST_ROUND(mode, T, expr) do { \
        int old_ = fegetround(); fesetround(mode); \
        volatile T r_ = (expr); \
        fesetround(old_); return r_; } while (0)
#endif
#ifdef __CUDA_ARCH__
#define DEVORHOST(devexpr, mode, T, op) return devexpr;
#else
#define DEVORHOST(devexpr, mode, T, op) volatile T x = a, y = b; FZ_HOST_ROUND(mode, T, op);
#endif

#define FZ_ROUNDED(name, T, dev, op) \
    H T fz_##name##_rz(T a, T b) { DEVORHOST(dev##_rz(a, b), FE_TOWARDZERO, T, op) } \
    H T fz_##name##_ru(T a, T b) { DEVORHOST(dev##_ru(a, b), FE_UPWARD, T, op) } \
    H T fz_##name##_rd(T a, T b) { DEVORHOST(dev##_rd(a, b), FE_DOWNWARD, T, op) }
FZ_ROUNDED(fadd, float, __fadd, x + y)
FZ_ROUNDED(fsub, float, __fsub, x - y)
FZ_ROUNDED(fmul, float, __fmul, x * y)
FZ_ROUNDED(fdiv, float, __fdiv, x / y)
FZ_ROUNDED(dadd, double, __dadd, x + y)
FZ_ROUNDED(dsub, double, __dsub, x - y)
FZ_ROUNDED(dmul, double, __dmul, x * y)
FZ_ROUNDED(ddiv, double, __ddiv, x / y)

#ifdef __CUDA_ARCH__
#define DEVORHOST1(devexpr, mode, T, op) return devexpr;
#define DEVORHOST3(devexpr, mode, T, op) return devexpr;
#else
#define DEVORHOST1(devexpr, mode, T, op) volatile T x = a; FZ_HOST_ROUND(mode, T, op);
#define DEVORHOST3(devexpr, mode, T, op) volatile T x = a, y = b, z = c; FZ_HOST_ROUND(mode, T, op);
#endif
#define FZ_ROUNDED1(name, T, dev, op) \
    H T fz_##name##_rz(T a) { DEVORHOST1(dev##_rz(a), FE_TOWARDZERO, T, op) } \
    H T fz_##name##_ru(T a) { DEVORHOST1(dev##_ru(a), FE_UPWARD, T, op) } \
    H T fz_##name##_rd(T a) { DEVORHOST1(dev##_rd(a), FE_DOWNWARD, T, op) }
#define FZ_ROUNDED3(name, T, dev, op) \
    H T fz_##name##_rz(T a, T b, T c) { DEVORHOST3(dev##_rz(a, b, c), FE_TOWARDZERO, T, op) } \
    H T fz_##name##_ru(T a, T b, T c) { DEVORHOST3(dev##_ru(a, b, c), FE_UPWARD, T, op) } \
    H T fz_##name##_rd(T a, T b, T c) { DEVORHOST3(dev##_rd(a, b, c), FE_DOWNWARD, T, op) }
FZ_ROUNDED1(fsqrt, float, __fsqrt, sqrtf(x))
FZ_ROUNDED1(frcp, float, __frcp, 1.0f / x)
FZ_ROUNDED1(dsqrt, double, __dsqrt, sqrt(x))
FZ_ROUNDED1(drcp, double, __drcp, 1.0 / x)
FZ_ROUNDED3(fmaf, float, __fmaf, fmaf(x, y, z))
FZ_ROUNDED3(fma, double, __fma, fma(x, y, z))

/* Conversions to float and double in a rounding mode (T: the source type). */
#ifdef __CUDA_ARCH__
#define DEVORHOSTCVT(devexpr, mode, T, R) return devexpr;
#else
#define DEVORHOSTCVT(devexpr, mode, T, R) volatile T x = a; FZ_HOST_ROUND(mode, R, (R)x);
#endif
#define FZ_CVT_TO(name, T, R, dev) \
    H R fz_##name##_rn(T a) { DEVORHOSTCVT(dev##_rn(a), FE_TONEAREST, T, R) } \
    H R fz_##name##_rz(T a) { DEVORHOSTCVT(dev##_rz(a), FE_TOWARDZERO, T, R) } \
    H R fz_##name##_ru(T a) { DEVORHOSTCVT(dev##_ru(a), FE_UPWARD, T, R) } \
    H R fz_##name##_rd(T a) { DEVORHOSTCVT(dev##_rd(a), FE_DOWNWARD, T, R) }
FZ_CVT_TO(int2float, int32_t, float, __int2float)
FZ_CVT_TO(uint2float, uint32_t, float, __uint2float)
FZ_CVT_TO(ll2float, int64_t, float, __ll2float)
FZ_CVT_TO(ull2float, uint64_t, float, __ull2float)
FZ_CVT_TO(ll2double, int64_t, double, __ll2double)
FZ_CVT_TO(ull2double, uint64_t, double, __ull2double)
FZ_CVT_TO(double2float, double, float, __double2float)

/* Float to integer: the device saturates; on the host the value is rounded in
 * the mode, then clamped. NaNs are left out (the ISA leaves the result open;
 * an H200 gives 0 from f32 to 32 bits, the sign bit alone from f64 and for
 * 64-bit results): a NaN reads as 0 on both sides. */
#define FZ_RND_rn(x) std::rint(x)
#define FZ_RND_rz(x) std::trunc(x)
#define FZ_RND_ru(x) std::ceil(x)
#define FZ_RND_rd(x) std::floor(x)
#define FZ_F2I(name, F, R, lo, hi, dev, m) \
    H R fz_##name##_##m(F a) { \
        DEVORHOSTF2I(dev##_##m(a), R, lo, hi, m) }
#ifdef __CUDA_ARCH__
#define DEVORHOSTF2I(devexpr, R, lo, hi, m) if (a != a) return 0; return devexpr;
#else
#define DEVORHOSTF2I(devexpr, R, lo, hi, m) \
    if (a != a) return 0; \
    double r = FZ_RND_##m((double)a); \
    if (r <= (double)(lo)) return (R)(lo); \
    if (r >= (double)(hi)) return (R)(hi); \
    return (R)r;
#endif
#define FZ_F2I_ALL(name, F, R, lo, hi, dev) \
    FZ_F2I(name, F, R, lo, hi, dev, rn) FZ_F2I(name, F, R, lo, hi, dev, rz) \
    FZ_F2I(name, F, R, lo, hi, dev, ru) FZ_F2I(name, F, R, lo, hi, dev, rd)
FZ_F2I_ALL(float2int, float, int32_t, INT32_MIN, INT32_MAX, __float2int)
FZ_F2I_ALL(float2uint, float, uint32_t, 0, UINT32_MAX, __float2uint)
FZ_F2I_ALL(double2int, double, int32_t, INT32_MIN, INT32_MAX, __double2int)
FZ_F2I_ALL(double2uint, double, uint32_t, 0, UINT32_MAX, __double2uint)

/* 64-bit results: the bounds are not doubles, so compare with 2^63 and 2^64. */
#ifdef __CUDA_ARCH__
#define FZ_F2L(name, F, R, dev, m) H R fz_##name##_##m(F a) { if (a != a) return 0; return dev##_##m(a); }
#else
#define FZ_F2L(name, F, R, dev, m) H R fz_##name##_##m(F a) { \
        if (a != a) return 0; \
        long double r = FZ_RND_##m((long double)a); \
        if ((R)-1 < (R)0) { \
            if (r < -9223372036854775808.0L) return (R)INT64_MIN; \
            if (r >= 9223372036854775808.0L) return (R)INT64_MAX; \
        } else { \
            if (r <= 0) return 0; \
            if (r >= 18446744073709551616.0L) return (R)UINT64_MAX; \
        } \
        return (R)r; }
#endif
#define FZ_F2L_ALL(name, F, R, dev) \
    FZ_F2L(name, F, R, dev, rn) FZ_F2L(name, F, R, dev, rz) FZ_F2L(name, F, R, dev, ru) FZ_F2L(name, F, R, dev, rd)
FZ_F2L_ALL(float2ll, float, int64_t, __float2ll)
FZ_F2L_ALL(float2ull, float, uint64_t, __float2ull)
FZ_F2L_ALL(double2ll, double, int64_t, __double2ll)
FZ_F2L_ALL(double2ull, double, uint64_t, __double2ull)

/* C casts from float: the device's cvt.rzi saturates, C leaves it undefined
 * (NaN: as above). */
#ifdef __CUDA_ARCH__
#define FZ_CAST(name, F, R, lo, hi) H R fz_##name(F a) { if (a != a) return 0; return (R)a; }
#else
#define FZ_CAST(name, F, R, lo, hi) H R fz_##name(F a) { \
        if (a != a) return 0; \
        double r = trunc((double)a); \
        if (r <= (double)(lo)) return (R)(lo); \
        if (r >= (double)(hi)) return (R)(hi); \
        return (R)r; }
#endif
FZ_CAST(f2i32, float, int32_t, INT32_MIN, INT32_MAX)
FZ_CAST(f2u32, float, uint32_t, 0, UINT32_MAX)
FZ_CAST(d2i32, double, int32_t, INT32_MIN, INT32_MAX)
FZ_CAST(d2u32, double, uint32_t, 0, UINT32_MAX)
H int64_t fz_f2i64(float a) { return fz_float2ll_rz(a); }
H uint64_t fz_f2u64(float a) { return fz_float2ull_rz(a); }
H int64_t fz_d2i64(double a) { return fz_double2ll_rz(a); }
H uint64_t fz_d2u64(double a) { return fz_double2ull_rz(a); }
/* Narrow integer results go through the 32-bit conversion, as C would not. */
H uint16_t fz_f2u16(float a) { return (uint16_t)fz_f2u32(a); }
H uint8_t fz_f2u8(float a) { return (uint8_t)fz_f2u32(a); }
H uint16_t fz_d2u16(double a) { return (uint16_t)fz_d2u32(a); }
H uint8_t fz_d2u8(double a) { return (uint8_t)fz_d2u32(a); }

/* The sign of a NaN is not promised either (the device's NaNs are positive,
 * x86's negative): signbit and copysign read a NaN's sign as +. */
H bool fz_signbitf(float x) { return x == x && signbit(x); }
H bool fz_signbit(double x) { return x == x && signbit(x); }
H float fz_copysignf(float a, float b) { return copysignf(a, b != b ? 1.0f : b); }
H double fz_copysign(double a, double b) { return copysign(a, b != b ? 1.0 : b); }
