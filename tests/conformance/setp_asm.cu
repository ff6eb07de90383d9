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
