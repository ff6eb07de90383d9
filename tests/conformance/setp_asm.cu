// tests/conformance/setp_asm.cu: the unordered and NaN-testing setp forms
// (ltu, equ, num, nan, neu, gtu) through inline asm, with the predicate in a
// scoped register (`{ .reg .pred q; ... }`) the way cuda_fp16.h writes them.

extern "C" __global__ void setp_f32_asm(const float *a, const float *b, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    unsigned m = 0, p;
    asm("{ .reg .pred q; setp.ltu.f32 q, %1, %2; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "f"(x), "f"(y));
    m |= p << 0;
    asm("{ .reg .pred q; setp.equ.f32 q, %1, %2; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "f"(x), "f"(y));
    m |= p << 1;
    asm("{ .reg .pred q; setp.num.f32 q, %1, %2; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "f"(x), "f"(y));
    m |= p << 2;
    asm("{ .reg .pred q; setp.nan.f32 q, %1, %2; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "f"(x), "f"(y));
    m |= p << 3;
    asm("{ .reg .pred q; setp.neu.f32 q, %1, %2; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "f"(x), "f"(y));
    m |= p << 4;
    asm("{ .reg .pred q; setp.gtu.f32 q, %1, %2; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "f"(x), "f"(y));
    m |= p << 5;
    out[i] = m;
}

// testp in its six modes on f32 and f64: bit k of out[i] is mode k of a[i]
// (finite, infinite, number, notanumber, normal, subnormal), bit 8 + k of d[i]
// (found by tests/difffuzz: the decoder refused every mode).
#define TESTP(mode, ty, reg, v, bit) \
    asm("{ .reg .pred q; testp." mode "." ty " q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(p) : reg(v)); \
    m |= p << (bit)
extern "C" __global__ void testp_modes(const float *a, const double *d, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    double y = d[i];
    unsigned m = 0, p;
    TESTP("finite", "f32", "f", x, 0); TESTP("infinite", "f32", "f", x, 1);
    TESTP("number", "f32", "f", x, 2); TESTP("notanumber", "f32", "f", x, 3);
    TESTP("normal", "f32", "f", x, 4); TESTP("subnormal", "f32", "f", x, 5);
    TESTP("finite", "f64", "d", y, 8); TESTP("infinite", "f64", "d", y, 9);
    TESTP("number", "f64", "d", y, 10); TESTP("notanumber", "f64", "d", y, 11);
    TESTP("normal", "f64", "d", y, 12); TESTP("subnormal", "f64", "d", y, 13);
    out[i] = m;
}
