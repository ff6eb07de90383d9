// tests/conformance/half_cmp.cu: f16 comparisons and half2 lane moves, which
// cuda_fp16.h writes as inline asm with scoped, %-less register names
// (`{ .reg .pred __$temp3; setp.lt.f16 __$temp3, ...; selp.u16 ...}`,
// `{.reg .f16 alow,ahigh; mov.b32 {alow,ahigh}, %r;}`).
#include <cuda_fp16.h>

extern "C" __global__ void half_compare(const __half *a, const __half *b, __half *sel, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half x = a[i], y = b[i];
    sel[i] = __hlt(x, y) ? x : y;
    unsigned m = 0;
    m |= (unsigned)__hlt(x, y) << 0;
    m |= (unsigned)__hle(x, y) << 1;
    m |= (unsigned)__hgt(x, y) << 2;
    m |= (unsigned)__hge(x, y) << 3;
    m |= (unsigned)__heq(x, y) << 4;
    m |= (unsigned)__hne(x, y) << 5;
    m |= (unsigned)__hltu(x, y) << 6;
    m |= (unsigned)__hisnan(x) << 7;
    out[i] = m;
}

extern "C" __global__ void half2_lows(const __half2 *a, const __half2 *b, __half2 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[0 * n + i] = __lows2half2(a[i], b[i]);
    out[1 * n + i] = __highs2half2(a[i], b[i]);
    out[2 * n + i] = __lowhigh2highlow(a[i]);
}
