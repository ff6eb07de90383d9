/* kernels/emu/emu_cvt.c: conversions: cvt between every integer and float
 * type (f16, bf16, f32, f64) with the rounding modifiers, .ftz and .sat, the
 * packing cvt to f16x2 / bf16x2, and half precision to and from float.
 *
 * Where the ISA leaves a result open (NaN to an integer) the emulator gives
 * what an H200 gives. Directed rounding switches the host FPU's rounding
 * mode around the one operation that rounds. */
#include "kernels/emu/emu_alu.h"
#include "kernels/emu/emu_lane.h"

/* ---- half precision --------------------------------------------------------- */
/* The float an IEEE half holds (exact). */
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
    if (isnan(f)) return 0x7fff;  /* the GPU's canonical half NaN (as cuda_fp16.h's host code) */
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

/* A float to bf16 in rounding mode rnd (cvt.{rn,rz,rm,rp}.bf16): the high
 * half of the float, moved one bf16 ulp away from zero when the mode says so. */
static uint16_t float_to_bf16_rnd(float f, int rnd) {
    if (rnd != RND_RZ && rnd != RND_RM && rnd != RND_RP) return float_to_bf16(f);
    if (isnan(f)) return 0x7fff;
    uint32_t u = (uint32_t)b32(f);
    uint16_t h = (uint16_t)(u >> 16);
    bool neg = u >> 31, inexact = (u & 0xffff) != 0;
    if (inexact && ((rnd == RND_RP && !neg) || (rnd == RND_RM && neg))) h++;
    return h;
}

/* A double as a float rounded to odd (toward zero, the last bit set when
 * bits were lost): rounded once more to f16's 11 or bf16's 8 bits, in any
 * mode, it gives the double's own rounding, where going through the nearest
 * float would round twice. */
static float f64_to_f32_odd(double x) {
    fesetround(FE_TOWARDZERO);
    volatile double vx = x;
    volatile float vf = (float)vx;
    fesetround(FE_TONEAREST);
    float f = vf;
    if ((double)f != x && !isinf(f)) {
        uint32_t u = (uint32_t)b32(f) | 1u;
        memcpy(&f, &u, 4);
    }
    return f;
}

/* ---- cvt ----------------------------------------------------------------------- */
/* One lane's cvt of v from in->type2 to in->type. */
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
            else if (dtype == T_BF16) r = float_to_bf16_rnd(f, in->rnd);
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
        /* cvt.f32.bf16 keeps a NaN's bits (0x7fff -> 0x7fff0000 on the H200, session 9:
           sm_90's __bfloat162float); a NaN from f16/f64 is the canonical 0x7fffffff */
        if (stype == T_BF16 && f != f) return (v & 0xffff) << 16;
        return b32n(f);
    }
    if (stype == T_F64 && (dtype == T_F16 || dtype == T_BF16)) {
        /* a NaN as the H200 gives it: cvt.rn.f16.f64 0x7e00 (session 8) and
           cvt.rn.bf16.f64 0x7fc0 (session 9), where the .f32 forms give 0x7fff */
        if (isnan(x)) return dtype == T_F16 ? 0x7e00 : 0x7fc0;
        float f = f64_to_f32_odd(x);
        return dtype == T_F16 ? emu_float_to_half(f, in->rnd) : float_to_bf16_rnd(f, in->rnd);
    }
    if (dtype == T_F16) return emu_float_to_half((float)x, in->rnd);
    if (dtype == T_BF16) return float_to_bf16_rnd((float)x, in->rnd);
    return 0;
}


/* cvt and cvt.rn.{f16x2,bf16x2}.f32 (a high, b low) over the lanes of m. */
void emu_alu_cvt(const Instr *in, uint64_t *D, const uint64_t *A, const uint64_t *B, uint32_t m) {
    TypeInfo dt = type_info(in->type);
    if (in->op == OP_CVT && !dt.flt && dt.sgn && in->dbits > dt.bits) {
        /* a signed result narrower than its register is sign-extended to the
         * register (the ISA's rule for wider destination operands) */
        LOOP(zx((uint64_t)sx(cvt_one(in, A[l]), dt.bits), in->dbits));
    } else if (in->op == OP_CVT) LOOP(cvt_one(in, A[l]));
    else if (in->type == T_BF16X2) LOOP((uint64_t)float_to_bf16(f32(A[l])) << 16 | float_to_bf16(f32(B[l])));
    else LOOP((uint64_t)emu_float_to_half(f32(A[l]), RND_RN) << 16 | emu_float_to_half(f32(B[l]), RND_RN));
}
