/* kernels/emu/emu_fast.h: the hottest instructions, specialised at decode
 * time (emu_specialise) so the interpreter runs them without looking at
 * types or modifiers. Included by emu_exec.c only. */
#ifndef CUDOJO_KERNELS_EMU_FAST_H
#define CUDOJO_KERNELS_EMU_FAST_H

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "kernels/emu/emu_alu.h"

/* Pure operations: a partial mask computes every lane and selects, which
 * vectorises as well as the full-mask loop. */
#define FLOOP(EXPR) do { \
    if (m == EMU_FULL) { for (int l = 0; l < 32; l++) D[l] = (EXPR); } \
    else { for (int l = 0; l < 32; l++) { uint64_t v_ = (EXPR); D[l] = (m >> l & 1) ? v_ : D[l]; } } } while (0)

static inline float ff32(uint64_t v) { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); return f; }
/* f32 arithmetic results: a NaN is the GPU's canonical 0x7fffffff (as b32n) */
static inline uint64_t fb32(float f) { uint32_t u; memcpy(&u, &f, 4); return f != f ? 0x7fffffffu : u; }


#ifdef __SSE2__
/* The low 32 bits of four 64-bit register slots, as four 32-bit lanes. */
static inline __m128i low4(const uint64_t *v) {
    __m128 a = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(const void *)v));
    __m128 b = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(const void *)(v + 2)));
    return _mm_castps_si128(_mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)));
}

/* setp on 32-bit integers (signed, or unsigned via the sign-bit flip) and
 * ordered f32 compares, four lanes per step, no branches in the loop: the
 * less-than, equal and unordered masks, combined once at the end. */
static inline uint32_t setp32_sse(const uint64_t *A, const uint64_t *B, int cmp, int kind) {
    uint32_t lt = 0, eq = 0, un = 0;
    const __m128i flip = _mm_set1_epi32(kind == 1 ? (int)0x80000000u : 0);
    for (int l = 0; l < 32; l += 4) {
        __m128i a = low4(A + l), b = low4(B + l);
        if (kind == 2) {
            __m128 x = _mm_castsi128_ps(a), y = _mm_castsi128_ps(b);
            lt |= (uint32_t)_mm_movemask_ps(_mm_cmplt_ps(x, y)) << l;
            eq |= (uint32_t)_mm_movemask_ps(_mm_cmpeq_ps(x, y)) << l;
            un |= (uint32_t)_mm_movemask_ps(_mm_cmpunord_ps(x, y)) << l;
        } else {
            a = _mm_xor_si128(a, flip);
            b = _mm_xor_si128(b, flip);
            lt |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmplt_epi32(a, b))) << l;
            eq |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a, b))) << l;
        }
    }
    uint32_t gt = ~(lt | eq | un);
    switch (cmp) {
    case CMP_EQ: return eq;
    case CMP_NE: return ~eq & ~un;
    case CMP_LT: case CMP_LO: return lt;
    case CMP_LE: case CMP_LS: return lt | eq;
    case CMP_GT: case CMP_HI: return gt;
    default: return gt | eq;
    }
}
#endif

static inline void fast_exec(const Instr *in, uint64_t *r, uint32_t *p, uint32_t m) {
    uint64_t *D = r + (size_t)in->d[0] * 32;
    const uint64_t *A = r + (size_t)in->a[0] * 32;
    const uint64_t *B = r + (size_t)(in->b < 0 ? 0 : in->b) * 32;
    const uint64_t *C = r + (size_t)(in->c < 0 ? 0 : in->c) * 32;
    switch (in->op) {
    case OPF_MOV32: FLOOP(A[l] & 0xffffffffu); break;
    case OPF_MOV64: FLOOP(A[l]); break;
    case OPF_ADD32: FLOOP((uint32_t)(A[l] + B[l])); break;
    case OPF_SUB32: FLOOP((uint32_t)(A[l] - B[l])); break;
    case OPF_MUL32: FLOOP((uint32_t)(A[l] * B[l])); break;
    case OPF_MAD32: FLOOP((uint32_t)(A[l] * B[l] + C[l])); break;
    case OPF_ADD64: FLOOP(A[l] + B[l]); break;
    case OPF_SUB64: FLOOP(A[l] - B[l]); break;
    case OPF_MULWS32: FLOOP((uint64_t)((int64_t)(int32_t)A[l] * (int64_t)(int32_t)B[l])); break;
    case OPF_MULWU32: FLOOP((uint64_t)(uint32_t)A[l] * (uint32_t)B[l]); break;
    case OPF_SHL32: FLOOP((uint32_t)B[l] >= 32 ? 0 : (uint32_t)((uint32_t)A[l] << (uint32_t)B[l])); break;
    case OPF_SHRU32: FLOOP((uint32_t)B[l] >= 32 ? 0 : (uint32_t)A[l] >> (uint32_t)B[l]); break;
    case OPF_SHRS32: FLOOP((uint32_t)((int32_t)A[l] >> ((uint32_t)B[l] >= 32 ? 31 : (uint32_t)B[l]))); break;
    case OPF_AND32: FLOOP(A[l] & B[l] & 0xffffffffu); break;
    case OPF_OR32: FLOOP((A[l] | B[l]) & 0xffffffffu); break;
    case OPF_XOR32: FLOOP((A[l] ^ B[l]) & 0xffffffffu); break;
    case OPF_FADD: FLOOP(fb32(ff32(A[l]) + ff32(B[l]))); break;
    case OPF_FSUB: FLOOP(fb32(ff32(A[l]) - ff32(B[l]))); break;
    case OPF_FMUL: FLOOP(fb32(ff32(A[l]) * ff32(B[l]))); break;
    case OPF_FFMA:
        if (m == EMU_FULL) emu_fma_loop(D, A, B, C);
        else for (int l = 0; l < 32; l++) if (m >> l & 1) D[l] = fb32(__builtin_fmaf(ff32(A[l]), ff32(B[l]), ff32(C[l])));
        break;
    case OPF_SELP: {
        uint32_t q = p[in->c];
        if (in->flags & F_NEGC) q = ~q;
        FLOOP((q >> l & 1) ? A[l] : B[l]);
        break;
    }
    case OPF_SHL32I: { unsigned n = (unsigned)in->imm; FLOOP((uint32_t)((uint32_t)A[l] << n)); break; }
    case OPF_SHRU32I: { unsigned n = (unsigned)in->imm; FLOOP((uint32_t)A[l] >> n); break; }
    case OPF_SHRS32I: { unsigned n = (unsigned)in->imm; FLOOP((uint32_t)((int32_t)A[l] >> n)); break; }
    case OPF_SETPS32: case OPF_SETPU32: case OPF_SETPF32: {
        uint32_t res = 0;
        /* one loop per comparison, so each loop is branch-free */
#define SETP1(T, CV, OP) do { for (int l = 0; l < 32; l++) res |= (uint32_t)((T)CV(A[l]) OP (T)CV(B[l])) << l; } while (0)
#define SETP_ALL(T, CV) do { switch (in->sub) { \
        case CMP_EQ: SETP1(T, CV, ==); break; case CMP_NE: SETP1(T, CV, !=); break; \
        case CMP_LT: case CMP_LO: SETP1(T, CV, <); break; case CMP_LE: case CMP_LS: SETP1(T, CV, <=); break; \
        case CMP_GT: case CMP_HI: SETP1(T, CV, >); break; default: SETP1(T, CV, >=); break; } } while (0)
#ifdef __SSE2__
        res = setp32_sse(A, B, in->sub, in->op == OPF_SETPS32 ? 0 : in->op == OPF_SETPU32 ? 1 : 2);
#else
        if (in->op == OPF_SETPS32) SETP_ALL(int32_t, (int32_t));
        else if (in->op == OPF_SETPU32) SETP_ALL(uint32_t, (uint32_t));
        else SETP_ALL(float, ff32);   /* ordered compares only (no ne): NaN gives false */
#endif
#undef SETP_ALL
#undef SETP1
        p[in->d[0]] = (p[in->d[0]] & ~m) | (res & m);
        if (in->d[1] >= 0) p[in->d[1]] = (p[in->d[1]] & ~m) | (~res & m);
        break;
    }
    default: break;
    }
}

#endif
