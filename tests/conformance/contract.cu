// tests/conformance/contract.cu: mul + add without a rounding modifier, which
// ptxas contracts into one fma when the product has a single use (seen in
// cuobjdump -sass of these kernels for sm_90: HFMA2 / FFMA / DFMA), and does
// not when the product is used twice or the mul has .ftz and the add not.
// The emulator must round exactly where the GPU does (kernels/emu/emu_contract.c).
#include <cuda_fp16.h>

extern "C" __global__ void contract_half(const __half *a, const __half *b, const __half *c, __half *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = __hadd(__hmul(x, y), z);                  // fused
    out[1 * n + i] = __hsub(z, __hmul(x, y));                  // fused: fma(-x, y, z)
    out[2 * n + i] = __hsub(__hmul(x, y), z);                  // fused: fma(x, y, -z)
    __half m = __hmul(x, y);                                   // two uses: not fused
    out[3 * n + i] = __hadd(m, z);
    out[4 * n + i] = m;
    out[5 * n + i] = __hadd(__hmul(x, y), __hmul(z, x));       // the first product fused
    __half p = __hmul(z, y), v = x;                            // across a branch: not fused here
    if (__hgt(v, z)) v = __hadd(v, v);
    out[6 * n + i] = __hadd(v, p);
}

extern "C" __global__ void contract_half2(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = __hadd2(__hmul2(a[i], b[i]), c[i]);
}

extern "C" __global__ void contract_f32(const float *a, const float *b, const float *c, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i], m, r;
    asm("mul.f32 %0, %1, %2;" : "=f"(m) : "f"(x), "f"(y));
    asm("add.f32 %0, %1, %2;" : "=f"(r) : "f"(m), "f"(z));
    out[0 * n + i] = r;                                        // fused
    asm("mul.ftz.f32 %0, %1, %2;" : "=f"(m) : "f"(x), "f"(y));
    asm("add.f32 %0, %1, %2;" : "=f"(r) : "f"(m), "f"(z));
    out[1 * n + i] = r;                                        // .ftz on the mul only: not fused
    asm("mul.f32 %0, %1, %2;" : "=f"(m) : "f"(x), "f"(y));
    asm("add.sat.f32 %0, %1, %2;" : "=f"(r) : "f"(m), "f"(z));
    out[2 * n + i] = r;                                        // fused, saturated
    asm("mul.f32 %0, %1, %2;" : "=f"(m) : "f"(x), "f"(y));
    asm("add.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(m), "f"(z));
    out[3 * n + i] = r;                                        // .rn forbids fusing
}

extern "C" __global__ void contract_f64(const double *a, const double *b, const double *c, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i], m, r;
    asm("mul.f64 %0, %1, %2;" : "=d"(m) : "d"(x), "d"(y));
    asm("sub.f64 %0, %1, %2;" : "=d"(r) : "d"(z), "d"(m));
    out[i] = r;                                                // fused: fma(-x, y, z)
}
