/* kernels/emu/emu_lane.h: one lane's register value seen as what the
 * instruction says it is: its type's width and signedness, zero and sign
 * extension, the float views of its bits, .ftz and .sat, bf16, the host
 * rounding mode for a PTX rounding modifier; and LOOP, the lane loop of
 * every ALU handler. Shared by emu_alu.c and emu_cvt.c only. */
#ifndef CUDOJO_KERNELS_EMU_LANE_H
#define CUDOJO_KERNELS_EMU_LANE_H

#include <fenv.h>
#include <math.h>
#include <string.h>

#include "kernels/emu/emu_internal.h"

/* D[l] = EXPR for the lanes of m: a plain loop when all are active (the
 * compiler vectorises it), a masked one otherwise. */
#define LOOP(EXPR) do { \
    if (m == EMU_FULL) { for (int l = 0; l < 32; l++) D[l] = (EXPR); } \
    else { for (int l = 0; l < 32; l++) if (m >> l & 1) D[l] = (EXPR); } } while (0)

/* A PTX type's width in bits, signedness and whether it is a float. */
typedef struct TypeInfo { int bits; bool sgn, flt; } TypeInfo;

static inline TypeInfo type_info(int t) {
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

/* Zero / sign extension from `bits`, the float views of a register's bits, .ftz, .sat. */
static inline uint64_t zx(uint64_t v, int bits) { return bits >= 64 ? v : v & ((1ull << bits) - 1); }
static inline int64_t sx(uint64_t v, int bits) {
    return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}
static inline float f32(uint64_t v) { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t b32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* An f32 arithmetic result: a NaN is the GPU's canonical NaN 0x7fffffff
 * (x86 makes 0xffc00000 or keeps an input's payload; a GPU prints "nan",
 * not "-nan"). Branch-free, so the loops still vectorise. */
static inline uint64_t b32n(float f) { uint32_t u; memcpy(&u, &f, 4); return f != f ? 0x7fffffffu : u; }
static inline double f64(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t b64(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline float ftz32(float x) { return fabsf(x) < 1.17549435e-38f ? copysignf(0.0f, x) : x; }
static inline float sat32(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }  /* NaN → 0 */
static inline double sat64(double x) { return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; }

/* bf16 to float (exact) and back (round to nearest even; NaN stays NaN). */
static inline float bf16_to_float(uint16_t h) { return f32((uint64_t)h << 16); }
static inline uint16_t float_to_bf16(float f) {
    uint32_t u = (uint32_t)b32(f);
    if (isnan(f)) return 0x7fff;  /* the GPU's canonical bf16 NaN */
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
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

/* The host rounding mode for a PTX rounding modifier (.rz/.rzi, .rm/.rmi, .rp/.rpi; else nearest). */
static inline int fe_mode(int rnd) {
    switch (rnd) {
    case RND_RZ: case RND_RZI: return FE_TOWARDZERO;
    case RND_RM: case RND_RMI: return FE_DOWNWARD;
    case RND_RP: case RND_RPI: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

#endif
