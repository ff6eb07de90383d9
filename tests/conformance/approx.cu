// tests/conformance/approx.cu: the fast intrinsics without --use_fast_math
// (sin/cos/ex2/lg2/rsqrt/rcp .approx.f32 without .ftz), compared within the
// bounds documented in tests/conformance/cases_float.h.

extern "C" __global__ void approx_intrinsics(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i];
    out[0 * n + i] = __sinf(x);
    out[1 * n + i] = __cosf(x);
    out[2 * n + i] = __expf(y);
    out[3 * n + i] = __logf(fabsf(x) + 0.5f);
    out[4 * n + i] = rsqrtf(fabsf(x) + 0.25f);
    out[5 * n + i] = __fdividef(x, fabsf(y) + 1.0f);
    out[6 * n + i] = __exp10f(y * 0.25f);
    out[7 * n + i] = __log2f(fabsf(x) + 0.5f);
    out[8 * n + i] = __tanf(x * 0.25f);
}

// div.approx.f32 (__fdividef) and div.approx.ftz.f32 where the ISA gives the
// result exactly: for 2^126 < |b| < 2^128 a sign-preserving zero, NaN when a
// is infinite (found by tests/difffuzz).
extern "C" __global__ void approx_div_range(const float *a, const float *b, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], r;
    out[i] = __fdividef(x, y);
    asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    out[n + i] = r;
}
