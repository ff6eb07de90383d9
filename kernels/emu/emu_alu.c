/* kernels/emu/emu_alu.c: arithmetic, logic, compare and select
 * instructions over the 32 lanes of a warp (conversions: emu_cvt.c).
 *
 * Registers are 64-bit slots holding values zero-extended from the width the
 * instruction writes. Each handler is a loop over lanes with the operation
 * and type fixed outside it: a plain loop when all lanes are active (the C
 * compiler vectorises it), a masked loop otherwise. IEEE operations are
 * bit-exact: C's float/double arithmetic, fma/fmaf, sqrt; directed rounding
 * modes switch the host FPU's rounding mode around the loop. .approx
 * operations use the host's correctly rounded or libm functions; see
 * README.md for the bounds against the GPU. */
#include "kernels/emu/emu_alu.h"
#include "kernels/emu/emu_lane.h"

/* ---- one lane ------------------------------------------------------------------ */
/* .sat of add/sub.s32, mad.hi.s32 and mad24.hi.s32: the exact sum clamped to
 * MININT..MAXINT instead of the wrapped r. */
static uint64_t sat_s32(int op, unsigned flags, uint64_t a, uint64_t b, uint64_t c, uint64_t r) {
    int64_t x;
    switch (op) {
    case OP_ADD: x = sx(a, 32) + sx(b, 32); break;
    case OP_SUB: x = sx(a, 32) - sx(b, 32); break;
    case OP_MAD:
        if (!(flags & F_HI)) return r;
        x = ((sx(a, 32) * sx(b, 32)) >> 32) + sx(c, 32);
        break;
    case OP_MAD24:
        if (!(flags & F_HI)) return r;
        x = sx((uint64_t)((sx(a, 24) * sx(b, 24)) >> 16), 32) + sx(c, 32);
        break;
    default: return r;
    }
    return (uint64_t)(x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x);
}

/* One integer or bit operation on one lane (everything except the hot paths). */
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
    case OP_MUL24: case OP_MAD24:
        /* the 48-bit product of the 24-bit operands, signed or unsigned by the type */
        r = ti.sgn ? (uint64_t)(sx(a, 24) * sx(b, 24)) : zx(a, 24) * zx(b, 24);
        if (flags & F_HI) r = (uint64_t)((int64_t)r >> 16);
        if (op == OP_MAD24) r += c;
        break;
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
    case OP_BMSK: {
        /* bmsk.clamp/.wrap.b32 d, a (start), b (width): .wrap takes both mod 32; .clamp
         * makes a start >= 32 an empty mask and a width >= 32 run to the top */
        uint32_t pos = (uint32_t)a, width = (uint32_t)b, p1 = pos & 31, w1 = width & 31;
        bool clamp = (flags & F_CLAMP) != 0;
        uint32_t lo = clamp && pos >= 32 ? 0 : ~0u << p1;
        bool to_top = p1 + w1 >= 32 || (clamp && (pos >= 32 || width >= 32));
        uint32_t hi = to_top ? 0 : w1 == 0 ? ~0u : ~0u << (p1 + w1);
        return lo & ~hi;
    }
    case OP_SAD: r = (ti.sgn ? (sx(a, bits) > sx(b, bits)) : (zx(a, bits) > zx(b, bits))) ? a - b : b - a; r += c; break;
    default: r = 0;
    }
    if ((flags & F_SAT) && ti.sgn && bits == 32) r = sat_s32(op, flags, a, b, c, r);
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
/* div.approx.f32: a * (1/b), where for 2^126 < |b| < 2^128 the ISA says the
 * result is a sign-preserving zero (NaN when a is infinite): the reciprocal,
 * below FLT_MIN there, is flushed to a zero of b's sign. */
static float div_approx(float a, float b) {
    float mb = fabsf(b);
    if (mb > 0x1p126f && mb < INFINITY) return a * copysignf(0.0f, b);
    return a * (1.0f / b);
}

/* One f32 operation on one lane (everything except the hot paths). */
static float f32_op(int op, unsigned flags, float a, float b, float c) {
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_MAD: case OP_FMA: return fmaf(a, b, c);
    case OP_DIV:
        if (flags & F_APPROX) return div_approx(a, b);
        return a / b;
    case OP_MIN:
        if ((flags & F_NAN) && (isnan(a) || isnan(b))) return NAN;
        return isnan(a) ? b : isnan(b) ? a : (a < b || (a == b && signbit(a))) ? a : b;
    case OP_MAX:
        if ((flags & F_NAN) && (isnan(a) || isnan(b))) return NAN;
        return isnan(a) ? b : isnan(b) ? a : (a > b || (a == b && !signbit(a))) ? a : b;
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
    /* neg/abs flip or clear the sign; of a NaN they give the canonical NaN
     * ("unspecified NaN" in the ISA; cuda_fp16.h's host code says 0x7fff) */
    if ((op == OP_NEG || op == OP_ABS) && (a & 0x7fff) > (t == T_BF16 ? 0x7f80 : 0x7c00)) return 0x7fff;
    if (op == OP_NEG) return a ^ 0x8000;
    if (op == OP_ABS) return a & 0x7fff;
    float r;
    if (op == OP_FMA || op == OP_MAD) r = (float)fma((double)x, (double)y, (double)z);
    else r = f32_op(op, flags, x, y, z);
    if (flags & F_SAT) r = sat32(r);
    if (isnan(r)) return 0x7fff;  /* the GPU's canonical NaN of both 16-bit types */
    return t == T_BF16 ? float_to_bf16(r) : emu_float_to_half(r, RND_RN);
}

/* fmaf is a library call unless the compiler may use the FMA instruction:
 * compile one loop for FMA hardware and pick it at run time. */
__attribute__((target("fma"))) static void fma_loop_hw(uint64_t *D, const uint64_t *A, const uint64_t *B,
                                                       const uint64_t *C) {
    for (int l = 0; l < 32; l++) D[l] = b32n(__builtin_fmaf(f32(A[l]), f32(B[l]), f32(C[l])));
}

void emu_fma_loop(uint64_t *D, const uint64_t *A, const uint64_t *B, const uint64_t *C) {
    static int has_fma = -1;
    if (has_fma < 0) has_fma = __builtin_cpu_supports("fma") ? 1 : 0;
    if (has_fma) { fma_loop_hw(D, A, B, C); return; }
    for (int l = 0; l < 32; l++) D[l] = b32n(fmaf(f32(A[l]), f32(B[l]), f32(C[l])));
}

/* ---- one function per instruction family ----------------------------------------- */
/* What every handler gets: the warp's registers and predicates, the
 * instruction's operands as lane arrays (NULL when it has none there) and
 * its destination type. */
typedef struct Ops {
    uint64_t *r;
    uint32_t *p;
    uint64_t *D;
    const uint64_t *A, *B, *C;
    TypeInfo ti;
} Ops;

/* The operands as locals, so that LOOP's expressions read as the PTX does. */
#define OPERANDS(o) \
    uint64_t *D = (o)->D; const uint64_t *A = (o)->A, *B = (o)->B, *C = (o)->C; \
    (void)D; (void)A; (void)B; (void)C

/* Writes the lanes of m of predicate d. */
static inline void pred_set(uint32_t *p, int d, uint32_t v, uint32_t m) { p[d] = (p[d] & ~m) | (v & m); }

/* mov: the source, cut to the destination's width. */
static void alu_mov(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    (void)in;
    if (o->ti.bits >= 64) LOOP(A[l]);
    else LOOP(zx(A[l], o->ti.bits));
}

/* setp.cmp[.bop]: p = a cmp b (bop q); a second destination gets !(a cmp b) (bop q). */
static void alu_setp(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    int t = in->type, cmp = in->sub;
    uint32_t res = 0;
    if (t == T_F32 && cmp <= CMP_GE) {
        for (int l = 0; l < 32; l++) {
            float x = f32(A[l]), y = f32(B[l]);
            if (in->flags & F_FTZ) { x = ftz32(x); y = ftz32(y); }
            bool v = cmp == CMP_EQ ? x == y : cmp == CMP_NE ? (x != y && x == x && y == y)
                   : cmp == CMP_LT ? x < y : cmp == CMP_LE ? x <= y : cmp == CMP_GT ? x > y : x >= y;
            res |= (uint32_t)v << l;
        }
    } else if (t == T_F16X2 || t == T_BF16X2) {
        /* p|q: p compares the low halves, q the high halves (each combined with c) */
        int ht = t == T_F16X2 ? T_F16 : T_BF16;
        uint32_t hi = 0;
        for (int l = 0; l < 32; l++) {
            res |= (uint32_t)cmp_flt(cmp, fval(A[l] & 0xffff, ht), fval(B[l] & 0xffff, ht)) << l;
            hi |= (uint32_t)cmp_flt(cmp, fval(A[l] >> 16 & 0xffff, ht), fval(B[l] >> 16 & 0xffff, ht)) << l;
        }
        if (in->sub2) {
            uint32_t q = o->p[in->c];
            if (in->flags & F_NEGC) q = ~q;
            if (in->sub2 == BOP_AND) { res &= q; hi &= q; }
            else if (in->sub2 == BOP_OR) { res |= q; hi |= q; }
            else { res ^= q; hi ^= q; }
        }
        pred_set(o->p, in->d[0], res, m);
        if (in->d[1] >= 0) pred_set(o->p, in->d[1], hi, m);
        return;
    } else if (o->ti.flt) {
        for (int l = 0; l < 32; l++) res |= (uint32_t)cmp_flt(cmp, fval(A[l], t), fval(B[l], t)) << l;
    } else {
        for (int l = 0; l < 32; l++) res |= (uint32_t)cmp_int(cmp, o->ti.sgn, o->ti.bits, A[l], B[l]) << l;
    }
    uint32_t res2 = ~res;
    if (in->sub2) {
        uint32_t q = o->p[in->c];
        if (in->flags & F_NEGC) q = ~q;
        if (in->sub2 == BOP_AND) { res &= q; res2 &= q; }
        else if (in->sub2 == BOP_OR) { res |= q; res2 |= q; }
        else { res ^= q; res2 ^= q; }
    }
    pred_set(o->p, in->d[0], res, m);
    if (in->d[1] >= 0) pred_set(o->p, in->d[1], res2, m);
}

/* set.cmp[.bop].dtype.stype: 1.0 / all ones when true, per half for f16x2. */
static void alu_set(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    int st = in->type2, t = in->type;
    bool half2 = st == T_F16X2 || st == T_BF16X2;
    int ht = st == T_BF16X2 ? T_BF16 : T_F16;
    TypeInfo sti = type_info(st);
    uint32_t q = in->c >= 0 ? o->p[in->c] : 0;
    if (in->flags & F_NEGC) q = ~q;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t out = 0;
        for (int h = 0; h < (half2 ? 2 : 1); h++) {
            bool v;
            if (half2) v = cmp_flt(in->sub, fval(A[l] >> (16 * h) & 0xffff, ht), fval(B[l] >> (16 * h) & 0xffff, ht));
            else if (sti.flt) v = cmp_flt(in->sub, fval(A[l], st), fval(B[l], st));
            else v = cmp_int(in->sub, sti.sgn, sti.bits, A[l], B[l]);
            bool qb = q >> l & 1;
            if (in->sub2 == BOP_AND) v = v && qb;
            else if (in->sub2 == BOP_OR) v = v || qb;
            else if (in->sub2 == BOP_XOR) v = v != qb;
            uint64_t r1;
            switch (t) {
            case T_F32: r1 = v ? 0x3f800000u : 0; break;
            case T_F16: case T_F16X2: r1 = v ? 0x3c00u : 0; break;
            case T_BF16: case T_BF16X2: r1 = v ? 0x3f80u : 0; break;
            default:
                /* set.*.u32.f16x2: 0xffff per half */
                r1 = v ? (half2 ? 0xffffu : o->ti.bits >= 64 ? ~0ull : (1ull << o->ti.bits) - 1) : 0;
                break;
            }
            out |= r1 << (16 * h);
        }
        D[l] = out;
    }
}

/* selp d, a, b, q: a where q, else b. */
static void alu_selp(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    uint32_t q = o->p[in->c];
    if (in->flags & F_NEGC) q = ~q;
    LOOP((q >> l & 1) ? A[l] : B[l]);
}

/* slct d, a, b, c: a where c >= 0, else b. */
static void alu_slct(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    if (type_info(in->type2).flt) LOOP(f32(C[l]) >= 0.0f ? A[l] : B[l]);
    else LOOP(sx(C[l], 32) >= 0 ? A[l] : B[l]);
}

/* and/or/xor/not.pred. */
static void alu_pred_logic(const Instr *in, const Ops *o, uint32_t m) {
    uint32_t a = o->p[in->a[0]], b = in->b >= 0 ? o->p[in->b] : 0;
    if (in->flags & F_NEGA) a = ~a;
    if (in->flags & F_NEGB) b = ~b;
    int op = in->op;
    uint32_t v = op == OP_PAND ? a & b : op == OP_POR ? a | b : op == OP_PXOR ? a ^ b : ~a;
    pred_set(o->p, in->d[0], v, m);
}

/* mov.pred: from a predicate or a constant. */
static void alu_pmov(const Instr *in, const Ops *o, uint32_t m) {
    uint32_t v = in->a[0] < 0 ? (in->imm ? EMU_FULL : 0) : o->p[in->a[0]];
    if (in->flags & F_NEGA) v = ~v;
    pred_set(o->p, in->d[0], v, m);
}

/* testp.finite/infinite/number/notanumber/normal/subnormal. */
static void alu_testp(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    int t = in->type;
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
    pred_set(o->p, in->d[0], res, m);
}

/* mov d, {a0, a1, ..}: vec values of `size` bits into one register. */
static void alu_mov_pack(const Instr *in, const Ops *o, uint32_t m) {
    int n = in->vec, w = in->size;
    uint64_t mask = w >= 64 ? ~0ull : (1ull << w) - 1;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t v = 0;
        for (int i = 0; i < n; i++) v |= (o->r[(size_t)in->a[i] * 32 + l] & mask) << (w * i);
        o->r[(size_t)in->d[0] * 32 + l] = v;
    }
}

/* mov {d0, d1, ..}, a: one register into vec values of `size` bits. */
static void alu_mov_unpack(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    int n = in->vec, w = in->size;
    uint64_t mask = w >= 64 ? ~0ull : (1ull << w) - 1;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint64_t v = A[l];
        for (int i = 0; i < n; i++) o->r[(size_t)in->d[i] * 32 + l] = (v >> (w * i)) & mask;
    }
}

/* prmt.b32 d, a, b, c: bytes picked from {b, a} by c. */
static void alu_prmt(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    (void)in;
    LOOP(prmt((uint32_t)A[l], (uint32_t)B[l], (uint32_t)C[l]));
}

/* bfi d, a (insert), b (base), c (pos), e (len). */
static void alu_bfi(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    const uint64_t *E = o->r + (size_t)in->e * 32;
    int bits = o->ti.bits;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        unsigned pos = (unsigned)(C[l] & 0xff), len = (unsigned)(E[l] & 0xff);
        uint64_t base = B[l];
        if (len && pos < (unsigned)bits) {
            uint64_t fm = (len >= 64 ? ~0ull : (1ull << len) - 1) << pos;
            base = (base & ~fm) | ((A[l] << pos) & fm);
        }
        D[l] = zx(base, bits);
    }
}

/* lop3.b32 d, a, b, c, immLut: each bit of d is bit (a << 2 | b << 1 | c)
 * of immLut, the truth table of any function of three inputs (0xF0 is a,
 * 0xCC b, 0xAA c: immLut = F(0xF0, 0xCC, 0xAA)). */
static void alu_lop3(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    const uint64_t *E = o->r + (size_t)in->e * 32;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint32_t a = (uint32_t)A[l], b = (uint32_t)B[l], c = (uint32_t)C[l], lut = (uint32_t)E[l] & 0xff, d = 0;
        for (int k = 0; k < 8; k++) {      /* the minterms lut has: a, b, c or their complements */
            if (!(lut >> k & 1)) continue;
            d |= (k & 4 ? a : ~a) & (k & 2 ? b : ~b) & (k & 1 ? c : ~c);
        }
        D[l] = d;
    }
}

/* shf.l/.r.wrap/.clamp.b32 d, a (lo), b (hi), c (shift). */
static void alu_shf(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    unsigned fl = in->flags;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        uint32_t n = (uint32_t)C[l];
        n = (fl & F_CLAMP) ? (n > 32 ? 32 : n) : n & 31;
        uint64_t v = (uint64_t)(uint32_t)B[l] << 32 | (uint32_t)A[l];
        D[l] = (fl & F_SHFL_L) ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
    }
}

/* dp4a / dp2a[.lo/.hi]: type is a's signedness, type2 b's; dp2a.hi uses b's upper two bytes. */
static void alu_dot(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    int op = in->op;
    bool sa = in->type == T_S32, sb = in->type2 == T_S32;
    int boff = (op == OP_DP2A && (in->flags & F_HI)) ? 2 : 0;
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
}

/* ---- floating point ---------------------------------------------------------------- */
/* add/sub/mul/fma.f32 with no ftz, sat or directed rounding: the vectorised
 * loops. Returns false for anything else. */
static bool alu_f32_plain(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    switch (in->op) {
    case OP_ADD: LOOP(b32n(f32(A[l]) + f32(B[l]))); return true;
    case OP_SUB: LOOP(b32n(f32(A[l]) - f32(B[l]))); return true;
    case OP_MUL: LOOP(b32n(f32(A[l]) * f32(B[l]))); return true;
    case OP_FMA: case OP_MAD:
        if (m == EMU_FULL) emu_fma_loop(D, A, B, C);
        else LOOP(b32n(fmaf(f32(A[l]), f32(B[l]), f32(C[l]))));
        return true;
    default: return false;
    }
}

/* Any f32 operation lane by lane, with .ftz (tininess before rounding, as
 * measured on an H200) and .sat. */
static void alu_f32(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    int op = in->op;
    unsigned fl = in->flags;
    bool ftz = fl & F_FTZ, sat = fl & F_SAT;
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        float a = f32(A[l]), b = B ? f32(B[l]) : 0.0f, c = C ? f32(C[l]) : 0.0f;
        if (ftz) { a = ftz32(a); b = ftz32(b); c = ftz32(c); }
        volatile float res = f32_op(op, fl, a, b, c);
        float x = res;
        if (ftz) {
            /* a result whose exact value is below FLT_MIN is flushed even if it rounds up to FLT_MIN */
            double ex = op == OP_ADD ? (double)a + b : op == OP_SUB ? (double)a - b
                      : op == OP_MUL ? (double)a * b
                      : (op == OP_FMA || op == OP_MAD) ? fma((double)a, (double)b, (double)c) : (double)x;
            if (ex != 0 && fabs(ex) < 1.17549435e-38) x = copysignf(0.0f, (float)ex);
            else x = ftz32(x);
        }
        if (sat) x = sat32(x);
        /* neg, abs and copysign are bit operations that keep a NaN's bits */
        D[l] = (op == OP_NEG || op == OP_ABS || op == OP_COPYSIGN) ? b32(x) : b32n(x);
    }
}

/* Any f64 operation lane by lane, with .sat. */
static void alu_f64(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    for (int l = 0; l < 32; l++) {
        if (!(m >> l & 1)) continue;
        volatile double res = f64_op(in->op, in->flags, f64(A[l]), B ? f64(B[l]) : 0.0, C ? f64(C[l]) : 0.0);
        double x = res;
        if (in->flags & F_SAT) x = sat64(x);
        D[l] = b64(x);
    }
}

/* f16 / bf16, and their x2 forms: two values in one register. */
static void alu_f16(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    int t = in->type, op = in->op;
    unsigned fl = in->flags;
    if (t == T_F16 || t == T_BF16) {
        LOOP(h_op(op, t, fl, (uint16_t)A[l], B ? (uint16_t)B[l] : 0, C ? (uint16_t)C[l] : 0));
        return;
    }
    int ht = t == T_BF16X2 ? T_BF16 : T_F16;
    LOOP((uint64_t)h_op(op, ht, fl, (uint16_t)(A[l] >> 16), B ? (uint16_t)(B[l] >> 16) : 0,
                        C ? (uint16_t)(C[l] >> 16) : 0) << 16 |
         h_op(op, ht, fl, (uint16_t)A[l], B ? (uint16_t)B[l] : 0, C ? (uint16_t)C[l] : 0));
}

/* Every floating-point arithmetic instruction: the negations of a
 * contracted mul + sub (emu_contract.c), the rounding mode around the loop,
 * then the loop for the type. */
static void alu_float(const Instr *in, const Ops *o, uint32_t m) {
    uint64_t negA[32], negC[32];
    Ops on = *o;
    int t = in->type;
    unsigned fl = in->flags;
    if (in->op == OP_FMA && (fl & (F_NEGA | F_NEGC))) {
        /* flip the sign bit of the product's first factor or of the addend, per half for f16x2 */
        uint64_t sign = t == T_F32 ? 0x80000000ull : t == T_F64 ? 1ull << 63
                      : t == T_F16X2 ? 0x80008000ull : 0x8000ull;
        for (int l = 0; l < 32; l++) {
            negA[l] = (fl & F_NEGA) ? o->A[l] ^ sign : o->A[l];
            negC[l] = (fl & F_NEGC) ? o->C[l] ^ sign : o->C[l];
        }
        on.A = negA;
        on.C = negC;
    }
    int mode = (in->rnd >= RND_RZ && in->rnd <= RND_RP) ? fe_mode(in->rnd) : FE_TONEAREST;
    if (mode != FE_TONEAREST) fesetround(mode);
    if (t == T_F32) {
        if ((fl & (F_FTZ | F_SAT)) || mode != FE_TONEAREST || !alu_f32_plain(in, &on, m)) alu_f32(in, &on, m);
    } else if (t == T_F64) alu_f64(in, &on, m);
    else alu_f16(in, &on, m);
    if (mode != FE_TONEAREST) fesetround(FE_TONEAREST);
}

/* ---- integers ------------------------------------------------------------------------- */
/* add.cc / addc / sub.cc / subc / mad.cc / madc: carry in and out through predicate f. */
static void alu_carry(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    int op = in->op;
    unsigned fl = in->flags;
    uint32_t cf = o->p[in->f], out = 0;
    bool wide64 = o->ti.bits == 64;
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
    if (fl & F_CC) pred_set(o->p, in->f, out, m);
}

/* The plain 32-bit forms (no .hi/.wide), vectorised. Returns false for the rest. */
static bool alu_int32_plain(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    switch (in->op) {
    case OP_ADD: LOOP((uint32_t)(A[l] + B[l])); return true;
    case OP_SUB: LOOP((uint32_t)(A[l] - B[l])); return true;
    case OP_MUL: LOOP((uint32_t)(A[l] * B[l])); return true;
    case OP_MAD: LOOP((uint32_t)(A[l] * B[l] + C[l])); return true;
    case OP_AND: LOOP(A[l] & B[l] & 0xffffffffu); return true;
    case OP_OR: LOOP((A[l] | B[l]) & 0xffffffffu); return true;
    case OP_XOR: LOOP((A[l] ^ B[l]) & 0xffffffffu); return true;
    case OP_SHL: LOOP((uint32_t)B[l] >= 32 ? 0 : (uint32_t)((uint32_t)A[l] << (uint32_t)B[l])); return true;
    case OP_SHR:
        if (o->ti.sgn) LOOP((uint32_t)((int32_t)A[l] >> ((uint32_t)B[l] >= 32 ? 31 : (uint32_t)B[l])));
        else LOOP((uint32_t)B[l] >= 32 ? 0 : (uint32_t)A[l] >> (uint32_t)B[l]);
        return true;
    default: return false;
    }
}

/* The plain 64-bit add/sub/mul/mad, vectorised. Returns false for the rest. */
static bool alu_int64_plain(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    switch (in->op) {
    case OP_ADD: LOOP(A[l] + B[l]); return true;
    case OP_SUB: LOOP(A[l] - B[l]); return true;
    case OP_MUL: LOOP(A[l] * B[l]); return true;
    case OP_MAD: LOOP(A[l] * B[l] + C[l]); return true;
    default: return false;
    }
}

/* Every integer and bit instruction: the vectorised plain forms, else
 * int_op lane by lane. Returns false when `in` is not one. */
static bool alu_int(const Instr *in, const Ops *o, uint32_t m) {
    OPERANDS(o);
    TypeInfo ti = o->ti;
    unsigned fl = in->flags;
    int op = in->op;
    if (ti.bits == 32 && !(fl & (F_HI | F_WIDE | F_SAT)) && alu_int32_plain(in, o, m)) return true;
    if (ti.bits == 64 && !(fl & (F_HI | F_WIDE | F_SAT)) && alu_int64_plain(in, o, m)) return true;
    if (ti.bits == 32 && (fl & F_WIDE) && op == OP_MUL) {
        if (ti.sgn) LOOP((uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l]));
        else LOOP((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]);
        return true;
    }
    switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_DIV: case OP_REM: case OP_MIN:
    case OP_MAX: case OP_NEG: case OP_ABS: case OP_AND: case OP_OR: case OP_XOR: case OP_NOT:
    case OP_CNOT: case OP_SHL: case OP_SHR: case OP_POPC: case OP_CLZ: case OP_BREV: case OP_BFIND:
    case OP_BFE: case OP_SAD: case OP_MUL24: case OP_MAD24: case OP_BMSK:
        for (int l = 0; l < 32; l++) {
            if (!(m >> l & 1)) continue;
            D[l] = int_op(op, ti, fl, A[l], B ? B[l] : 0, C ? C[l] : 0);
        }
        return true;
    default:
        return false;
    }
}

/* ---- dispatcher -------------------------------------------------------------------- */
/* One line per instruction family (as Lua's luaV_execute): the named
 * handlers above; what is left is float, carry-chain or integer arithmetic. */
bool emu_alu(const Instr *in, uint64_t *r, uint32_t *p, uint32_t m) {
    Ops o = {
        .r = r, .p = p,
        .D = in->d[0] >= 0 ? r + (size_t)in->d[0] * 32 : NULL,
        .A = in->a[0] >= 0 ? r + (size_t)in->a[0] * 32 : NULL,
        .B = in->b >= 0 ? r + (size_t)in->b * 32 : NULL,
        .C = in->c >= 0 ? r + (size_t)in->c * 32 : NULL,
        .ti = type_info(in->type),
    };
    switch (in->op) {
    case OP_MOV: alu_mov(in, &o, m); return true;
    case OP_SETP: alu_setp(in, &o, m); return true;
    case OP_SET: alu_set(in, &o, m); return true;
    case OP_SELP: alu_selp(in, &o, m); return true;
    case OP_SLCT: alu_slct(in, &o, m); return true;
    case OP_PAND: case OP_POR: case OP_PXOR: case OP_PNOT: alu_pred_logic(in, &o, m); return true;
    case OP_PMOV: alu_pmov(in, &o, m); return true;
    case OP_TESTP: alu_testp(in, &o, m); return true;
    case OP_CVT: case OP_CVT_PACK: emu_alu_cvt(in, o.D, o.A, o.B, m); return true;
    case OP_MOV_PACK: alu_mov_pack(in, &o, m); return true;
    case OP_CVT_TF32: emu_alu_cvt_tf32(o.D, o.A, m); return true;
    case OP_MOV_UNPACK: alu_mov_unpack(in, &o, m); return true;
    case OP_PRMT: alu_prmt(in, &o, m); return true;
    case OP_BFI: alu_bfi(in, &o, m); return true;
    case OP_LOP3: alu_lop3(in, &o, m); return true;
    case OP_SHF: alu_shf(in, &o, m); return true;
    case OP_DP4A: case OP_DP2A: alu_dot(in, &o, m); return true;
    default: break;
    }
    if (o.ti.flt) { alu_float(in, &o, m); return true; }
    if ((in->flags & (F_CC | F_USECC)) && in->f >= 0) { alu_carry(in, &o, m); return true; }
    return alu_int(in, &o, m);
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
