// tests/conformance/half_ops.cu: f16 and f16x2 arithmetic and conversions
// (cuda_fp16.h). Inputs are raw 16-bit patterns; the CPU reference decodes
// them, computes exactly in double and rounds once to half.
#include <cuda_fp16.h>

extern "C" __global__ void half_arith(const __half *a, const __half *b, const __half *c, __half *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = __hadd(x, y);
    out[1 * n + i] = __hsub(x, y);
    out[2 * n + i] = __hmul(x, y);
    out[3 * n + i] = __hfma(x, y, z);
    out[4 * n + i] = __hneg(x);
}

extern "C" __global__ void half2_arith(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 x = a[i], y = b[i], z = c[i];
    out[0 * n + i] = __hadd2(x, y);
    out[1 * n + i] = __hmul2(x, y);
    out[2 * n + i] = __hfma2(x, y, z);
}

extern "C" __global__ void half_cvt(const float *a, const __half *h, __half *out, float *outf, int *outi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i];
    out[0 * n + i] = __float2half(x);
    out[1 * n + i] = __float2half_rz(x);
    out[2 * n + i] = __float2half_ru(x);
    out[3 * n + i] = __float2half_rd(x);
    out[4 * n + i] = __int2half_rn((int)(x * 16.0f));
    outf[i] = __half2float(h[i]);
    outi[i] = __half2int_rz(h[i]);
}
