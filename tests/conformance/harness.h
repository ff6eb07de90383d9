/* tests/conformance/harness.h: buffers, arguments, inputs and comparisons for
 * the emulator conformance suite (tests/emu/test_conformance.c).
 *
 * A case's setup function declares its buffers and scalar arguments in the
 * kernel's parameter order (buf_new adds the pointer argument); the runner
 * allocates and uploads them, launches, and copies every output buffer back
 * into buf->host; the check function then computes the CPU reference and
 * compares with expect_buf / expect_close. The same buffers are compared
 * between the emulator and a real GPU under CUDOJO_TEST_GPU, with the
 * per-buffer tolerance set here (exact unless a case says otherwise).
 *
 * Float comparisons are bit-exact, except that any NaN equals any NaN (PTX
 * does not promise NaN payloads). Included once, by test_conformance.c. */
#ifndef CUDOJO_TESTS_CONFORMANCE_HARNESS_H
#define CUDOJO_TESTS_CONFORMANCE_HARNESS_H

#include <fenv.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/xalloc.h"
#include "kernels/backend.h"

#define MAX_BUFS 10
#define MAX_ARGS 16
#define MAX_SEGS 32
#define MAX_REPORTED 6

typedef enum ElemType {
    ET_I8, ET_U8, ET_I16, ET_U16, ET_F16, ET_I32, ET_U32, ET_F32, ET_I64, ET_U64, ET_F64,
} ElemType;

/* Tolerance for approximate results: |got - want| <= abs + ulp * ulp(want). */
typedef struct Tol {
    double ulp, abs, rel;
} Tol;

typedef struct Buf {
    const char *name;
    ElemType type;
    size_t n;
    void *host;             /* inputs before the launch; the device's contents after it */
    DevPtr dev;
    bool output;            /* copied back after the launch */
    bool nondeterministic;  /* contents depend on thread order: not compared GPU vs emulator */
    bool zero_sign_free;    /* +0 and -0 compare equal (min/max of zeros is unspecified) */
    Tol seg_tol[MAX_SEGS];  /* GPU vs emulator tolerance per segment of `seg` elements */
    size_t seg;             /* 0 = one segment */
} Buf;

typedef struct ArgSlot {
    int buf;                /* >= 0: pointer to bufs[buf]; < 0: scalar in arg */
    KernelArg arg;
} ArgSlot;

typedef struct Run {
    const struct Case *c;
    const char *mode;       /* "emu/deterministic", "gpu", ... for messages */
    bool is_gpu;
    Buf bufs[MAX_BUFS];
    int nbufs;
    ArgSlot args[MAX_ARGS];
    int nargs;
    int n;                  /* the problem size, for checks */
    int p[4];               /* other parameters a setup passes to its check */
    LaunchReport rep;
    StrBuf err;             /* failures found by the check; empty = passed */
    int nerr;
} Run;

/* ---- inputs ---------------------------------------------------------- */

static inline uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double u2d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

static const int32_t EDGE_I32[] = {
    0, 1, -1, 2, -2, 3, 7, -7, 10, -10, 13, 255, -256, 0x7fff, 0x10000, 12345, -98765,
    0x55555555, (int32_t)0xaaaaaaaau, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1,
};
#define N_EDGE_I32 ((int)(sizeof EDGE_I32 / sizeof EDGE_I32[0]))

static const int64_t EDGE_I64[] = {
    0, 1, -1, 2, -3, 7, 1000000007ll, -123456789012ll, 0x100000000ll, -0x100000000ll,
    0x5555555555555555ll, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, 0xffffffffll,
};
#define N_EDGE_I64 ((int)(sizeof EDGE_I64 / sizeof EDGE_I64[0]))

/* Bit patterns: ±0, ±1, denormals, FLT_MIN, FLT_MAX, ±inf, NaN, and ordinary values. */
static const uint32_t EDGE_F32[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x00000001, 0x80000001, 0x007fffff,
    0x00400000, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
    0x7fc00000, 0x3eaaaaab, 0x40490fdb, 0x3dcccccd, 0xc0200000, 0x4b000001, 0x1e3ce508,
    0x60ad78ec, 0x3f7fffff, 0x4effffff,
};
#define N_EDGE_F32 ((int)(sizeof EDGE_F32 / sizeof EDGE_F32[0]))

static const uint64_t EDGE_F64[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x0000000000000001ull, 0x800fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
    0xffefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
    0x3fd5555555555555ull, 0x400921fb54442d18ull, 0x3fb999999999999aull, 0xc004000000000000ull,
    0x4330000000000001ull, 0x3fefffffffffffffull, 0x41dfffffffc00000ull, 0x43e0000000000000ull,
};
#define N_EDGE_F64 ((int)(sizeof EDGE_F64 / sizeof EDGE_F64[0]))

/* A random float with a random exponent over most of the range (and its sign). */
static inline float rand_f32_wide(uint64_t *s) {
    uint32_t r = (uint32_t)rng_next(s);
    uint32_t exp = 1 + (uint32_t)(rng_next(s) % 253);
    return u2f((r & 0x807fffffu) | (exp << 23));
}

static inline double rand_f64_wide(uint64_t *s) {
    uint64_t r = rng_next(s);
    uint64_t exp = 1 + rng_next(s) % 2045;
    return u2d((r & 0x800fffffffffffffull) | (exp << 52));
}

/* Uniform in [lo, hi). */
static inline float rand_f32_in(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)((rng_next(s) >> 40) * (1.0 / 16777216.0));
}

/* Pairs (a[i], b[i]): every pair of edge values first, then random values. */
static void fill_pairs_i32(int32_t *a, int32_t *b, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        if (i < N_EDGE_I32 * N_EDGE_I32) {
            a[i] = EDGE_I32[i / N_EDGE_I32];
            b[i] = EDGE_I32[i % N_EDGE_I32];
        } else {
            a[i] = (int32_t)rng_next(&s);
            b[i] = (i & 1) ? (int32_t)rng_next(&s) : (int32_t)(rng_next(&s) % 2001) - 1000;
        }
    }
}

static void fill_pairs_i64(int64_t *a, int64_t *b, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        if (i < N_EDGE_I64 * N_EDGE_I64) {
            a[i] = EDGE_I64[i / N_EDGE_I64];
            b[i] = EDGE_I64[i % N_EDGE_I64];
        } else {
            a[i] = (int64_t)rng_next(&s);
            b[i] = (i & 1) ? (int64_t)rng_next(&s) : (int64_t)(rng_next(&s) % 100001) - 50000;
        }
    }
}

static void fill_pairs_f32(float *a, float *b, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        if (i < N_EDGE_F32 * N_EDGE_F32) {
            a[i] = u2f(EDGE_F32[i / N_EDGE_F32]);
            b[i] = u2f(EDGE_F32[i % N_EDGE_F32]);
        } else if (i & 1) {
            a[i] = rand_f32_wide(&s);
            b[i] = rand_f32_wide(&s);
        } else {
            a[i] = rand_f32_in(&s, -100.0f, 100.0f);
            b[i] = rand_f32_in(&s, -100.0f, 100.0f);
        }
    }
}

static void fill_pairs_f64(double *a, double *b, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        if (i < N_EDGE_F64 * N_EDGE_F64) {
            a[i] = u2d(EDGE_F64[i / N_EDGE_F64]);
            b[i] = u2d(EDGE_F64[i % N_EDGE_F64]);
        } else if (i & 1) {
            a[i] = rand_f64_wide(&s);
            b[i] = rand_f64_wide(&s);
        } else {
            a[i] = (double)rand_f32_in(&s, -100.0f, 100.0f) + (double)(rng_next(&s) % 1000) * 1e-9;
            b[i] = (double)rand_f32_in(&s, -100.0f, 100.0f);
        }
    }
}

/* A third operand: a shuffled mix of edge and random values. */
static void fill_third_f32(float *c, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++)
        c[i] = (i % 3 == 0) ? u2f(EDGE_F32[rng_next(&s) % N_EDGE_F32]) : rand_f32_in(&s, -50.0f, 50.0f);
}

static void fill_third_f64(double *c, int n, uint64_t seed) {
    uint64_t s = seed;
    for (int i = 0; i < n; i++)
        c[i] = (i % 3 == 0) ? u2d(EDGE_F64[rng_next(&s) % N_EDGE_F64]) : (double)rand_f32_in(&s, -50.0f, 50.0f);
}

/* ---- buffers and arguments ------------------------------------------ */

static inline size_t elem_size(ElemType t) {
    switch (t) {
    case ET_I8: case ET_U8: return 1;
    case ET_I16: case ET_U16: case ET_F16: return 2;
    case ET_I32: case ET_U32: case ET_F32: return 4;
    default: return 8;
    }
}

/* A zeroed buffer of n elements; its pointer becomes the next kernel argument.
 * Fill the returned host memory with the inputs. */
static void *buf_new(Run *r, const char *name, ElemType t, size_t n, bool output) {
    assert_true(r->nbufs < MAX_BUFS && r->nargs < MAX_ARGS);
    Buf *b = &r->bufs[r->nbufs];
    memset(b, 0, sizeof *b);
    b->name = name;
    b->type = t;
    b->n = n;
    b->host = xcalloc(n ? n : 1, elem_size(t));
    b->output = output;
    r->args[r->nargs].buf = r->nbufs;
    r->nargs++;
    r->nbufs++;
    return b->host;
}

#define IN(r, name, T, et, n) ((T *)buf_new((r), (name), (et), (n), false))
#define OUT(r, name, T, et, n) ((T *)buf_new((r), (name), (et), (n), true))
/* The last buffer declared. */
#define LAST_BUF(r) (&(r)->bufs[(r)->nbufs - 1])

static void arg_scalar(Run *r, KernelArg a) {
    assert_true(r->nargs < MAX_ARGS);
    r->args[r->nargs].buf = -1;
    r->args[r->nargs].arg = a;
    r->nargs++;
}

static inline void arg_i32(Run *r, int32_t v) { arg_scalar(r, kernel_arg_i32(v)); }
static inline void arg_u32(Run *r, uint32_t v) { arg_scalar(r, kernel_arg_u32(v)); }
static inline void arg_f32(Run *r, float v) { arg_scalar(r, kernel_arg_f32(v)); }

/* Tolerance of the GPU-vs-emulator comparison for a buffer of approximate results. */
static void buf_set_tol(Buf *b, size_t seg, const Tol *tols, int ntols) {
    b->seg = seg;
    for (int k = 0; k < ntols && k < MAX_SEGS; k++) b->seg_tol[k] = tols[k];
}

static void run_free_buffers(Run *r) {
    for (int i = 0; i < r->nbufs; i++) XFREE(r->bufs[i].host);
    r->nbufs = 0;
    r->nargs = 0;
}

/* ---- comparisons ----------------------------------------------------- */

static void run_fail(Run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_fail(Run *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (r->nerr < 40) {
        strbuf_vprintf(&r->err, fmt, ap);
        strbuf_append_char(&r->err, '\n');
    }
    va_end(ap);
    r->nerr++;
}

static double f16_to_double(uint16_t h);

/* Formats element i of a buffer of type t for a message. */
static void elem_format(ElemType t, const void *p, size_t i, char *out, size_t cap) {
    switch (t) {
    case ET_I8: snprintf(out, cap, "%d", ((const int8_t *)p)[i]); break;
    case ET_U8: snprintf(out, cap, "%u", ((const uint8_t *)p)[i]); break;
    case ET_I16: snprintf(out, cap, "%d", ((const int16_t *)p)[i]); break;
    case ET_U16: snprintf(out, cap, "%u", ((const uint16_t *)p)[i]); break;
    case ET_F16: {
        uint16_t h = ((const uint16_t *)p)[i];
        snprintf(out, cap, "%.6g (0x%04x)", f16_to_double(h), h);
        break;
    }
    case ET_I32: snprintf(out, cap, "%d (0x%08x)", ((const int32_t *)p)[i], ((const uint32_t *)p)[i]); break;
    case ET_U32: snprintf(out, cap, "%u (0x%08x)", ((const uint32_t *)p)[i], ((const uint32_t *)p)[i]); break;
    case ET_F32: {
        float f = ((const float *)p)[i];
        snprintf(out, cap, "%.9g (0x%08x)", f, f2u(f));
        break;
    }
    case ET_I64: snprintf(out, cap, "%" PRId64 " (0x%016" PRIx64 ")", ((const int64_t *)p)[i], ((const uint64_t *)p)[i]); break;
    case ET_U64: snprintf(out, cap, "%" PRIu64 " (0x%016" PRIx64 ")", ((const uint64_t *)p)[i], ((const uint64_t *)p)[i]); break;
    case ET_F64: {
        double d = ((const double *)p)[i];
        snprintf(out, cap, "%.17g (0x%016" PRIx64 ")", d, d2u(d));
        break;
    }
    }
}

static bool f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

/* Bit-exact equality of element i, any NaN equal to any NaN. */
static bool elem_equal(ElemType t, const void *a, const void *b, size_t i, bool zero_sign_free) {
    switch (t) {
    case ET_F16: {
        uint16_t x = ((const uint16_t *)a)[i], y = ((const uint16_t *)b)[i];
        if (f16_is_nan(x) && f16_is_nan(y)) return true;
        if (zero_sign_free && !(x & 0x7fff) && !(y & 0x7fff)) return true;
        return x == y;
    }
    case ET_F32: {
        float x = ((const float *)a)[i], y = ((const float *)b)[i];
        if (isnan(x) && isnan(y)) return true;
        if (zero_sign_free && x == 0.0f && y == 0.0f) return true;
        return f2u(x) == f2u(y);
    }
    case ET_F64: {
        double x = ((const double *)a)[i], y = ((const double *)b)[i];
        if (isnan(x) && isnan(y)) return true;
        if (zero_sign_free && x == 0.0 && y == 0.0) return true;
        return d2u(x) == d2u(y);
    }
    default: {
        size_t es = elem_size(t);
        return memcmp((const char *)a + i * es, (const char *)b + i * es, es) == 0;
    }
    }
}

static double elem_as_double(ElemType t, const void *p, size_t i) {
    switch (t) {
    case ET_F16: return f16_to_double(((const uint16_t *)p)[i]);
    case ET_F32: return ((const float *)p)[i];
    case ET_F64: return ((const double *)p)[i];
    default: return 0;
    }
}

/* The spacing of floats of type t at magnitude |x|. */
static double ulp_of(ElemType t, double x) {
    x = fabs(x);
    if (t == ET_F64) return isfinite(x) ? nextafter(x, INFINITY) - x : 0;
    if (t == ET_F16) {
        int e;
        frexp(x < 6.103515625e-05 ? 6.103515625e-05 : x, &e);
        return ldexp(1.0, e - 11);
    }
    float f = (float)x;
    return isfinite(f) ? (double)nextafterf(f, INFINITY) - (double)f : 0;
}

static bool elem_close(ElemType t, const void *got, const void *want, size_t i, Tol tol) {
    if (elem_equal(t, got, want, i, false)) return true;
    double g = elem_as_double(t, got, i), w = elem_as_double(t, want, i);
    if (isnan(g) || isnan(w) || isinf(g) || isinf(w)) return false;
    double bound = tol.abs + tol.ulp * ulp_of(t, w) + tol.rel * fabs(w);
    return fabs(g - w) <= bound;
}

/* Compares buffer bi with `want` (same type and length), exactly. `label`
 * names element groups: mismatches say "op k" for index k*seg + i. */
static void expect_buf_ex(Run *r, int bi, const void *want, size_t seg, const Tol *tols) {
    Buf *b = &r->bufs[bi];
    int reported = 0;
    size_t wrong = 0;
    for (size_t i = 0; i < b->n; i++) {
        bool ok;
        if (tols) {
            size_t s = seg ? i / seg : 0;
            ok = elem_close(b->type, b->host, want, i, tols[s < MAX_SEGS ? s : MAX_SEGS - 1]);
        } else {
            ok = elem_equal(b->type, b->host, want, i, b->zero_sign_free);
        }
        if (ok) continue;
        wrong++;
        if (reported++ < MAX_REPORTED) {
            char g[64], w[64];
            elem_format(b->type, b->host, i, g, sizeof g);
            elem_format(b->type, want, i, w, sizeof w);
            if (seg)
                run_fail(r, "  %s[%zu] (op %zu, element %zu): got %s, want %s", b->name, i, i / seg, i % seg, g, w);
            else
                run_fail(r, "  %s[%zu]: got %s, want %s", b->name, i, g, w);
        }
    }
    if (wrong) run_fail(r, "  %s: %zu of %zu elements wrong", b->name, wrong, b->n);
}

static inline void expect_buf(Run *r, int bi, const void *want) { expect_buf_ex(r, bi, want, (size_t)r->n, NULL); }

static void expect_true(Run *r, bool ok, const char *what) {
    if (!ok) run_fail(r, "  %s", what);
}

/* ---- reference arithmetic ------------------------------------------ */

/* One f32/f64 operation under a rounding mode. The operands go through
 * volatile so the operation happens between the two fesetround calls. */
typedef enum FOp { FO_ADD, FO_SUB, FO_MUL, FO_DIV, FO_FMA, FO_SQRT, FO_RCP } FOp;

static float ref_f32(FOp op, int mode, float a, float b, float c) {
    volatile float x = a, y = b, z = c, res;
    fesetround(mode);
    switch (op) {
    case FO_ADD: res = x + y; break;
    case FO_SUB: res = x - y; break;
    case FO_MUL: res = x * y; break;
    case FO_DIV: res = x / y; break;
    case FO_FMA: res = fmaf(x, y, z); break;
    case FO_SQRT: res = sqrtf(x); break;
    default: res = 1.0f / y; break;
    }
    fesetround(FE_TONEAREST);
    return res;
}

static double ref_f64(FOp op, int mode, double a, double b, double c) {
    volatile double x = a, y = b, z = c, res;
    fesetround(mode);
    switch (op) {
    case FO_ADD: res = x + y; break;
    case FO_SUB: res = x - y; break;
    case FO_MUL: res = x * y; break;
    case FO_DIV: res = x / y; break;
    case FO_FMA: res = fma(x, y, z); break;
    case FO_SQRT: res = sqrt(x); break;
    default: res = 1.0 / y; break;
    }
    fesetround(FE_TONEAREST);
    return res;
}

/* Rounds an exact value to an integral value the PTX way (.rni/.rzi/.rpi/.rmi). */
static double round_integral(double v, int mode) {
    switch (mode) {
    case FE_TOWARDZERO: return trunc(v);
    case FE_UPWARD: return ceil(v);
    case FE_DOWNWARD: return floor(v);
    default: return nearbyint(v);   /* ties to even in the default mode */
    }
}

/* What float -> integer cvt makes of NaN. The PTX ISA leaves it open; measured
 * on an H200 (sm_90, driver 580): 0 when converting f32 (or f16) to an integer
 * of 32 bits or fewer; the sign bit alone (0x80000000) for f64 to 32 bits,
 * and 0x8000000000000000 for any conversion to 64 bits. */
static int64_t nan_to_int(bool from_f64, int bits) {
    if (bits == 64) return INT64_MIN;
    return from_f64 ? (int64_t)(int32_t)INT32_MIN : 0;
}

/* cvt.{rni,...}.sNN.fXX: saturates to [lo, hi]; NaN gives nan_to_int(). */
static int64_t ref_f2s_nan(double v, int mode, int64_t lo, int64_t hi, int64_t nan_value) {
    if (isnan(v)) return nan_value;
    double r = round_integral(v, mode);
    if (r <= (double)lo) return lo;
    if (r >= (double)hi) return hi;
    return (int64_t)r;
}

static int64_t ref_f2s(double v, int mode, int64_t lo, int64_t hi) {
    if (isnan(v)) return 0;
    double r = round_integral(v, mode);
    if (r <= (double)lo) return lo;
    if (r >= (double)hi) return hi;
    return (int64_t)r;
}

static uint64_t ref_f2u_nan(double v, int mode, uint64_t hi, uint64_t nan_value) {
    if (isnan(v)) return nan_value;
    double r = round_integral(v, mode);
    if (r <= 0) return 0;
    if (r >= (double)hi) return hi;
    return (uint64_t)r;
}

static uint64_t ref_f2u(double v, int mode, uint64_t hi) {
    if (isnan(v)) return 0;
    double r = round_integral(v, mode);
    if (r <= 0) return 0;
    if (r >= (double)hi) return hi;
    return (uint64_t)r;
}

/* Integer -> float under a rounding mode (cvtsi2ss honours MXCSR). */
static float ref_i2f(int64_t v, int mode) {
    volatile int64_t x = v;
    volatile float res;
    fesetround(mode);
    res = (float)x;
    fesetround(FE_TONEAREST);
    return res;
}

static float ref_u2f(uint64_t v, int mode) {
    volatile uint64_t x = v;
    volatile float res;
    fesetround(mode);
    res = (float)x;
    fesetround(FE_TONEAREST);
    return res;
}

static double ref_i2d(int64_t v, int mode) {
    volatile int64_t x = v;
    volatile double res;
    fesetround(mode);
    res = (double)x;
    fesetround(FE_TONEAREST);
    return res;
}

static double ref_u2d(uint64_t v, int mode) {
    volatile uint64_t x = v;
    volatile double res;
    fesetround(mode);
    res = (double)x;
    fesetround(FE_TONEAREST);
    return res;
}

static float ref_d2f(double v, int mode) {
    volatile double x = v;
    volatile float res;
    fesetround(mode);
    res = (float)x;
    fesetround(FE_TONEAREST);
    return res;
}

/* Flush-to-zero of a float (sign preserved), as .ftz does to inputs. */
static inline float ftz(float x) {
    return (fpclassify(x) == FP_SUBNORMAL) ? copysignf(0.0f, x) : x;
}

/* .ftz on a result: the hardware flushes when the exact result is below
 * FLT_MIN in magnitude, even if it would round up to FLT_MIN (tininess
 * before rounding; measured on an H200). `exact` is the result before
 * rounding (or close enough to decide), `rounded` the float result. */
static inline float ftz_result(double exact, float rounded) {
    if (exact != 0 && fabs(exact) < (double)FLT_MIN) return copysignf(0.0f, (float)exact);
    return ftz(rounded);
}

/* ---- half precision ------------------------------------------------- */

static double f16_to_double(uint16_t h) {
    int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0x1f) v = m ? NAN : INFINITY;
    else if (e == 0) v = ldexp((double)m, -24);
    else v = ldexp((double)(m | 0x400), e - 25);
    return sign ? -v : v;
}

/* Rounds an exact double to the nearest half in `mode` (one rounding). */
static uint16_t f16_from_double(double v, int mode) {
    if (isnan(v)) return 0x7fff;
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    double a = fabs(v);
    /* Rounding the magnitude: up, down (toward zero) or to nearest even. */
    bool mag_up = (mode == FE_UPWARD && !sign) || (mode == FE_DOWNWARD && sign);
    bool mag_down = mode == FE_TOWARDZERO || (mode == FE_UPWARD && sign) || (mode == FE_DOWNWARD && !sign);
    if (isinf(a)) return sign | 0x7c00;
    int e;
    frexp(a, &e);           /* a = f * 2^e, f in [0.5, 1): the leading bit is 2^(e-1) */
    int lead = e - 1;
    if (lead < -14) lead = -14;
    if (lead > 15) lead = 16;  /* beyond the range: rounds to inf or max */
    double q = ldexp(1.0, lead - 10);
    double m = a / q;       /* exact: a power-of-two scaling */
    double rm = mag_up ? ceil(m) : mag_down ? floor(m) : nearbyint(m);
    double r = rm * q;
    if (r > 65504.0) return sign | (mag_down ? 0x7bff : 0x7c00);
    if (r == 0) return sign;
    if (r < ldexp(1.0, -14)) return sign | (uint16_t)(r / ldexp(1.0, -24));
    frexp(r, &e);
    lead = e - 1;
    uint16_t mant = (uint16_t)(r / ldexp(1.0, lead - 10)) - 0x400;
    return sign | (uint16_t)((lead + 15) << 10) | mant;
}

#endif
