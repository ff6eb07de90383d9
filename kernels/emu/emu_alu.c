/* kernels/emu/emu_alu.c: arithmetic, logic, compare, select and convert
 * instructions over the 32 lanes of a warp.
 *
 * Registers are 64-bit slots holding values zero-extended from the width the
 * instruction writes. Each handler is a loop over lanes with the operation
 * and type fixed outside it: a plain loop when all lanes are active (the C
 * compiler vectorises it), a masked loop otherwise. IEEE operations are
 * bit-exact: C's float/double arithmetic, fma/fmaf, sqrt; directed rounding
 * modes switch the host FPU's rounding mode around the loop. .approx
 * operations use the host's correctly rounded or libm functions; see
 * README.md for the bounds against the GPU. */
#include <fenv.h>
#include <math.h>
#include <string.h>

#include "kernels/emu/emu_alu.h"


typedef struct TypeInfo { int bits; bool sgn, flt; } TypeInfo;

static TypeInfo type_info(int t) {
    switch (t) {
    case T_B8: case T_U8: return (TypeInfo){8, false, false};
    case T_S8: return (TypeInfo){8, true, false};
    case T_B16: case T_U16: return (TypeInfo){16, false, false};
    case T_S16: return (TypeInfo){16, true, false};
    case T_B32: case T_U32: return (TypeInfo){32, false, false};
    case T_S32: return (TypeInfo){32, true, false};
    case T_B64: case T_U64: return (TypeInfo){64, false, false};
    case T_S64: return (TypeInfo){64, true, false};
    case T_F16: case T_BF16: return (TypeInfo){16, false, true};
    case T_F16X2: case T_BF16X2: return (TypeInfo){32, false, true};
    case T_F32: return (TypeInfo){32, false, true};
    case T_F64: return (TypeInfo){64, false, true};
    default: return (TypeInfo){64, false, false};
    }
}

static inline uint64_t zx(uint64_t v, int bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
static inline int64_t sx(uint64_t v, int bits) {
    return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}
static inline float f32(uint64_t v) { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t b32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double f64(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t b64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline float ftz32(float x) { return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x; }
static inline float sat32(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }  /* NaN → 0 */
static inline double sat64(double x) { return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; }

/* ---- half precision --------------------------------------------------------- */
float emu_half_to_float(uint16_t h) {
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
    uint32_t u;
    if (e == 0) {
        if (m == 0) u = s;
        else {                              /* subnormal: normalise */
            int sh = 0;
            while (!(m & 1024)) { m <<= 1; sh++; }
            m &= 1023;
            u = s | (uint32_t)(113 - sh) << 23 | m << 13;
        }
    } else if (e == 31) u = s | 0x7f800000u | m << 13;
    else u = s | (e + 112) << 23 | m << 13;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Rounds a float to half with round-to-nearest-even (rnd RZ/RM/RP honoured). */
uint16_t emu_float_to_half(float f, int rnd) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t s = (uint16_t)((u >> 16) & 0x8000);
    if (isnan(f)) return (uint16_t)(s | 0x7e00 | ((u >> 13) & 0x3ff));
    float a = fabsf(f);
    bool neg = s != 0;
    bool up_ok = rnd == RND_RP ? !neg : rnd == RND_RM ? neg : false;
    if (a >= 65520.0f || isinf(a)) {
        if (rnd == RND_RZ || (rnd == RND_RP && neg) || (rnd == RND_RM && !neg))
            return isinf(a) ? (uint16_t)(s | 0x7c00) : (uint16_t)(s | 0x7bff);
        return (uint16_t)(s | 0x7c00);
    }
    /* scale into an integer count of the result's ulps, then round */
    int e;
    frexpf(a, &e);                          /* a = m * 2^e, m in [0.5,1) */
    int ulp_exp = e - 11;                   /* 11 significant bits */
    if (ulp_exp < -24) ulp_exp = -24;       /* subnormal spacing */
    float q = ldexpf(a, -ulp_exp);          /* exact: fits in float */
    float r;
    if (rnd == RND_RZ) r = truncf(q);
    else if (rnd == RND_RM || rnd == RND_RP) r = up_ok ? ceilf(q) : truncf(q);
    else r = nearbyintf(q);                 /* host default mode: nearest even */
    float v = ldexpf(r, ulp_exp);
    if (v >= 65520.0f) return (uint16_t)(s | 0x7c00);
    /* encode v (exactly representable as half) */
    if (v == 0.0f) return s;
    int ve;
    float vm = frexpf(v, &ve);
    if (ve - 1 < -14) return (uint16_t)(s | (uint16_t)ldexpf(v, 24));
    uint16_t mant = (uint16_t)((int)ldexpf(vm, 11) - 1024);
    if (ve - 1 > 15) return (uint16_t)(s | 0x7c00);
    return (uint16_t)(s | (uint16_t)((ve - 1 + 15) << 10) | mant);
}

static float bf16_to_float(uint16_t h) { return f32((uint64_t)h << 16); }
static uint16_t float_to_bf16(float f) {
    uint32_t u = (uint32_t)b32(f);
    if (isnan(f)) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

/* ---- the lane loops ---------------------------------------------------------- */
#define LOOP(EXPR) do { \
    if (m == EMU_FULL) { for (int l = 0; l < 32; l++) D[l] = (EXPR); } \
    else { for (int l = 0; l < 32; l++) if (m >> l & 1) D[l] = (EXPR); } } while (0)

static int fe_mode(int rnd) {
    switch (rnd) {
    case RND_RZ: case RND_RZI: return FE_TOWARDZERO;
    case RND_RM: case RND_RMI: return FE_DOWNWARD;
    case RND_RP: case RND_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

static uint64_t int_op(int op, TypeInfo ti, unsigned flags, uint64_t a, uint64_t b, uint64_t c) {
    int bits = ti.bits;
    uint64_t r = 0;
    switch (op) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: case OP_MAD:
        if (flags & F_WIDE) {
            r = ti.sgn ? (uint64_t)(sx(a, bits) * sx(b, bits)) : zx(a, bits) * zx(b, bits);
            if (op == OP_MAD) r += c;
            return zx(r, bits * 2);
        }
        if (flags & F_HI) {
            if (bits == 64) {
                if (ti.sgn) r = (uint64_t)(((__int128)(int64_t)a * (__int128)(int64_t)b) >> 64);
                else r = (uint64_t)(((unsigned __int128)a * b) >> 64);
            } else if (ti.sgn) r = (uint64_t)((sx(a, bits) * sx(b, bits)) >> bits);
            else r = (zx(a, bits) * zx(b, bits)) >> bits;
        } else r = a * b;
        if (op == OP_MAD) r += c;
        break;
    case OP_MUL24: r = (uint64_t)(sx(a, 24) * sx(b, 24)); if (flags & F_HI) r >>= 16; break;
    case OP_MAD24: r = (uint64_t)(sx(a, 24) * sx(b, 24)); if (flags & F_HI) r >>= 16; r += c; break;
    case OP_DIV:
        if (zx(b, bits) == 0) r = ~0ull;
        else if (ti.sgn) {
            int64_t x = sx(a, bits), y = sx(b, bits);
            r = (y == -1) ? (uint64_t)0 - (uint64_t)x : (uint64_t)(x / y);
        } else r = zx(a, bits) / zx(b, bits);
        break;
    case OP_REM:
        if (zx(b, bits) == 0) r = a;
        else if (ti.sgn) {
            int64_t x = sx(a, bits), y = sx(b, bits);
            r = (y == -1) ? 0 : (uint64_t)(x % y);
        } else r = zx(a, bits) % zx(b, bits);
        break;
    case OP_MIN: r = ti.sgn ? (sx(a, bits) < sx(b, bits) ? a : b) : (zx(a, bits) < zx(b, bits) ? a : b); break;
    case OP_MAX: r = ti.sgn ? (sx(a, bits) > sx(b, bits) ? a : b) : (zx(a, bits) > zx(b, bits) ? a : b); break;
    case OP_NEG: r = (uint64_t)0 - a; break;
    case OP_ABS: r = sx(a, bits) < 0 ? (uint64_t)0 - a : a; break;
    case OP_AND: r = a & b; break;
    case OP_OR: r = a | b; break;
    case OP_XOR: r = a ^ b; break;
    case OP_NOT: r = ~a; break;
    case OP_CNOT: r = zx(a, bits) == 0; break;
    case OP_SHL: b = zx(b, 32); r = b >= (uint64_t)bits ? 0 : a << b; break;
    case OP_SHR:
        b = zx(b, 32);
        if (ti.sgn) r = (uint64_t)(sx(a, bits) >> (b >= (uint64_t)bits ? bits - 1 : (int)b));
        else r = b >= (uint64_t)bits ? 0 : zx(a, bits) >> b;
        break;
    case OP_POPC: return (uint64_t)__builtin_popcountll(zx(a, bits));
    case OP_CLZ: a = zx(a, bits); return a ? (uint64_t)(__builtin_clzll(a) - (64 - bits)) : (uint64_t)bits;
    case OP_BREV: { uint64_t x = zx(a, bits), y = 0; for (int i = 0; i < bits; i++) y |= ((x >> i) & 1) << (bits - 1 - i); return y; }
    case OP_BFIND: {
        uint64_t x = zx(a, bits);
        if (ti.sgn && sx(a, bits) < 0) x = zx(~x, bits);
        if (!x) return 0xffffffffu;
        int pos = 63 - __builtin_clzll(x);
        return (flags & F_SHFL_L) ? (uint64_t)(bits - 1 - pos) : (uint64_t)pos;  /* .shiftamt reuses F_SHFL_L */
    }
    case OP_BFE: {
        /* bits beyond the msb read as the sign bit (signed) or zero */
        unsigned pos = (unsigned)(b & 0xff), len = (unsigned)(c & 0xff);
        uint64_t x = zx(a, bits);
        if (len == 0) return 0;
        unsigned top = pos + len - 1 < (unsigned)bits ? pos + len - 1 : (unsigned)bits - 1;
        bool sbit = ti.sgn && ((x >> top) & 1);
        unsigned nvalid = pos >= (unsigned)bits ? 0 : ((unsigned)bits - pos < len ? (unsigned)bits - pos : len);
        r = nvalid ? x >> pos : 0;
        if (nvalid < 64) r &= (1ull << nvalid) - 1;
        if (sbit && nvalid < 64) r |= ~0ull << nvalid;
        break;
    }
    case OP_BFI: {  /* bfi d, a(insert), b(base), c(pos), e(len) handled by caller */
        break;
    }
    case OP_SAD: r = (ti.sgn ? (sx(a, bits) > sx(b, bits)) : (zx(a, bits) > zx(b, bits))) ? a - b : b - a; r += c; break;
    default: r = 0;
    }
    return zx(r, bits);
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
    uint64_t bytes = (uint64_t)b << 32 | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        unsigned s = (sel >> (4 * i)) & 0xf;
        uint32_t byte = (uint32_t)(bytes >> ((s & 7) * 8)) & 0xff;
        if (s & 8) byte = (byte & 0x80) ? 0xff : 0;
        r |= byte << (8 * i);
    }
    return r;
}

static bool cmp_int(int cmp, bool sgn, int bits, uint64_t a, uint64_t b) {
    if (sgn) {
        int64_t x = sx(a, bits), y = sx(b, bits);
        switch (cmp) {
        case CMP_EQ: return x == y; case CMP_NE: return x != y;
        case CMP_LT: case CMP_LO: return x < y; case CMP_LE: case CMP_LS: return x <= y;
        case CMP_GT: case CMP_HI: return x > y; case CMP_GE: case CMP_HS: return x >= y;
        default: return false;
        }
    }
    uint64_t x = zx(a, bits), y = zx(b, bits);
    switch (cmp) {
    case CMP_EQ: return x == y; case CMP_NE: return x != y;
    case CMP_LT: case CMP_LO: return x < y; case CMP_LE: case CMP_LS: return x <= y;
    case CMP_GT: case CMP_HI: return x > y; case CMP_GE: case CMP_HS: return x >= y;
    default: return false;
    }
}

static bool cmp_flt(int cmp, double x, double y) {
    bool un = isnan(x) || isnan(y);
    switch (cmp) {
    case CMP_EQ: return !un && x == y; case CMP_NE: return !un && x != y;
    case CMP_LT: return !un && x < y; case CMP_LE: return !un && x <= y;
    case CMP_GT: return !un && x > y; case CMP_GE: return !un && x >= y;
    case CMP_EQU: return un || x == y; case CMP_NEU: return un || x != y;
    case CMP_LTU: return un || x < y; case CMP_LEU: return un || x <= y;
    case CMP_GTU: return un || x > y; case CMP_GEU: return un || x >= y;
    case CMP_NUM: return !un; case CMP_NAN: return un;
    default: return false;
    }
}

/* float value of a register under type t (f16/bf16/f32 → float, f64 stays double) */
static inline double fval(uint64_t v, int t) {
    switch (t) {
    case T_F16: return emu_half_to_float((uint16_t)v);
    case T_BF16: return bf16_to_float((uint16_t)v);
    case T_F32: return f32(v);
    default: return f64(v);
    }
}

/* One f32 operation on one lane (everything except the hot paths). */
static float f32_op(int op, unsigned flags, float a, float b, float c) {
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_MAD: case OP_FMA: return fmaf(a, b, c);
    case OP_DIV:
        if (flags & F_APPROX) return a * (1.0f / b);
        return a / b;
    case OP_MIN: return isnan(a) ? b : isnan(b) ? a : (a < b || (a == b && signbit(a))) ? a : b;
    case OP_MAX: return isnan(a) ? b : isnan(b) ? a : (a > b || (a == b && !signbit(a))) ? a : b;
    case OP_NEG: return -a;
    case OP_ABS: return fabsf(a);
    case OP_SQRT: return sqrtf(a);
    case OP_RSQRT: return (float)(1.0 / sqrt((double)a));
    case OP_RCP: return (flags & F_APPROX) ? (float)(1.0 / (double)a) : 1.0f / a;
    case OP_EX2: return exp2f(a);
    case OP_LG2: return log2f(a);
    case OP_SIN: return sinf(a);
    case OP_COS: return cosf(a);
    case OP_TANH: return tanhf(a);
    case OP_COPYSIGN: return copysignf(b, a);
    default: return 0.0f;
    }
}

static double f64_op(int op, unsigned flags, double a, double b, double c) {
    (void)flags;
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_MAD: case OP_FMA: return fma(a, b, c);
    case OP_DIV: return a / b;
    case OP_MIN: return isnan(a) ? b : isnan(b) ? a : (a < b || (a == b && signbit(a))) ? a : b;
    case OP_MAX: return isnan(a) ? b : isnan(b) ? a : (a > b || (a == b && !signbit(a))) ? a : b;
    case OP_NEG: return -a;
    case OP_ABS: return fabs(a);
    case OP_SQRT: return sqrt(a);
    case OP_RSQRT: return 1.0 / sqrt(a);
    case OP_RCP: return 1.0 / a;
    case OP_EX2: return exp2(a);
    case OP_LG2: return log2(a);
    case OP_SIN: return sin(a);
    case OP_COS: return cos(a);
    case OP_TANH: return tanh(a);
    case OP_COPYSIGN: return copysign(b, a);
    default: return 0.0;
    }
}

static uint16_t h_op(int op, int t, unsigned flags, uint16_t a, uint16_t b, uint16_t c) {
    float x = t == T_BF16 ? bf16_to_float(a) : emu_half_to_float(a);
    float y = t == T_BF16 ? bf16_to_float(b) : emu_half_to_float(b);
    float z = t == T_BF16 ? bf16_to_float(c) : emu_half_to_float(c);
    if (op == OP_NEG) return a ^ 0x8000;
    if (op == OP_ABS) return a & 0x7fff;
    float r;
    if (op == OP_FMA || op == OP_MAD) r = (float)fma((double)x, (double)y, (double)z);
    else r = f32_op(op, flags, x, y, z);
    if (flags & F_SAT) r = sat32(r);
    return t == T_BF16 ? float_to_bf16(r) : emu_float_to_half(r, RND_RN);
}

/* ---- cvt ----------------------------------------------------------------------- */
static uint64_t cvt_one(const Instr *in, uint64_t v) {
    TypeInfo dt = type_info(in->type), st = type_info(in->type2);
    int dtype = in->type, stype = in->type2;
    bool ftz = in->flags & F_FTZ, sat = in->flags & F_SAT;
    if (!st.flt && !dt.flt) {
        if (sat) {
            int64_t lo, hi;
            if (dt.sgn) { hi = dt.bits >= 64 ? INT64_MAX : (int64_t)((1ull << (dt.bits - 1)) - 1); lo = -hi - 1; }
            else { lo = 0; hi = dt.bits >= 64 ? -1 : (int64_t)((1ull << dt.bits) - 1); }
            if (st.sgn) {
                int64_t x = sx(v, st.bits);
                if (!dt.sgn && x < 0) return 0;
                if (!dt.sgn) return dt.bits >= 64 ? (uint64_t)x : ((uint64_t)x > (uint64_t)hi ? (uint64_t)hi : (uint64_t)x);
                return zx((uint64_t)(x < lo ? lo : x > hi ? hi : x), dt.bits);
            }
            uint64_t x = zx(v, st.bits);
            if (dt.bits < 64 || dt.sgn) {
                uint64_t h = (uint64_t)hi;
                return zx(x > h ? h : x, dt.bits);
            }
            return x;
        }
        uint64_t x = st.sgn ? (uint64_t)sx(v, st.bits) : zx(v, st.bits);
        /* widen with the source's signedness, then keep the destination's width */
        if (dt.sgn && dt.bits > st.bits) return zx(x, dt.bits);
        return zx(x, dt.bits);
    }
    if (st.flt && !dt.flt) {
        double x = fval(v, stype);
        if (ftz && stype == T_F32) x = ftz32((float)x);
        if (isnan(x)) {
            /* the ISA leaves it open; measured on an H200: 0 from f32/f16 to 32 bits or
             * fewer, the sign bit alone from f64 to 32 bits, and for 64-bit results */
            if (dt.bits == 64) return 0x8000000000000000ull;
            if (stype == T_F64 && dt.bits == 32) return 0x80000000u;
            return 0;
        }
        switch (in->rnd) {
        case RND_RNI: x = nearbyint(x); break;
        case RND_RMI: x = floor(x); break;
        case RND_RPI: x = ceil(x); break;
        default: x = trunc(x); break;
        }
        if (dt.sgn) {
            double lo = -ldexp(1.0, dt.bits - 1), hi = ldexp(1.0, dt.bits - 1) - 1;
            if (x <= lo) return zx((uint64_t)(int64_t)lo, dt.bits);
            if (x >= hi) return dt.bits == 64 ? (uint64_t)INT64_MAX : zx((uint64_t)(int64_t)hi, dt.bits);
            return zx((uint64_t)(int64_t)x, dt.bits);
        }
        if (x <= 0) return 0;
        if (x >= ldexp(1.0, dt.bits)) return dt.bits == 64 ? ~0ull : (1ull << dt.bits) - 1;
        return (uint64_t)x;
    }
    if (!st.flt && dt.flt) {
        int mode = fe_mode(in->rnd);
        if (mode != FE_TONEAREST) fesetround(mode);
        uint64_t r;
        if (dtype == T_F64) {
            volatile double d = st.sgn ? (double)sx(v, st.bits) : (double)zx(v, st.bits);
            r = b64(d);
        } else {
            volatile float f = st.sgn ? (float)sx(v, st.bits) : (float)zx(v, st.bits);
            if (dtype == T_F16) r = emu_float_to_half(f, in->rnd);
            else if (dtype == T_BF16) r = float_to_bf16(f);
            else r = b32(f);
        }
        if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
        return r;
    }
    /* float → float */
    double x = fval(v, stype);
    if (ftz && stype == T_F32) x = ftz32((float)x);
    if (in->rnd >= RND_RNI && in->rnd <= RND_RPI) {
        x = in->rnd == RND_RNI ? nearbyint(x) : in->rnd == RND_RZI ? trunc(x)
          : in->rnd == RND_RMI ? floor(x) : ceil(x);
    }
    if (sat) x = sat64(x);
    if (dtype == T_F64) return b64(x);
    if (dtype == T_F32) {
        float f;
        if (stype == T_F64 && in->rnd >= RND_RZ && in->rnd <= RND_RP) {
            fesetround(fe_mode(in->rnd));
            volatile double vx = x;
            volatile float vf = (float)vx;
            f = vf;
            fesetround(FE_TONEAREST);
        } else f = (float)x;
        if (ftz) f = ftz32(f);
        return b32(f);
    }
    if (dtype == T_F16) return emu_float_to_half((float)x, in->rnd);   /* f64→f16 rounds twice: rare */
    if (dtype == T_BF16) return float_to_bf16((float)x);
    return 0;
}

/* fmaf is a library call unless the compiler may use the FMA instruction:
 * compile one loop for FMA hardware and pick it at run time. */
__attribute__((target("fma"))) static void fma_loop_hw(uint64_t *D, const uint64_t *A, const uint64_t *B,
                                                       const uint64_t *C) {
    for (int l = 0; l < 32; l++) D[l] = b32(__builtin_fmaf(f32(A[l]), f32(B[l]), f32(C[l])));
}

void emu_fma_loop(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C) {
    static int has_fma = -1;
    if (has_fma < 0) has_fma = __builtin_cpu_supports("fma") ? 1 : 0;
    if (has_fma) { fma_loop_hw(D, A, B, C); return; }
    for (int l = 0; l < 32; l++) D[l] = b32(fmaf(f32(A[l]), f32(B[l]), f32(C[l])));
}

/* ---- dispatcher -------------------------------------------------------------------- */
bool emu_alu(const Instr *in, uint64_t *r, uint32_t *p, uint32_t m) {
    uint64_t *D = in->d[0] >= 0 ? r + (size_t)in->d[0] * 32 : NULL;
    const uint64_t *A = in->a[0] >= 0 ? r + (size_t)in->a[0] * 32 : NULL;
    const uint64_t *B = in->b >= 0 ? r + (size_t)in->b * 32 : NULL;
    const uint64_t *C = in->c >= 0 ? r + (size_t)in->c * 32 : NULL;
    int t = in->type;
    TypeInfo ti = type_info(t);
    unsigned fl = in->flags;
    int op = in->op;

    switch (op) {
    case OP_MOV:
        if (ti.bits >= 64) LOOP(A[l]);
        else LOOP(zx(A[l], ti.bits));
        return true;
    case OP_SETP: {
        uint32_t res = 0;
        int cmp = in->sub;
        if (t == T_F32 && cmp <= CMP_GE) {
            for (int l = 0; l < 32; l++) {
                float x = f32(A[l]), y = f32(B[l]);
                if (fl & F_FTZ) { x = ftz32(x); y = ftz32(y); }
                bool v = cmp == CMP_EQ ? x == y : cmp == CMP_NE ? (x != y && x == x && y == y)
                       : cmp == CMP_LT ? x < y : cmp == CMP_LE ? x <= y : cmp == CMP_GT ? x > y : x >= y;
                res |= (uint32_t)v << l;
            }
        } else if (ti.flt) {
            for (int l = 0; l < 32; l++) {
                double x = fval(A[l], t), y = fval(B[l], t);
                res |= (uint32_t)cmp_flt(cmp, x, y) << l;
            }
        } else {
            for (int l = 0; l < 32; l++) res |= (uint32_t)cmp_int(cmp, ti.sgn, ti.bits, A[l], B[l]) << l;
        }
        uint32_t res2 = ~res;
        if (in->sub2) {
            uint32_t q = p[in->c];
            if (fl & F_NEGC) q = ~q;
            if (in->sub2 == BOP_AND) { res &= q; res2 &= q; }
            else if (in->sub2 == BOP_OR) { res |= q; res2 |= q; }
            else { res ^= q; res2 ^= q; }
        }
        p[in->d[0]] = (p[in->d[0]] & ~m) | (res & m);
        if (in->d[1] >= 0) p[in->d[1]] = (p[in->d[1]] & ~m) | (res2 & m);
        return true;
    }
    case OP_SET: {
        int st = in->type2;
        bool half2 = st == T_F16X2 || st == T_BF16X2;
        int ht = st == T_BF16X2 ? T_BF16 : T_F16;
        uint32_t q = in->c >= 0 ? p[in->c] : 0;
        if (fl & F_NEGC) q = ~q;
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            uint64_t out = 0;
            for (int h = 0; h < (half2 ? 2 : 1); h++) {
                bool v;
                if (half2) v = cmp_flt(in->sub, fval(A[l] >> (16 * h) & 0xffff, ht), fval(B[l] >> (16 * h) & 0xffff, ht));
                else if (type_info(st).flt) v = cmp_flt(in->sub, fval(A[l], st), fval(B[l], st));
                else v = cmp_int(in->sub, type_info(st).sgn, type_info(st).bits, A[l], B[l]);
                bool qb = q >> l & 1;
                if (in->sub2 == BOP_AND) v = v && qb;
                else if (in->sub2 == BOP_OR) v = v || qb;
                else if (in->sub2 == BOP_XOR) v = v != qb;
                uint64_t r1;
                switch (t) {
                case T_F32: r1 = v ? 0x3f800000u : 0; break;
                case T_F16: case T_F16X2: r1 = v ? 0x3c00u : 0; break;
                case T_BF16: case T_BF16X2: r1 = v ? 0x3f80u : 0; break;
                default: r1 = v ? (ti.bits >= 64 ? ~0ull : (1ull << ti.bits) - 1) : 0; break;
                }
                out |= r1 << (16 * h);
            }
            D[l] = out;
        }
        return true;
    }
    case OP_SELP: {
        uint32_t q = p[in->c];
        if (fl & F_NEGC) q = ~q;
        LOOP((q >> l & 1) ? A[l] : B[l]);
        return true;
    }
    case OP_SLCT: {
        TypeInfo ct = type_info(in->type2);
        if (ct.flt) LOOP(f32(C[l]) >= 0.0f ? A[l] : B[l]);
        else LOOP(sx(C[l], 32) >= 0 ? A[l] : B[l]);
        return true;
    }
    case OP_PAND: case OP_POR: case OP_PXOR: case OP_PNOT: {
        uint32_t a = p[in->a[0]], b = in->b >= 0 ? p[in->b] : 0;
        if (fl & F_NEGA) a = ~a;
        if (fl & F_NEGB) b = ~b;
        uint32_t v = op == OP_PAND ? a & b : op == OP_POR ? a | b : op == OP_PXOR ? a ^ b : ~a;
        p[in->d[0]] = (p[in->d[0]] & ~m) | (v & m);
        return true;
    }
    case OP_PMOV: {
        uint32_t v = in->a[0] < 0 ? (in->imm ? EMU_FULL : 0) : p[in->a[0]];
        if (fl & F_NEGA) v = ~v;
        p[in->d[0]] = (p[in->d[0]] & ~m) | (v & m);
        return true;
    }
    case OP_TESTP: {
        uint32_t res = 0;
        for (int l = 0; l < 32; l++) {
            double x = fval(A[l], t);
            bool v;
            switch (in->sub) {
            case 0: v = isfinite(x); break; case 1: v = isinf(x); break;
            case 2: v = !isnan(x); break; case 3: v = isnan(x); break;
            case 4: v = t == T_F32 ? isnormal(f32(A[l])) : isnormal(x); break;
            default: v = t == T_F32 ? fpclassify(f32(A[l])) == FP_SUBNORMAL : fpclassify(x) == FP_SUBNORMAL; break;
            }
            res |= (uint32_t)v << l;
        }
        p[in->d[0]] = (p[in->d[0]] & ~m) | (res & m);
        return true;
    }
    case OP_CVT:
        LOOP(cvt_one(in, A[l]));
        return true;
    case OP_CVT_PACK:
        if (t == T_BF16X2) LOOP((uint64_t)float_to_bf16(f32(A[l])) << 16 | float_to_bf16(f32(B[l])));
        else LOOP((uint64_t)emu_float_to_half(f32(A[l]), RND_RN) << 16 | emu_float_to_half(f32(B[l]), RND_RN));
        return true;
    case OP_MOV_PACK: {
        int n = in->vec, w = in->size;
        uint64_t mask = w >= 64 ? ~0ull : (1ull << w) - 1;
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            uint64_t v = 0;
            for (int i = 0; i < n; i++) v |= (r[(size_t)in->a[i] * 32 + l] & mask) << (w * i);
            r[(size_t)in->d[0] * 32 + l] = v;
        }
        return true;
    }
    case OP_MOV_UNPACK: {
        int n = in->vec, w = in->size;
        uint64_t mask = w >= 64 ? ~0ull : (1ull << w) - 1;
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            uint64_t v = A[l];
            for (int i = 0; i < n; i++) r[(size_t)in->d[i] * 32 + l] = (v >> (w * i)) & mask;
        }
        return true;
    }
    case OP_PRMT:
        LOOP(prmt((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l]));
        return true;
    case OP_BFI: {
        const uint64_t *E = r + (size_t)in->e * 32;
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            unsigned pos = (unsigned)(C[l] & 0xff), len = (unsigned)(E[l] & 0xff);
            uint64_t base = B[l];
            if (len && pos < (unsigned)ti.bits) {
                uint64_t fm = (len >= 64 ? ~0ull : (1ull << len) - 1) << pos;
                base = (base & ~fm) | ((A[l] << pos) & fm);
            }
            D[l] = zx(base, ti.bits);
        }
        return true;
    }
    case OP_SHF: {
        /* shf.l/.r.wrap/.clamp.b32 d, a(lo), b(hi), c(shift) */
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            uint32_t n = (uint32_t)C[l];
            n = (fl & F_CLAMP) ? (n > 32 ? 32 : n) : n & 31;
            uint64_t v = (uint64_t)(uint32_t)B[l] << 32 | (uint32_t)A[l];
            D[l] = (fl & F_SHFL_L) ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
        }
        return true;
    }
    case OP_DP4A: case OP_DP2A: {
        /* type: a's signedness, type2: b's; dp2a.hi uses b's upper two bytes */
        bool sa = in->type == T_S32, sb = in->type2 == T_S32;
        int boff = (op == OP_DP2A && (fl & F_HI)) ? 2 : 0;
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l];
            int64_t acc = (sa || sb) ? (int64_t)(int32_t)C[l] : (int64_t)(uint32_t)C[l];
            for (int i = 0; i < (op == OP_DP4A ? 4 : 2); i++) {
                int64_t x = op == OP_DP4A ? (sa ? (int64_t)(int8_t)(a >> (8 * i)) : (int64_t)(uint8_t)(a >> (8 * i)))
                                          : (sa ? (int64_t)(int16_t)(a >> (16 * i)) : (int64_t)(uint16_t)(a >> (16 * i)));
                uint32_t bb = b >> (8 * (i + boff));
                int64_t y = sb ? (int64_t)(int8_t)bb : (int64_t)(uint8_t)bb;
                acc += x * y;
            }
            D[l] = (uint32_t)acc;
        }
        return true;
    }
    default: break;
    }

    /* floating point */
    if (ti.flt) {
        uint64_t negA[32], negC[32];
        if (op == OP_FMA && (fl & (F_NEGA | F_NEGC))) {
            /* a contracted mul + sub (emu_contract.c): flip the sign bit of the
             * product's first factor or of the addend, per half for f16x2 */
            uint64_t sign = t == T_F32 ? 0x80000000ull : t == T_F64 ? 1ull << 63
                          : t == T_F16X2 ? 0x80008000ull : 0x8000ull;
            for (int l = 0; l < 32; l++) {
                negA[l] = (fl & F_NEGA) ? A[l] ^ sign : A[l];
                negC[l] = (fl & F_NEGC) ? C[l] ^ sign : C[l];
            }
            A = negA;
            C = negC;
        }
        int mode = (in->rnd >= RND_RZ && in->rnd <= RND_RP) ? fe_mode(in->rnd) : FE_TONEAREST;
        if (mode != FE_TONEAREST) fesetround(mode);
        if (t == T_F32) {
            bool ftz = fl & F_FTZ, sat = fl & F_SAT;
            if (!ftz && !sat && mode == FE_TONEAREST) {
                switch (op) {
                case OP_ADD: LOOP(b32(f32(A[l]) + f32(B[l]))); goto done;
                case OP_SUB: LOOP(b32(f32(A[l]) - f32(B[l]))); goto done;
                case OP_MUL: LOOP(b32(f32(A[l]) * f32(B[l]))); goto done;
                case OP_FMA: case OP_MAD:
                    if (m == EMU_FULL) emu_fma_loop(D, A, B, C);
                    else LOOP(b32(fmaf(f32(A[l]), f32(B[l]), f32(C[l]))));
                    goto done;
                default: break;
                }
            }
            for (int l = 0; l < 32; l++) {
                if (!(m >> l & 1)) continue;
                float a = f32(A[l]), b = B ? f32(B[l]) : 0.0f, c = C ? f32(C[l]) : 0.0f;
                if (ftz) { a = ftz32(a); b = ftz32(b); c = ftz32(c); }
                volatile float res = f32_op(op, fl, a, b, c);
                float x = res;
                if (ftz) {
                    /* tininess before rounding (measured on an H200): a result whose exact
                     * value is below FLT_MIN is flushed even if it rounds up to FLT_MIN */
                    double ex = op == OP_ADD ? (double)a + b : op == OP_SUB ? (double)a - b
                              : op == OP_MUL ? (double)a * b
                              : (op == OP_FMA || op == OP_MAD) ? fma((double)a, (double)b, (double)c) : (double)x;
                    if (ex != 0 && fabs(ex) < 1.17549435e-38) x = copysignf(0.0f, (float)ex);
                    else x = ftz32(x);
                }
                if (sat) x = sat32(x);
                D[l] = b32(x);
            }
        } else if (t == T_F64) {
            for (int l = 0; l < 32; l++) {
                if (!(m >> l & 1)) continue;
                volatile double res = f64_op(op, fl, f64(A[l]), B ? f64(B[l]) : 0.0, C ? f64(C[l]) : 0.0);
                double x = res;
                if (fl & F_SAT) x = sat64(x);
                D[l] = b64(x);
            }
        } else if (t == T_F16 || t == T_BF16) {
            int ht = t == T_BF16 ? T_BF16 : T_F16;
            LOOP(h_op(op, ht, fl, (uint16_t)A[l], B ? (uint16_t)B[l] : 0, C ? (uint16_t)C[l] : 0));
        } else {  /* f16x2 / bf16x2: two lanes in one register */
            int ht = t == T_BF16X2 ? T_BF16 : T_F16;
            LOOP((uint64_t)h_op(op, ht, fl, (uint16_t)(A[l] >> 16), B ? (uint16_t)(B[l] >> 16) : 0,
                                C ? (uint16_t)(C[l] >> 16) : 0) << 16 |
                 h_op(op, ht, fl, (uint16_t)A[l], B ? (uint16_t)B[l] : 0, C ? (uint16_t)C[l] : 0));
        }
    done:
        if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
        return true;
    }

    /* extended precision: add.cc / addc / sub.cc / subc / mad.cc / madc */
    if ((fl & (F_CC | F_USECC)) && in->f >= 0) {
        uint32_t cf = p[in->f], out = 0;
        bool wide64 = ti.bits == 64;
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            unsigned __int128 cin = (fl & F_USECC) ? (cf >> l & 1) : 0;
            unsigned __int128 a = wide64 ? A[l] : (uint32_t)A[l], b = wide64 ? B[l] : (uint32_t)B[l];
            unsigned __int128 full;
            bool carry;
            int w = wide64 ? 64 : 32;
            unsigned __int128 lim = (unsigned __int128)1 << w;
            if (op == OP_SUB) {
                full = a - b - cin;               /* wraps in 128 bits */
                carry = a < b + cin;              /* borrow out */
            } else {
                unsigned __int128 x = a;
                if (op == OP_MAD) {
                    unsigned __int128 prod = a * b;
                    x = (fl & F_HI) ? prod >> w : prod & (lim - 1);
                    b = wide64 ? C[l] : (uint32_t)C[l];
                }
                full = x + b + cin;
                carry = full >= lim;
            }
            D[l] = wide64 ? (uint64_t)full : (uint32_t)full;
            if (carry) out |= 1u << l;
        }
        if (fl & F_CC) p[in->f] = (cf & ~m) | (out & m);
        return true;
    }

    /* integer hot paths */
    if (ti.bits == 32 && !(fl & (F_HI | F_WIDE))) {
        switch (op) {
        case OP_ADD: LOOP((uint32_t)(A[l] + B[l])); return true;
        case OP_SUB: LOOP((uint32_t)(A[l] - B[l])); return true;
        case OP_MUL: LOOP((uint32_t)(A[l] * B[l])); return true;
        case OP_MAD: LOOP((uint32_t)(A[l] * B[l] + C[l])); return true;
        case OP_AND: LOOP(A[l] & B[l] & 0xffffffffu); return true;
        case OP_OR: LOOP((A[l] | B[l]) & 0xffffffffu); return true;
        case OP_XOR: LOOP((A[l] ^ B[l]) & 0xffffffffu); return true;
        case OP_SHL: LOOP((uint32_t)B[l] >= 32 ? 0 : (uint32_t)((uint32_t)A[l] << (uint32_t)B[l])); return true;
        case OP_SHR:
            if (ti.sgn) LOOP((uint32_t)((int32_t)A[l] >> ((uint32_t)B[l] >= 32 ? 31 : (uint32_t)B[l])));
            else LOOP((uint32_t)B[l] >= 32 ? 0 : (uint32_t)A[l] >> (uint32_t)B[l]);
            return true;
        default: break;
        }
    }
    if (ti.bits == 64 && !(fl & (F_HI | F_WIDE))) {
        switch (op) {
        case OP_ADD: LOOP(A[l] + B[l]); return true;
        case OP_SUB: LOOP(A[l] - B[l]); return true;
        case OP_MUL: LOOP(A[l] * B[l]); return true;
        case OP_MAD: LOOP(A[l] * B[l] + C[l]); return true;
        default: break;
        }
    }
    if (ti.bits == 32 && (fl & F_WIDE) && op == OP_MUL) {
        if (ti.sgn) LOOP((uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]));
        else LOOP((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]);
        return true;
    }
    switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_DIV: case OP_REM: case OP_MIN:
    case OP_MAX: case OP_NEG: case OP_ABS: case OP_AND: case OP_OR: case OP_XOR: case OP_NOT:
    case OP_CNOT: case OP_SHL: case OP_SHR: case OP_POPC: case OP_CLZ: case OP_BREV: case OP_BFIND:
    case OP_BFE: case OP_SAD: case OP_MUL24: case OP_MAD24:
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            D[l] = int_op(op, ti, fl, A[l], B ? B[l] : 0, C ? C[l] : 0);
        }
        return true;
    default:
        return false;
    }
}

/* Chooses a specialised opcode (emu_fast.h) when the instruction is one of
 * the hot, plain forms: no rounding modifier, ftz, sat or combining op. */
void emu_specialise(Instr *in) {
    int t = in->type, op = in->op;
    unsigned fl = in->flags;
    bool i32 = t == T_B32 || t == T_U32 || t == T_S32, i64 = t == T_B64 || t == T_U64 || t == T_S64;
    bool plain = !(fl & (F_FTZ | F_SAT | F_HI | F_WIDE | F_APPROX | F_CC | F_USECC)) && in->rnd == RND_DEF;
    if (fl & (F_CC | F_USECC)) return;
    int nop = -1;
    switch (op) {
    case OP_MOV: if (i32 || t == T_F32) nop = OPF_MOV32; else if (i64 || t == T_F64) nop = OPF_MOV64; break;
    case OP_ADD:
        if (plain && i32) nop = OPF_ADD32;
        else if (plain && i64) nop = OPF_ADD64;
        else if (t == T_F32 && !(fl & (F_FTZ | F_SAT)) && (in->rnd == RND_DEF || in->rnd == RND_RN)) nop = OPF_FADD;
        break;
    case OP_SUB:
        if (plain && i32) nop = OPF_SUB32;
        else if (plain && i64) nop = OPF_SUB64;
        else if (t == T_F32 && !(fl & (F_FTZ | F_SAT)) && (in->rnd == RND_DEF || in->rnd == RND_RN)) nop = OPF_FSUB;
        break;
    case OP_MUL:
        if (plain && i32) nop = OPF_MUL32;
        else if ((fl & F_WIDE) && !(fl & F_HI) && t == T_S32) nop = OPF_MULWS32;
        else if ((fl & F_WIDE) && !(fl & F_HI) && (t == T_U32 || t == T_B32)) nop = OPF_MULWU32;
        else if (t == T_F32 && !(fl & (F_FTZ | F_SAT)) && (in->rnd == RND_DEF || in->rnd == RND_RN)) nop = OPF_FMUL;
        break;
    case OP_MAD: if (plain && i32) nop = OPF_MAD32; break;
    case OP_FMA: if (t == T_F32 && !(fl & (F_FTZ | F_SAT | F_NEGA | F_NEGC)) && (in->rnd == RND_DEF || in->rnd == RND_RN)) nop = OPF_FFMA; break;
    case OP_SHL: if (i32) nop = OPF_SHL32; break;
    case OP_SHR: if (t == T_S32) nop = OPF_SHRS32; else if (i32) nop = OPF_SHRU32; break;
    case OP_AND: if (i32) nop = OPF_AND32; break;
    case OP_OR: if (i32) nop = OPF_OR32; break;
    case OP_XOR: if (i32) nop = OPF_XOR32; break;
    case OP_SELP: nop = OPF_SELP; break;
    case OP_CVTA: case OP_CVTA_TO:
        if ((in->space == SP_GLOBAL || in->space == SP_CONST) && (t == T_U64 || t == T_B64)) nop = OPF_MOV64;
        break;
    case OP_SETP:
        if (in->sub2 != BOP_NONE) break;
        if (t == T_S32 && in->sub <= CMP_GE) nop = OPF_SETPS32;
        else if ((t == T_U32 || t == T_B32) && (in->sub <= CMP_HS)) nop = OPF_SETPU32;
        else if (t == T_F32 && !(fl & F_FTZ) && in->sub <= CMP_GE && in->sub != CMP_NE) nop = OPF_SETPF32;
        break;
    default: break;
    }
    if (nop >= 0) in->op = (uint16_t)nop;
}
