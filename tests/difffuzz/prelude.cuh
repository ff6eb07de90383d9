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
/* mul24.lo.s32 written out: libdevice's __mul24 multiplies with "no signed
 * wrap", so cicc takes __mul24(x, x) for non-negative and zero-extends it,
 * where the low 32 bits of the 48-bit product wrap (seed 45). */
H int32_t fz_mul24(int32_t a, int32_t b) {
#ifdef __CUDA_ARCH__
    int32_t r;
    asm("mul24.lo.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
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
/* fmin/fmax are min/max.f32/.f64: a NaN operand gives the other one, and
 * "+0.0 > -0.0" (the ISA), which C's fminf leaves open. */
H float fz_fminf(float a, float b) {
#ifdef __CUDA_ARCH__
    return fminf(a, b);
#else
    return a != a ? b : b != b ? a : a == b ? (signbit(a) ? a : b) : a < b ? a : b;
#endif
}
H float fz_fmaxf(float a, float b) {
#ifdef __CUDA_ARCH__
    return fmaxf(a, b);
#else
    return a != a ? b : b != b ? a : a == b ? (signbit(a) ? b : a) : a > b ? a : b;
#endif
}
H double fz_fmin(double a, double b) {
#ifdef __CUDA_ARCH__
    return fmin(a, b);
#else
    return a != a ? b : b != b ? a : a == b ? (signbit(a) ? a : b) : a < b ? a : b;
#endif
}
H double fz_fmax(double a, double b) {
#ifdef __CUDA_ARCH__
    return fmax(a, b);
#else
    return a != a ? b : b != b ? a : a == b ? (signbit(a) ? b : a) : a > b ? a : b;
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
H int16_t fz_f2i16(float a) { return (int16_t)fz_f2i32(a); }
H int8_t fz_f2i8(float a) { return (int8_t)fz_f2i32(a); }
H int16_t fz_d2i16(double a) { return (int16_t)fz_d2i32(a); }
H int8_t fz_d2i8(double a) { return (int8_t)fz_d2i32(a); }
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

/* ---- PTX instructions nvcc seldom emits, through inline asm --------------------------- */
/* The host side is the instruction's semantics in the PTX ISA. */
#ifdef __CUDA_ARCH__
#define FZ_ASM2(name, R, T, ins, rc, tc) \
    H R fz_##name(T a, T b) { R d; asm(ins " %0, %1, %2;" : "=" rc(d) : tc(a), tc(b)); return d; }
#define FZ_ASM3(name, R, T, U, ins, rc, tc, uc) \
    H R fz_##name(T a, T b, U c) { R d; asm(ins " %0, %1, %2, %3;" : "=" rc(d) : tc(a), tc(b), uc(c)); return d; }
#else
#define FZ_ASM2(name, R, T, ins, rc, tc) H R fz_##name(T a, T b) { return fz_host_##name(a, b); }
#define FZ_ASM3(name, R, T, U, ins, rc, tc, uc) H R fz_##name(T a, T b, U c) { return fz_host_##name(a, b, c); }
#endif
#define R_ "r"
#define L_ "l"
#define F_ "f"
#define D_ "d"

static inline int64_t fz_s24(uint32_t x) { return (int64_t)(int32_t)(x << 8) >> 8; }
static inline uint64_t fz_u24(uint32_t x) { return x & 0xffffffu; }
static inline uint32_t fz_host_mul24lo_s(int32_t a, int32_t b) { return (uint32_t)(uint64_t)(fz_s24(a) * fz_s24(b)); }
static inline uint32_t fz_host_mul24hi_s(int32_t a, int32_t b) { return (uint32_t)((uint64_t)(fz_s24(a) * fz_s24(b)) >> 16); }
static inline uint32_t fz_host_mul24lo_u(uint32_t a, uint32_t b) { return (uint32_t)(fz_u24(a) * fz_u24(b)); }
static inline uint32_t fz_host_mul24hi_u(uint32_t a, uint32_t b) { return (uint32_t)((fz_u24(a) * fz_u24(b)) >> 16); }
static inline uint32_t fz_host_mad24lo_s(int32_t a, int32_t b, int32_t c) { return fz_host_mul24lo_s(a, b) + (uint32_t)c; }
static inline uint32_t fz_host_mad24hi_s(int32_t a, int32_t b, int32_t c) { return fz_host_mul24hi_s(a, b) + (uint32_t)c; }
static inline uint32_t fz_host_mad24lo_u(uint32_t a, uint32_t b, uint32_t c) { return fz_host_mul24lo_u(a, b) + c; }
static inline uint32_t fz_host_mad24hi_u(uint32_t a, uint32_t b, uint32_t c) { return fz_host_mul24hi_u(a, b) + c; }
static inline int64_t fz_sat32(int64_t x) { return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x; }
static inline int32_t fz_host_mad24hisat_s(int32_t a, int32_t b, int32_t c) {
    return (int32_t)fz_sat32((int64_t)(int32_t)fz_host_mul24hi_s(a, b) + c);
}
static inline int32_t fz_host_addsat_s(int32_t a, int32_t b) { return (int32_t)fz_sat32((int64_t)a + b); }
static inline int32_t fz_host_subsat_s(int32_t a, int32_t b) { return (int32_t)fz_sat32((int64_t)a - b); }
static inline int32_t fz_host_madhi_s(int32_t a, int32_t b, int32_t c) { return (int32_t)((uint32_t)(((int64_t)a * b) >> 32) + (uint32_t)c); }
static inline uint32_t fz_host_madhi_u(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)(((uint64_t)a * b) >> 32) + c; }
static inline int32_t fz_host_madhisat_s(int32_t a, int32_t b, int32_t c) { return (int32_t)fz_sat32((((int64_t)a * b) >> 32) + c); }
static inline int64_t fz_host_madwide_s(int32_t a, int32_t b, int64_t c) { return (int64_t)((uint64_t)((int64_t)a * b) + (uint64_t)c); }
static inline uint64_t fz_host_madwide_u(uint32_t a, uint32_t b, uint64_t c) { return (uint64_t)a * b + c; }
FZ_ASM2(mul24lo_s, uint32_t, int32_t, "mul24.lo.s32", R_, R_)
FZ_ASM2(mul24hi_s, uint32_t, int32_t, "mul24.hi.s32", R_, R_)
FZ_ASM2(mul24lo_u, uint32_t, uint32_t, "mul24.lo.u32", R_, R_)
FZ_ASM2(mul24hi_u, uint32_t, uint32_t, "mul24.hi.u32", R_, R_)
FZ_ASM3(mad24lo_s, uint32_t, int32_t, int32_t, "mad24.lo.s32", R_, R_, R_)
FZ_ASM3(mad24hi_s, uint32_t, int32_t, int32_t, "mad24.hi.s32", R_, R_, R_)
FZ_ASM3(mad24lo_u, uint32_t, uint32_t, uint32_t, "mad24.lo.u32", R_, R_, R_)
FZ_ASM3(mad24hi_u, uint32_t, uint32_t, uint32_t, "mad24.hi.u32", R_, R_, R_)
FZ_ASM3(mad24hisat_s, int32_t, int32_t, int32_t, "mad24.hi.sat.s32", R_, R_, R_)
FZ_ASM2(addsat_s, int32_t, int32_t, "add.sat.s32", R_, R_)
FZ_ASM2(subsat_s, int32_t, int32_t, "sub.sat.s32", R_, R_)
FZ_ASM3(madhi_s, int32_t, int32_t, int32_t, "mad.hi.s32", R_, R_, R_)
FZ_ASM3(madhi_u, uint32_t, uint32_t, uint32_t, "mad.hi.u32", R_, R_, R_)
FZ_ASM3(madhisat_s, int32_t, int32_t, int32_t, "mad.hi.sat.s32", R_, R_, R_)
FZ_ASM3(madwide_s, int64_t, int32_t, int64_t, "mad.wide.s32", L_, R_, L_)
FZ_ASM3(madwide_u, uint64_t, uint32_t, uint64_t, "mad.wide.u32", L_, R_, L_)

/* bfe/bfi: pos and len are their operands' low 8 bits. */
template <class T> static inline T fz_host_bfe_t(T a, uint32_t b, uint32_t c, bool sgn) {
    const int msb = (int)sizeof(T) * 8 - 1;
    unsigned pos = b & 0xff, len = c & 0xff;
    int sbit = 0;
    if (sgn && len) { unsigned top = pos + len - 1 < (unsigned)msb ? pos + len - 1 : (unsigned)msb; sbit = (int)((a >> top) & 1); }
    T d = 0;
    for (int i = 0; i <= msb; i++) {
        int bit = ((unsigned)i < len && pos + i <= (unsigned)msb) ? (int)((a >> (pos + i)) & 1) : sbit;
        d |= (T)bit << i;
    }
    return d;
}
static inline uint32_t fz_host_bfe_u32(uint32_t a, uint32_t b, uint32_t c) { return fz_host_bfe_t<uint32_t>(a, b, c, false); }
static inline int32_t fz_host_bfe_s32(int32_t a, uint32_t b, uint32_t c) { return (int32_t)fz_host_bfe_t<uint32_t>((uint32_t)a, b, c, true); }
static inline uint64_t fz_host_bfe_u64(uint64_t a, uint32_t b, uint32_t c) { return fz_host_bfe_t<uint64_t>(a, b, c, false); }
static inline int64_t fz_host_bfe_s64(int64_t a, uint32_t b, uint32_t c) { return (int64_t)fz_host_bfe_t<uint64_t>((uint64_t)a, b, c, true); }
#ifdef __CUDA_ARCH__
H uint32_t fz_bfe_u32(uint32_t a, uint32_t b, uint32_t c) { uint32_t d; asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }
H int32_t fz_bfe_s32(int32_t a, uint32_t b, uint32_t c) { int32_t d; asm("bfe.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c)); return d; }
H uint64_t fz_bfe_u64(uint64_t a, uint32_t b, uint32_t c) { uint64_t d; asm("bfe.u64 %0, %1, %2, %3;" : "=l"(d) : "l"(a), "r"(b), "r"(c)); return d; }
H int64_t fz_bfe_s64(int64_t a, uint32_t b, uint32_t c) { int64_t d; asm("bfe.s64 %0, %1, %2, %3;" : "=l"(d) : "l"(a), "r"(b), "r"(c)); return d; }
H uint32_t fz_bfi_b32(uint32_t f, uint32_t b, uint32_t pos, uint32_t len) {
    uint32_t d; asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(f), "r"(b), "r"(pos), "r"(len)); return d;
}
H uint64_t fz_bfi_b64(uint64_t f, uint64_t b, uint32_t pos, uint32_t len) {
    uint64_t d; asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(d) : "l"(f), "l"(b), "r"(pos), "r"(len)); return d;
}
#else
H uint32_t fz_bfe_u32(uint32_t a, uint32_t b, uint32_t c) { return fz_host_bfe_u32(a, b, c); }
H int32_t fz_bfe_s32(int32_t a, uint32_t b, uint32_t c) { return fz_host_bfe_s32(a, b, c); }
H uint64_t fz_bfe_u64(uint64_t a, uint32_t b, uint32_t c) { return fz_host_bfe_u64(a, b, c); }
H int64_t fz_bfe_s64(int64_t a, uint32_t b, uint32_t c) { return fz_host_bfe_s64(a, b, c); }
template <class T> static inline T fz_host_bfi_t(T f, T b, uint32_t pos, uint32_t len) {
    const unsigned msb = sizeof(T) * 8 - 1;
    pos &= 0xff; len &= 0xff;
    T d = b;
    for (unsigned i = 0; i < len && pos + i <= msb; i++) d = (d & ~((T)1 << (pos + i))) | (((f >> i) & 1) << (pos + i));
    return d;
}
H uint32_t fz_bfi_b32(uint32_t f, uint32_t b, uint32_t pos, uint32_t len) { return fz_host_bfi_t<uint32_t>(f, b, pos, len); }
H uint64_t fz_bfi_b64(uint64_t f, uint64_t b, uint32_t pos, uint32_t len) { return fz_host_bfi_t<uint64_t>(f, b, pos, len); }
#endif

/* bfind: the most significant non-sign bit, 0xffffffff if none; .shiftamt: msb - it. */
static inline uint32_t fz_host_bfind(uint64_t a, int bits, bool sgn, bool shiftamt) {
    if (sgn && ((a >> (bits - 1)) & 1)) a = ~a;
    if (bits == 32) a &= 0xffffffffu;
    if (!a) return 0xffffffffu;
    uint32_t pos = 63 - __builtin_clzll(a);
    return shiftamt ? (uint32_t)(bits - 1) - pos : pos;
}
#ifdef __CUDA_ARCH__
#define FZ_BFIND(name, T, ins, tc) H uint32_t fz_##name(T a) { uint32_t d; asm(ins " %0, %1;" : "=r"(d) : tc(a)); return d; }
#else
#define FZ_BFIND(name, T, ins, tc) H uint32_t fz_##name(T a) { \
        return fz_host_bfind((uint64_t)a, sizeof(T) * 8, (T)-1 < (T)0, ins[6] == 's' && ins[7] == 'h'); }
#endif
FZ_BFIND(bfind_u32, uint32_t, "bfind.u32", R_)
FZ_BFIND(bfind_s32, int32_t, "bfind.s32", R_)
FZ_BFIND(bfind_u64, uint64_t, "bfind.u64", L_)
FZ_BFIND(bfind_s64, int64_t, "bfind.s64", L_)
FZ_BFIND(bfindsh_u32, uint32_t, "bfind.shiftamt.u32", R_)
FZ_BFIND(bfindsh_s64, int64_t, "bfind.shiftamt.s64", L_)

/* prmt's default mode with the selector's bit 3: replicate the byte's sign. */
static inline uint32_t fz_host_prmt(uint32_t a, uint32_t b, uint32_t s) {
    uint64_t v = (uint64_t)b << 32 | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t sel = (s >> (4 * i)) & 15, byte = (uint32_t)(v >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * i);
    }
    return r;
}
FZ_ASM3(prmt, uint32_t, uint32_t, uint32_t, "prmt.b32", R_, R_, R_)

/* Carry chains: a 64-bit sum and difference and a 32x32+64 product-sum in 32-bit pieces. */
#ifdef __CUDA_ARCH__
H uint64_t fz_addcc(uint64_t a, uint64_t b) {
    uint32_t lo, hi;
    asm("add.cc.u32 %0, %2, %4;\n\taddc.u32 %1, %3, %5;" : "=r"(lo), "=r"(hi)
        : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
    return (uint64_t)hi << 32 | lo;
}
H uint64_t fz_subcc(uint64_t a, uint64_t b) {
    uint32_t lo, hi;
    asm("sub.cc.u32 %0, %2, %4;\n\tsubc.u32 %1, %3, %5;" : "=r"(lo), "=r"(hi)
        : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
    return (uint64_t)hi << 32 | lo;
}
/* the carry out of a 64-bit sum, through addc.cc and a final addc of zeros */
H uint32_t fz_addcarry(uint64_t a, uint64_t b) {
    uint32_t lo, hi, c;
    asm("add.cc.u32 %0, %3, %5;\n\taddc.cc.u32 %1, %4, %6;\n\taddc.u32 %2, 0, 0;" : "=r"(lo), "=r"(hi), "=r"(c)
        : "r"((uint32_t)a), "r"((uint32_t)(a >> 32)), "r"((uint32_t)b), "r"((uint32_t)(b >> 32)));
    return c;
}
/* a * b + c (64-bit c) with mad.lo.cc and madc.hi */
H uint64_t fz_madcc(uint32_t a, uint32_t b, uint64_t c) {
    uint32_t lo, hi;
    asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.u32 %1, %2, %3, %5;" : "=r"(lo), "=r"(hi)
        : "r"(a), "r"(b), "r"((uint32_t)c), "r"((uint32_t)(c >> 32)));
    return (uint64_t)hi << 32 | lo;
}
#else
H uint64_t fz_addcc(uint64_t a, uint64_t b) { return a + b; }
H uint64_t fz_subcc(uint64_t a, uint64_t b) { return a - b; }
H uint32_t fz_addcarry(uint64_t a, uint64_t b) { return a + b < a; }
H uint64_t fz_madcc(uint32_t a, uint32_t b, uint64_t c) { return (uint64_t)a * b + c; }
#endif

/* testp, cnot, slct, integer cvt.sat */
#ifdef __CUDA_ARCH__
#define FZ_TESTP(name, T, ins, tc) H uint32_t fz_##name(T a) { \
        uint32_t d; asm("{\n\t.reg .pred p;\n\t" ins " p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(d) : tc(a)); return d; }
#else
#define FZ_TESTP(name, T, ins, tc) H uint32_t fz_##name(T a) { return fz_host_##name(a); }
#endif
static inline uint32_t fz_host_testp_normal_f32(float a) { return std::isnormal(a); }
static inline uint32_t fz_host_testp_subnormal_f32(float a) { return std::fpclassify(a) == FP_SUBNORMAL; }
static inline uint32_t fz_host_testp_finite_f64(double a) { return std::isfinite(a); }
static inline uint32_t fz_host_testp_normal_f64(double a) { return std::isnormal(a); }
static inline uint32_t fz_host_testp_subnormal_f64(double a) { return std::fpclassify(a) == FP_SUBNORMAL; }
static inline uint32_t fz_host_testp_notanumber_f32(float a) { return a != a; }
FZ_TESTP(testp_normal_f32, float, "testp.normal.f32", F_)
FZ_TESTP(testp_subnormal_f32, float, "testp.subnormal.f32", F_)
FZ_TESTP(testp_notanumber_f32, float, "testp.notanumber.f32", F_)
FZ_TESTP(testp_finite_f64, double, "testp.finite.f64", D_)
FZ_TESTP(testp_normal_f64, double, "testp.normal.f64", D_)
FZ_TESTP(testp_subnormal_f64, double, "testp.subnormal.f64", D_)

static inline uint32_t fz_host_cnot(uint32_t a, uint32_t b) { (void)b; return a == 0; }
#ifdef __CUDA_ARCH__
H uint32_t fz_cnot(uint32_t a) { uint32_t d; asm("cnot.b32 %0, %1;" : "=r"(d) : "r"(a)); return d; }
#else
H uint32_t fz_cnot(uint32_t a) { return fz_host_cnot(a, 0); }
#endif
static inline int32_t fz_host_slct_s(int32_t a, int32_t b, int32_t c) { return c >= 0 ? a : b; }
FZ_ASM3(slct_s, int32_t, int32_t, int32_t, "slct.s32.s32", R_, R_, R_)
static inline float fz_host_slct_f(float a, float b, float c) { return c >= 0.0f ? a : b; }
#ifdef __CUDA_ARCH__
H float fz_slct_f(float a, float b, float c) { float d; asm("slct.f32.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c)); return d; }
#else
H float fz_slct_f(float a, float b, float c) { return fz_host_slct_f(a, b, c); }
#endif
/* slct of a NaN c is left open by the ISA: c reads as +1 then. */
H float fz_slct_fc(float a, float b, float c) { return fz_slct_f(a, b, c != c ? 1.0f : c); }

#ifdef __CUDA_ARCH__
#define FZ_CVTSAT(name, R, T, ins, rc, tc) H R fz_##name(T a) { R d; asm(ins " %0, %1;" : "=" rc(d) : tc(a)); return d; }
#else
#define FZ_CVTSAT(name, R, T, ins, rc, tc) H R fz_##name(T a) { return fz_host_##name(a); }
#endif
template <class T> static inline int64_t fz_clamp_to(T a, int64_t lo, int64_t hi) {
    if ((T)-1 < (T)0) { int64_t x = (int64_t)a; return x < lo ? lo : x > hi ? hi : x; }
    uint64_t x = (uint64_t)a; return x > (uint64_t)hi ? hi : (int64_t)x;
}
static inline uint32_t fz_host_cvtsat_s8_s32(int32_t a) { return (uint32_t)(int32_t)fz_clamp_to(a, -128, 127); }
static inline uint32_t fz_host_cvtsat_u8_s32(int32_t a) { return (uint32_t)fz_clamp_to(a, 0, 255); }
static inline uint32_t fz_host_cvtsat_s16_u32(uint32_t a) { return (uint32_t)fz_clamp_to(a, -32768, 32767); }
static inline uint32_t fz_host_cvtsat_u16_s64(int64_t a) { return (uint32_t)fz_clamp_to(a, 0, 65535); }
static inline uint32_t fz_host_cvtsat_s32_u64(uint64_t a) { return (uint32_t)fz_clamp_to(a, INT32_MIN, INT32_MAX); }
static inline uint32_t fz_host_cvtsat_u32_s64(int64_t a) { return (uint32_t)fz_clamp_to(a, 0, UINT32_MAX); }
static inline uint32_t fz_host_cvtsat_s32_s64(int64_t a) { return (uint32_t)fz_clamp_to(a, INT32_MIN, INT32_MAX); }
static inline uint64_t fz_host_cvtsat_s64_u64(uint64_t a) { return a > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : a; }
static inline uint64_t fz_host_cvtsat_u64_s64(int64_t a) { return a < 0 ? 0 : (uint64_t)a; }
static inline uint32_t fz_host_cvtsat_u32_s32(int32_t a) { return a < 0 ? 0 : (uint32_t)a; }
FZ_CVTSAT(cvtsat_s8_s32, uint32_t, int32_t, "cvt.sat.s8.s32", R_, R_)
FZ_CVTSAT(cvtsat_u8_s32, uint32_t, int32_t, "cvt.sat.u8.s32", R_, R_)
FZ_CVTSAT(cvtsat_s16_u32, uint32_t, uint32_t, "cvt.sat.s16.u32", R_, R_)
FZ_CVTSAT(cvtsat_u16_s64, uint32_t, int64_t, "cvt.sat.u16.s64", R_, L_)
FZ_CVTSAT(cvtsat_s32_u64, uint32_t, uint64_t, "cvt.sat.s32.u64", R_, L_)
FZ_CVTSAT(cvtsat_u32_s64, uint32_t, int64_t, "cvt.sat.u32.s64", R_, L_)
FZ_CVTSAT(cvtsat_s32_s64, uint32_t, int64_t, "cvt.sat.s32.s64", R_, L_)
FZ_CVTSAT(cvtsat_s64_u64, uint64_t, uint64_t, "cvt.sat.s64.u64", L_, L_)
FZ_CVTSAT(cvtsat_u64_s64, uint64_t, int64_t, "cvt.sat.u64.s64", L_, L_)
FZ_CVTSAT(cvtsat_u32_s32, uint32_t, int32_t, "cvt.sat.u32.s32", R_, R_)

/* float arithmetic with .sat (clamped to [+0, 1], NaN gives +0) */
static inline float fz_sat01(float x) { return x != x ? 0.0f : x <= 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float fz_host_addsat_f(float a, float b) { return fz_sat01(a + b); }
static inline float fz_host_mulsat_f(float a, float b) { return fz_sat01(a * b); }
static inline float fz_host_fmasat_f(float a, float b, float c) { return fz_sat01(fmaf(a, b, c)); }
FZ_ASM2(addsat_f, float, float, "add.rn.sat.f32", F_, F_)
FZ_ASM2(mulsat_f, float, float, "mul.rn.sat.f32", F_, F_)
FZ_ASM3(fmasat_f, float, float, float, "fma.rn.sat.f32", F_, F_, F_)

/* An opaque copy: the compiler cannot fold what follows on a constant. CUDA
 * 13.0's cicc folds ceil() of a double constant outside the int64 range to
 * -2^63 (ceil(0x1p64) becomes 0dC3E0000000000000 in the PTX; floor, trunc,
 * rint, round and the float forms fold right), a compiler bug the emulator
 * cannot see: rounding functions of constants go through this. */
H double fz_keep(double x) {
#ifdef __CUDA_ARCH__
    asm volatile("" : "+d"(x));
    return x;
#else
    volatile double v = x;
    return v;
#endif
}
H float fz_keepf(float x) {
#ifdef __CUDA_ARCH__
    asm volatile("" : "+f"(x));
    return x;
#else
    volatile float v = x;
    return v;
#endif
}

/* The input record's bytes as a T, element i modulo their number (an aligned
 * load of any width and signedness from a computed address). */
template <class T, class In> H T fz_ld(const In *in, uint32_t i) {
    return ((const T *)(const void *)in)[i % (uint32_t)(sizeof(In) / sizeof(T))];
}
