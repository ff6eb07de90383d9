/* lua/dtype.c: the element types of gpu.array and how one element is read
 * and written in host memory.
 *
 * f16 (IEEE binary16, CUDA's __half) and bf16 (__nv_bfloat16) are stored
 * as their bits; a value goes in rounded once, to nearest with ties to
 * even, straight from the Lua number (a double): subnormals are kept,
 * a value past the largest finite one becomes an infinity, NaN stays NaN.
 * Reading gives the exact value back as a double. Integers never wrap
 * silently from a float: NaN reads as 0, a value out of range clamps
 * (clamp_i64). Nothing here knows about Lua. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lua/api.h"

static const struct {
    const char *name;
    size_t size;
    bool is_float, is_signed;
} dtypes[DT_COUNT] = {
    [DT_F32] = {"f32", 4, true, true},  [DT_F64] = {"f64", 8, true, true},
    [DT_I32] = {"i32", 4, false, true}, [DT_U32] = {"u32", 4, false, false},
    [DT_I64] = {"i64", 8, false, true}, [DT_U64] = {"u64", 8, false, false},
    [DT_I8] = {"i8", 1, false, true},   [DT_U8] = {"u8", 1, false, false},
    [DT_I16] = {"i16", 2, false, true}, [DT_U16] = {"u16", 2, false, false},
    [DT_F16] = {"f16", 2, true, true},  [DT_BF16] = {"bf16", 2, true, true},
    [DT_STRUCT] = {"struct", 0, false, false},
};

size_t dtype_size(DType t) { assert(t >= 0 && t < DT_STRUCT); return dtypes[t].size; }
const char *dtype_name(DType t) { assert(t >= 0 && t < DT_COUNT); return dtypes[t].name; }
bool dtype_is_float(DType t) { assert(t >= 0 && t < DT_COUNT); return dtypes[t].is_float; }
bool dtype_is_signed(DType t) { assert(t >= 0 && t < DT_COUNT); return dtypes[t].is_signed; }

bool dtype_parse(const char *s, DType *out) {
    for (int i = 0; i < DT_STRUCT; i++)
        if (!strcmp(s, dtypes[i].name)) {
            *out = (DType)i;
            return true;
        }
    return false;
}

/* ---- small floats ------------------------------------------------------- */

/* x rounded to nearest-even into a binary format with `mbits` fraction
 * bits and `ebits` exponent bits: its bits (the sign above both). */
static uint32_t small_float_bits(double x, int mbits, int ebits) {
    uint32_t sign = signbit(x) ? 1u << (mbits + ebits) : 0;
    int bias = (1 << (ebits - 1)) - 1;
    uint32_t exp_all = (1u << ebits) - 1;
    if (isnan(x)) return sign | exp_all << mbits | 1u << (mbits - 1);
    double a = fabs(x);
    if (isinf(a)) return sign | exp_all << mbits;
    if (a == 0) return sign;
    int e = 0;
    frexp(a, &e);                               /* a = m * 2^e, m in [0.5, 1) */
    int E = e - 1;                              /* a in [2^E, 2^(E+1)) */
    if (E < 1 - bias) {                         /* subnormal: in units of the smallest subnormal */
        double q = nearbyint(ldexp(a, bias - 1 + mbits));
        return sign | (uint32_t)q;              /* q = 2^mbits is the smallest normal: the same bits */
    }
    double q = nearbyint(ldexp(a, mbits - E));  /* exact scaling, one rounding: [2^mbits, 2^(mbits+1)] */
    if (q >= ldexp(1, mbits + 1)) {
        q = ldexp(1, mbits);
        E++;
    }
    if (E + bias >= (int)exp_all) return sign | exp_all << mbits;   /* overflow: infinity */
    return sign | (uint32_t)(E + bias) << mbits | ((uint32_t)q - (1u << mbits));
}

static double small_float_value(uint32_t bits, int mbits, int ebits) {
    int bias = (1 << (ebits - 1)) - 1;
    uint32_t exp_all = (1u << ebits) - 1;
    uint32_t ex = bits >> mbits & exp_all, m = bits & ((1u << mbits) - 1);
    double v;
    if (ex == exp_all) v = m ? NAN : INFINITY;
    else if (ex == 0) v = ldexp(m, 1 - bias - mbits);
    else v = ldexp(m + (1u << mbits), (int)ex - bias - mbits);
    return bits >> (mbits + ebits) & 1 ? -v : v;
}

uint16_t f16_from_double(double x) { return (uint16_t)small_float_bits(x, 10, 5); }
double f16_to_double(uint16_t h) { return small_float_value(h, 10, 5); }
uint16_t bf16_from_double(double x) { return (uint16_t)small_float_bits(x, 7, 8); }
double bf16_to_double(uint16_t h) { return small_float_value(h, 7, 8); }

double dtype_round(DType t, double v) {
    switch (t) {
    case DT_F32: return (double)(float)v;
    case DT_F16: return f16_to_double(f16_from_double(v));
    case DT_BF16: return bf16_to_double(bf16_from_double(v));
    default: return v;
    }
}

/* The largest value of the float type t below x (x itself one of t's). */
double dtype_next_below(DType t, double x) {
    if (t == DT_F32) return nextafterf((float)x, -INFINITY);
    if (t == DT_F64) return nextafter(x, -INFINITY);
    uint16_t h = t == DT_F16 ? f16_from_double(x) : bf16_from_double(x);
    uint16_t sign = 0x8000;
    if (x == 0) h = sign | 1;                   /* -(smallest subnormal) */
    else if (h & sign) h++;                     /* more negative */
    else h--;
    return t == DT_F16 ? f16_to_double(h) : bf16_to_double(h);
}

/* ---- one element at p ---------------------------------------------------- */

int64_t clamp_i64(double v) {
    if (v != v) return 0;
    if (v >= 9.2233720368547758e18) return INT64_MAX;
    if (v <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}

double dtype_load(DType t, const void *p) {
    switch (t) {
    case DT_F32: { float v; memcpy(&v, p, 4); return v; }
    case DT_F64: { double v; memcpy(&v, p, 8); return v; }
    case DT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case DT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case DT_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case DT_U64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case DT_I8: return *(const int8_t *)p;
    case DT_U8: return *(const uint8_t *)p;
    case DT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case DT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case DT_F16: { uint16_t v; memcpy(&v, p, 2); return f16_to_double(v); }
    case DT_BF16: { uint16_t v; memcpy(&v, p, 2); return bf16_to_double(v); }
    default: return 0;
    }
}

int64_t dtype_load_i64(DType t, const void *p) {
    switch (t) {
    case DT_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case DT_U64: { uint64_t v; memcpy(&v, p, 8); return (int64_t)v; }
    case DT_F32: case DT_F64: case DT_F16: case DT_BF16: return clamp_i64(dtype_load(t, p));
    default: return (int64_t)dtype_load(t, p);  /* exact for every integer type of 32 bits or less */
    }
}

uint64_t dtype_load_u64(DType t, const void *p) {
    if (t == DT_U64) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    return (uint64_t)dtype_load_i64(t, p);
}

#define PUT(T, x) do { T v_ = (x); memcpy(p, &v_, sizeof v_); } while (0)

void dtype_store_i64(DType t, void *p, int64_t v) {
    switch (t) {
    case DT_F32: PUT(float, (float)v); break;
    case DT_F64: PUT(double, (double)v); break;
    case DT_I32: PUT(int32_t, (int32_t)(uint32_t)v); break;
    case DT_U32: PUT(uint32_t, (uint32_t)v); break;
    case DT_I64: PUT(int64_t, v); break;
    case DT_U64: PUT(uint64_t, (uint64_t)v); break;
    case DT_I8: PUT(int8_t, (int8_t)(uint8_t)v); break;
    case DT_U8: PUT(uint8_t, (uint8_t)v); break;
    case DT_I16: PUT(int16_t, (int16_t)(uint16_t)v); break;
    case DT_U16: PUT(uint16_t, (uint16_t)v); break;
    case DT_F16: PUT(uint16_t, f16_from_double((double)v)); break;
    case DT_BF16: PUT(uint16_t, bf16_from_double((double)v)); break;
    default: break;
    }
}

void dtype_store(DType t, void *p, double v) {
    switch (t) {
    case DT_F32: PUT(float, (float)v); break;
    case DT_F64: PUT(double, v); break;
    case DT_F16: PUT(uint16_t, f16_from_double(v)); break;
    case DT_BF16: PUT(uint16_t, bf16_from_double(v)); break;
    case DT_U64:
        if (v >= 9.2233720368547758e18) {
            PUT(uint64_t, v >= 1.8446744073709552e19 ? UINT64_MAX : (uint64_t)v);
            break;
        }
        dtype_store_i64(t, p, clamp_i64(v));
        break;
    default: dtype_store_i64(t, p, clamp_i64(v)); break;
    }
}

void dtype_format(DType t, const void *p, char *buf, size_t n) {
    switch (t) {
    case DT_F32: snprintf(buf, n, "%.9g", dtype_load(t, p)); break;
    case DT_F64: snprintf(buf, n, "%.17g", dtype_load(t, p)); break;
    case DT_F16: snprintf(buf, n, "%.5g", dtype_load(t, p)); break;   /* enough digits to tell any two apart */
    case DT_BF16: snprintf(buf, n, "%.4g", dtype_load(t, p)); break;
    case DT_U64: snprintf(buf, n, "%llu", (unsigned long long)dtype_load_u64(t, p)); break;
    default: snprintf(buf, n, "%lld", (long long)dtype_load_i64(t, p)); break;
    }
}
